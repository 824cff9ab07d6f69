import { Clock, Effect } from "effect"
import { CurrentBusiness } from "../../access/tenant.ts"
import { type Caller, isFrontCaller } from "../../access/caller.ts"
import { type ServiceRow, SLOT_STEP_MINUTES } from "../../catalog/services/model.ts"
import type { ServiceScope } from "../../catalog/services/repo.ts"
import { findService } from "../../catalog/services/service.ts"
import { formatTimestamp } from "../../shared/schemas.ts"
import { addDays, daysBetween, endOfMonth, instantOf, localDateAt, minutesOf, weekdayOf } from "../../shared/zoned-time.ts"
import type { AvailableSlot } from "./model.ts"
import { AvailabilityRepo } from "./repo.ts"
import { AvailabilityRefusals } from "./refusals.ts"

/** Spec, limits: the summary range is at most 90 days, inclusive. */
export const SUMMARY_MAX_DAYS = 90

interface Filters {
  readonly staff_member_ids?: ReadonlyArray<number> | undefined
  readonly location_ids?: ReadonlyArray<number> | undefined
}

/**
 * The appointment service, or a 404: in client mode a service the caller may not see is "an
 * appointment hidden from the current user" (spec); a service of another type is no appointment.
 */
const appointmentService = Effect.fn("Availability.service")(function* (serviceId: number, caller: Caller) {
  const scope: ServiceScope = isFrontCaller(caller) ? caller : { _tag: "Staff", includeHidden: true }
  const service = yield* findService(serviceId, scope).pipe(
    Effect.catch(() => AvailabilityRefusals.appointmentNotFound.fail({ id: serviceId }))
  )
  if (service.type !== "Appointment") return yield* AvailabilityRefusals.appointmentNotFound.fail({ id: serviceId })
  return service
})

/** The last date with slots: a date's slots read the two days after it, and dates are written with four-digit years. */
const LAST_SLOT_DATE = "9999-12-29"

/**
 * The free slots of `fromDate`..`untilDate` (each location's own dates), by local date of the
 * slot's location, in time order. A slot fits inside a staff member's hours and overlaps
 * nothing on their schedule. Past slots never show; client mode also hides slots past the
 * online deadline (inside the blackout window) and those not bookable yet (booking window).
 */
const computeSlots = Effect.fn("Availability.compute")(function* (
  service: ServiceRow,
  fromDate: string,
  untilDate: string,
  filters: Filters,
  clientMode: boolean
) {
  const byDate = new Map<string, Array<AvailableSlot>>()
  if (fromDate > LAST_SLOT_DATE) return byDate
  const toDate = untilDate > LAST_SLOT_DATE ? LAST_SLOT_DATE : untilDate
  const business = yield* CurrentBusiness
  const repo = yield* AvailabilityRepo
  const nowMs = yield* Clock.currentTimeMillis
  const staffIds = yield* repo.providers({ businessId: business.id, serviceId: service.id, clientMode, staffIds: filters.staff_member_ids })
  const hours = yield* repo.workingHours({ businessId: business.id, staffIds, clientMode, locationIds: filters.location_ids })
  if (hours.length === 0) return byDate
  // A day either side covers every location's dates whatever its offset.
  const busy = yield* repo.busy({
    businessId: business.id,
    staffIds,
    from: new Date(instantOf(addDays(fromDate, -1), 0, "UTC")),
    to: new Date(instantOf(addDays(toDate, 2), 0, "UTC"))
  })
  const busyOf = new Map<number, Array<{ start: number; end: number }>>()
  for (const row of busy) {
    const list = busyOf.get(row.staff_member_id) ?? []
    list.push({ start: row.start_at.getTime(), end: row.end_at.getTime() })
    busyOf.set(row.staff_member_id, list)
  }
  const duration = service.duration_in_minutes * 60_000
  const earliest = clientMode ? nowMs + service.enrollment_window_blackout_minutes * 60_000 : nowMs
  const days = daysBetween(fromDate, toDate)
  for (let i = 0; i <= days; i++) {
    const date = addDays(fromDate, i)
    const weekday = weekdayOf(date)
    for (const h of hours) {
      if (h.weekday !== weekday) continue
      if (clientMode && service.booking_window_days !== null && date > addDays(localDateAt(nowMs, h.time_zone), service.booking_window_days)) {
        continue
      }
      const open = instantOf(date, minutesOf(h.start_time), h.time_zone)
      const close = instantOf(date, minutesOf(h.end_time), h.time_zone)
      const taken = busyOf.get(h.staff_member_id) ?? []
      for (let start = open; start + duration <= close; start += SLOT_STEP_MINUTES * 60_000) {
        if (start < earliest) continue
        const end = start + duration
        if (taken.some((b) => b.start < end && b.end > start)) continue
        const slots = byDate.get(date) ?? []
        slots.push({
          start_at: formatTimestamp(new Date(start)),
          end_at: formatTimestamp(new Date(end)),
          service_id: service.id,
          staff_member_id: h.staff_member_id,
          location_id: h.location_id
        })
        byDate.set(date, slots)
      }
    }
  }
  for (const slots of byDate.values()) {
    slots.sort((a, b) =>
      a.start_at === b.start_at
        ? a.staff_member_id - b.staff_member_id || a.location_id - b.location_id
        : a.start_at < b.start_at ? -1 : 1
    )
  }
  return byDate
})

