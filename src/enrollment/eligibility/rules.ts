import type { ServiceRow } from "../../catalog/services/model.ts"
import type { OccurrenceState } from "../../schedule/event-occurrences/model.ts"
import { addDays, localDateAt } from "../../shared/zoned-time.ts"
import type { EligibilityCode } from "./model.ts"

/**
 * The rules behind each code of the spec's table, as one pure function of what is known about
 * a person and what they would enroll in. Which list a code lands in depends on the mode and
 * the endpoint (spec): `client_purchase_disabled` is a warning in the service lists and in
 * staff mode, a restriction in the client-mode occurrence list, and both in the client-mode
 * service list; `cancelled` and `deleted` only come from occurrence lists; every other code
 * is a restriction, except `credit_card_required`, a warning.
 */
export interface EligibilityFacts {
  readonly mode: "front" | "desk"
  readonly list: "occurrence" | "service"
  readonly service: Pick<
    ServiceRow,
    | "online_booking"
    | "clients_can_book"
    | "members_can_book"
    | "client_purchase_disabled"
    | "require_cc"
    | "require_plan"
    | "enrollment_window_blackout_minutes"
    | "booking_window_days"
  >
  readonly isMember: boolean
  /** The occurrence's state (occurrence lists). */
  readonly state?: OccurrenceState
  /** When the enrollment would take place; absent: no time rule applies. `end` null: no end. */
  readonly window?: { readonly start: number; readonly end: number | null; readonly timeZone: string }
  readonly now: number
  readonly full: boolean
  readonly alreadyEnrolled: boolean
  readonly hasPlan: boolean
  readonly hasCard: boolean
}

export interface Verdict {
  readonly warnings: ReadonlyArray<EligibilityCode>
  readonly restrictions: ReadonlyArray<EligibilityCode>
}

export const evaluate = (facts: EligibilityFacts): Verdict => {
  const warnings: Array<EligibilityCode> = []
  const restrictions: Array<EligibilityCode> = []
  const { service } = facts

  if (service.require_cc && !facts.hasCard) warnings.push("credit_card_required")
  if (service.client_purchase_disabled && !facts.hasPlan) {
    if (facts.list === "service" || facts.mode === "desk") warnings.push("client_purchase_disabled")
    if (facts.mode === "front") restrictions.push("client_purchase_disabled")
  }
  if (facts.alreadyEnrolled) restrictions.push("already_enrolled")
  if (facts.list === "occurrence" && facts.state === "canceled") restrictions.push("cancelled")
  if (!service.online_booking) restrictions.push("client_mode_booking_not_allowed")
  if (!service.clients_can_book && !facts.isMember) restrictions.push("clients_not_allowed")
  if (facts.list === "occurrence" && facts.state === "deleted") restrictions.push("deleted")
  if (facts.full) restrictions.push("full")
  if (facts.window !== undefined) {
    const { start, end, timeZone } = facts.window
    const ended = end !== null && end <= facts.now
    if (ended) restrictions.push("in_the_past")
    // Online enrollment closes `blackout` minutes before the start (at the start without one).
    else if (facts.now >= start - service.enrollment_window_blackout_minutes * 60_000) restrictions.push("inside_blackout_window")
    // It opens at local midnight `booking_window_days` days before the day of the start.
    if (
      !ended &&
      service.booking_window_days !== null &&
      localDateAt(start, timeZone) > addDays(localDateAt(facts.now, timeZone), service.booking_window_days)
    ) {
      restrictions.push("too_far_in_advance")
    }
  }
  if (!service.members_can_book && facts.isMember) restrictions.push("members_not_allowed")
  if (service.require_plan && !facts.hasPlan) restrictions.push("plan_required")
  return { warnings, restrictions }
}
