import { Schema } from "effect"
import { IdListFromString, TimestampInput, positiveIntParam } from "../../shared/schemas.ts"

/**
 * Enrollment eligibility (spec, "Enrollment eligibility record" and its codes table): for each
 * person, whether they can enroll, the considerations that do not block it (warnings) and the
 * reasons it is blocked (restrictions), each with a description in the request's locale.
 */
export const ELIGIBILITY_CODES = [
  "credit_card_required",
  "client_purchase_disabled",
  "already_enrolled",
  "cancelled",
  "client_mode_booking_not_allowed",
  "clients_not_allowed",
  "deleted",
  "full",
  "in_the_past",
  "inside_blackout_window",
  "too_far_in_advance",
  "members_not_allowed",
  "plan_required"
] as const
export type EligibilityCode = (typeof ELIGIBILITY_CODES)[number]

export const EligibilityItem = Schema.Struct({
  code: Schema.Literals(ELIGIBILITY_CODES),
  description: Schema.String.annotate({ description: "In the request's locale (X-FD-Locale)" })
}).annotate({ identifier: "EligibilityItem" })

export const EnrollmentEligibility = Schema.Struct({
  person_id: Schema.Int,
  can_enroll: Schema.Boolean.annotate({ description: "True when there are no restrictions" }),
  warnings: Schema.Array(EligibilityItem),
  restrictions: Schema.Array(EligibilityItem)
}).annotate({ identifier: "EnrollmentEligibility" })
export type EnrollmentEligibility = typeof EnrollmentEligibility.Type

/** A person eligibility checks (membership comes from plans, through the Memberships port). */
export const EligibilityPersonRow = Schema.Struct({ id: Schema.Number })
export type EligibilityPersonRow = typeof EligibilityPersonRow.Type

/** What a service's eligibility takes, in both modes (the visit it would be). */
export const ServiceEligibilityQuery = Schema.Struct({
  event_id: Schema.optional(positiveIntParam("An event of the service: used for full and already_enrolled on courses, and for the time, plan and card checks")),
  location_id: Schema.optional(positiveIntParam("Location of the visit (plan checks)")),
  staff_member_ids: Schema.optional(IdListFromString.annotate({ description: "Staff members of the visit (plan checks)" })),
  start_at: Schema.optional(TimestampInput.annotate({ description: "When the visit would start: plan, blackout window and past checks" }))
})
export type ServiceEligibilityQuery = typeof ServiceEligibilityQuery.Type

const person_ids = IdListFromString.annotate({ description: "The people to check (required); people who do not exist are skipped" })

/** Staff mode names the people to check. */
export const OccurrenceEligibilityQueryDesk = Schema.Struct({ person_ids })
export const ServiceEligibilityQueryDesk = Schema.Struct({ person_ids, ...ServiceEligibilityQuery.fields })
export type ServiceEligibilityQueryDesk = typeof ServiceEligibilityQueryDesk.Type