/**
 * Whether an appointment of `service` can start at `startAt` with that staff member at that
 * location: the same slots the availability endpoints list (hours, what is already on their
 * schedule, past times; client mode also the blackout and booking windows). Leases call it
 * after taking the staff member's lock (src/bookings), so a concurrent lease sees the first.
 */
export const isSlotAvailable = Effect.fn("Availability.isSlotAvailable")(function* (
  service: ServiceRow,
  slot: { readonly staff_member_id: number; readonly location_id: number; readonly start_at: Date },
  clientMode: boolean
) {
  const business = yield* CurrentBusiness
  // A day either side of the business's date covers the location's own date whatever its zone.
  const date = localDateAt(slot.start_at.getTime(), business.time_zone)
  const byDate = yield* computeSlots(
    service,
    addDays(date, -1),
    addDays(date, 1),
    { staff_member_ids: [slot.staff_member_id], location_ids: [slot.location_id] },
    clientMode
  )
  const start = formatTimestamp(slot.start_at)
  for (const slots of byDate.values()) {
    if (slots.some((s) => s.start_at === start && s.staff_member_id === slot.staff_member_id && s.location_id === slot.location_id)) {
      return true
    }
  }
  return false
})

const today = Effect.gen(function* () {
  const business = yield* CurrentBusiness
  return localDateAt(yield* Clock.currentTimeMillis, business.time_zone)
})

/** The free slots of one date (default today in the business's time zone). */
export const availableSlots = Effect.fn("Availability.slots")(function* (
  serviceId: number,
  query: Filters & { readonly date?: string | undefined },
  caller: Caller
) {
  const service = yield* appointmentService(serviceId, caller)
  const date = query.date ?? (yield* today)
  const byDate = yield* computeSlots(service, date, date, query, isFrontCaller(caller))
  return { available_slots: byDate.get(date) ?? [] }
})

/**
 * A score per day of `from`..`to` (inclusive; default today to the end of `from`'s month, at
 * most 90 days): the day's free slots over the most any day of the range has. Past days get
 * no score; a range without any free slot scores every day 0.
 */
export const availabilitySummary = Effect.fn("Availability.summary")(function* (
  serviceId: number,
  query: Filters & { readonly from?: string | undefined; readonly to?: string | undefined },
  caller: Caller
) {
  const service = yield* appointmentService(serviceId, caller)
  const now = yield* today
  const from = query.from ?? now
  const to = query.to ?? endOfMonth(from)
  if (to < from) return yield* AvailabilityRefusals.rangeEndBeforeStart.fail({ from: "from", to: "to" })
  if (daysBetween(from, to) + 1 > SUMMARY_MAX_DAYS) {
    return yield* AvailabilityRefusals.rangeTooLong.fail({ from: "from", to: "to", max: SUMMARY_MAX_DAYS })
  }
  const first = from < now ? now : from
  const scores: Record<string, number> = {}
  if (first > to) return scores
  const byDate = yield* computeSlots(service, first, to, query, isFrontCaller(caller))
  const counts = new Map<string, number>()
  for (let i = 0; i <= daysBetween(first, to); i++) {
    const date = addDays(first, i)
    counts.set(date, byDate.get(date)?.length ?? 0)
  }
  const most = Math.max(0, ...counts.values())
  for (const [date, count] of counts) {
    scores[date] = count === 0 ? 0 : count === most ? 1 : Math.max(0.001, Math.round((count / most) * 1000) / 1000)
  }
  return scores
})
