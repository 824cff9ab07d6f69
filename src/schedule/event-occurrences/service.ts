import { Clock, Effect } from "effect"
import { CurrentBusiness } from "../../access/tenant.ts"
import { type Caller, type CallerView, isFrontCaller, personOf, staffView } from "../../access/caller.ts"
import { SERVICE_TYPES, type ServiceType } from "../../catalog/services/model.ts"
import { BadRequest, fail, type Message } from "../../shared/errors.ts"
import { RequestContext } from "../../shared/request-context.ts"
import { formatTimestamp } from "../../shared/schemas.ts"
import { endOfDay, instantOf, localAt, localDateAt, startOfDay } from "../../shared/zoned-time.ts"
import { staffRefs } from "../../catalog/staff-members/service.ts"
import { Enrollments } from "./enrollments.ts"
import { type EventOccurrenceDesk, FRONT_SERVICE_TYPES, type OccurrenceListQuery, type OccurrenceRow, type OccurrenceState, type OccurrenceSummary, type OccurrenceSummaryQuery } from "./model.ts"
import { EventOccurrencesRepo, type FilterTable, type OccurrenceFilters } from "./repo.ts"
import { currentTime } from "../../shared/clock.ts"
import { EventOccurrenceRefusals } from "./refusals.ts"

// ---------------------------------------------------------------------------------------------
// Parameters

/**
 * `from` and `to` default to the start and end of today in the business's time zone (spec);
 * with only one given, the other is the start or end of that one's day. Occurrences starting
 * in `from`..`to` (both inclusive) are listed.
 */
export const dayRange = Effect.fn("EventOccurrences.dayRange")(function* (from: Date | undefined, to: Date | undefined) {
  const business = yield* CurrentBusiness
  const tz = business.time_zone
  const endOf = (date: string) => new Date(endOfDay(date, tz) - 1000)
  let start: Date
  let end: Date
  if (from === undefined && to === undefined) {
    const today = localDateAt(yield* Clock.currentTimeMillis, tz)
    start = new Date(startOfDay(today, tz))
    end = endOf(today)
  } else if (from === undefined) {
    end = to!
    start = new Date(startOfDay(localDateAt(end.getTime(), tz), tz))
  } else {
    start = from
    end = to ?? endOf(localDateAt(from.getTime(), tz))
  }
  if (end.getTime() < start.getTime()) {
    return yield* EventOccurrenceRefusals.rangeEndBeforeStart.fail({ from: "from", to: "to" })
  }
  return { from: start, to: end }
})

/** Filters naming ids that do not exist (for client mode: that clients may not see) are a 400 listing each. */
const checkFilterIds = Effect.fn("EventOccurrences.checkFilterIds")(function* (
  caller: CallerView,
  filters: ReadonlyArray<readonly [field: string, table: FilterTable, ids: ReadonlyArray<number> | undefined]>
) {
  const business = yield* CurrentBusiness
  const repo = yield* EventOccurrencesRepo
  const problems: Array<Message> = []
  for (const [field, table, ids] of filters) {
    if (ids === undefined) continue
    const found = yield* repo.existingIds({ businessId: business.id, table, ids, scope: caller })
    for (const id of new Set(ids)) if (!found.has(id)) problems.push(EventOccurrenceRefusals.fieldIdNotFound.message({ field, id }))
  }
  if (problems.length > 0) return yield* fail(BadRequest, ...problems)
})

const filtersOf = Effect.fn("EventOccurrences.filters")(function* (
  query: Omit<OccurrenceListQuery, "ids" | "event_ids"> & Partial<Pick<OccurrenceListQuery, "ids" | "event_ids">>,
  caller: CallerView,
  serviceTypes: ReadonlyArray<ServiceType> | undefined
) {
  // Asking for occurrences by id without a range finds them whatever their day.
  const range =
    query.ids !== undefined && query.from === undefined && query.to === undefined
      ? { from: undefined, to: undefined }
      : yield* dayRange(query.from, query.to)
  yield* checkFilterIds(caller, [
    ["staff_member_ids", "staff_members", query.staff_member_ids],
    ["service_ids", "services", query.service_ids],
    ["event_ids", "events", query.event_ids],
    ["location_ids", "locations", query.location_ids]
  ])
  return {
    ...range,
    ids: query.ids,
    states: query.state ?? ["active"],
    staffMemberIds: query.staff_member_ids,
    serviceIds: query.service_ids,
    eventIds: query.event_ids,
    locationIds: query.location_ids,
    serviceTypes
  } satisfies OccurrenceFilters
})

// ---------------------------------------------------------------------------------------------
// Wire shapes

/** Each occurrence's own page in this API (there is no web schedule yet). */
const occurrenceUrl = (origin: string, id: number) => `${origin}/api/v2/front/event_occurrences/${id}`

const toWire = Effect.fn("EventOccurrences.wire")(function* (
  rows: ReadonlyArray<OccurrenceRow>,
  options: { readonly clientMode: boolean }
) {
  const business = yield* CurrentBusiness
  const context = yield* RequestContext
  const enrollments = yield* Enrollments
  const ids = rows.map((row) => row.id)
  const taken = yield* enrollments.placesTaken(business.id, ids)
  const waitlistFull = yield* enrollments.waitlistFull(business.id, ids)
  const attendees = options.clientMode ? new Map() : yield* enrollments.attendees(business.id, ids)
  return rows.map((row): EventOccurrenceDesk => {
    const remaining = row.capacity === null ? null : Math.max(0, row.capacity - (taken.get(row.id) ?? 0))
    const people = attendees.get(row.id) ?? []
    return {
      id: row.id,
      event_id: row.event_id,
      name: row.name,
      description: row.description,
      service_id: row.service_id,
      service_type: row.service_type,
      location_id: row.location_id,
      start_at: formatTimestamp(row.start_at),
      end_at: formatTimestamp(row.end_at),
      url: occurrenceUrl(context.origin, row.id),
      timezone: row.time_zone,
      state: row.state,
      full: remaining === 0,
      capacity_remaining: remaining,
      staff_members: staffRefs(row.staff, options),
      waitlist: { full: waitlistFull.has(row.id) },
      attendance_complete: row.attendance_complete,
      updating: row.updating,
      visits_count: people.length,
      people
    }
  })
})

// ---------------------------------------------------------------------------------------------
// Endpoints

/** Client mode: viewable group classes and courses; staff mode: everything, appointments too. */
export const listOccurrences = Effect.fn("EventOccurrences.list")(function* (query: OccurrenceListQuery, caller: Caller) {
  const business = yield* CurrentBusiness
  const filters = yield* filtersOf(query, caller, undefined)
  const rows = yield* (yield* EventOccurrencesRepo).list({ businessId: business.id, ...filters, scope: caller })
  return { event_occurrences: yield* toWire(rows, { clientMode: isFrontCaller(caller) }) }
})

/**
 * One occurrence in any state. Client mode: a viewable group class or course, or an
 * appointment only for the person it is booked for; staff mode adds the roster and visits.
 */
export const findOccurrence = Effect.fn("EventOccurrences.find")(function* (id: number, caller: CallerView) {
  const business = yield* CurrentBusiness
  const row = yield* (yield* EventOccurrencesRepo).find({ businessId: business.id, id, scope: caller, appointmentsOf: personOf(caller) })
  if (!row) return yield* EventOccurrenceRefusals.eventOccurrenceNotFound.fail({ id })
  return row
})

export const getFrontOccurrence = Effect.fn("EventOccurrences.frontGet")(function* (id: number, caller: Caller) {
  const row = yield* findOccurrence(id, caller)
  return { event_occurrences: yield* toWire([row], { clientMode: true }) }
})

export const getDeskOccurrence = Effect.fn("EventOccurrences.deskGet")(function* (id: number) {
  const business = yield* CurrentBusiness
  const row = yield* findOccurrence(id, staffView)
  const [wire] = yield* toWire([row], { clientMode: false })
  const visits = yield* (yield* Enrollments).visits(business.id, row.id)
  return { event_occurrences: [{ ...wire!, visits }] }
})

/**
 * Counts per day or hour of the business's time zone, for the days and hours that have
 * occurrences, in order. Client mode counts courses and group classes only.
 */
export const summarizeOccurrences = Effect.fn("EventOccurrences.summary")(function* (query: OccurrenceSummaryQuery, caller: Caller) {
  const business = yield* CurrentBusiness
  const serviceTypes = query.service_types ?? (isFrontCaller(caller) ? FRONT_SERVICE_TYPES : SERVICE_TYPES)
  const filters = yield* filtersOf(query, caller, serviceTypes)
  const rows = yield* (yield* EventOccurrencesRepo).list({ businessId: business.id, ...filters, scope: caller })
  const byHour = query.group_by === "hour"
  const tz = business.time_zone
  const buckets = new Map<string, { date: string; hour: number | null; count: number }>()
  for (const row of rows) {
    const local = localAt(row.start_at.getTime(), tz)
    const hour = byHour ? Math.floor(local.minutes / 60) : null
    const key = `${local.date}|${hour ?? ""}`
    const bucket = buckets.get(key)
    if (bucket) bucket.count++
    else buckets.set(key, { date: local.date, hour, count: 1 })
  }
  const summaries: Array<OccurrenceSummary> = [...buckets.values()]
    .sort((a, b) => (a.date === b.date ? (a.hour ?? 0) - (b.hour ?? 0) : a.date < b.date ? -1 : 1))
    .map((bucket) => ({
      date: bucket.date,
      hour: bucket.hour,
      start_at: formatTimestamp(new Date(instantOf(bucket.date, (bucket.hour ?? 0) * 60, tz))),
      count: bucket.count
    }))
  return { event_occurrence_summaries: summaries }
})

// ---------------------------------------------------------------------------------------------
// Changes without HTTP endpoints (leases of bookings, tests)

/** Cancels or deletes occurrences; their rows stay, with that state. Returns how many changed. */
export const setOccurrenceState = Effect.fn("EventOccurrences.setState")(function* (
  businessId: number,
  ids: ReadonlyArray<number>,
  state: Exclude<OccurrenceState, "reserved">
) {
  const now = (yield* currentTime)
  return yield* (yield* EventOccurrencesRepo).setState({ businessId, ids, state, at: now })
})

/**
 * An appointment: an occurrence without event, booked for one person with one staff member
 * (`reserved` while a lease holds it, `active` once booked). Availability subtracts it.
 */
export const createAppointment = Effect.fn("EventOccurrences.createAppointment")(function* (
  businessId: number,
  appointment: {
    readonly service_id: number
    readonly staff_member_id: number
    readonly location_id: number | null
    readonly start_at: Date
    readonly person_id: number | null
    readonly state?: "active" | "reserved"
  }
) {
  const repo = yield* EventOccurrencesRepo
  const template = yield* repo.appointmentTemplate({ businessId, serviceId: appointment.service_id, locationId: appointment.location_id })
  if (!template || template.type !== "Appointment") {
    return yield* Effect.die(new Error(`Service ${appointment.service_id} is not an appointment service of business ${businessId}`))
  }
  const [id] = yield* repo.insert({ businessId, rows: [
    {
      event_id: null,
      scheduled_date: null,
      service_id: appointment.service_id,
      location_id: appointment.location_id,
      name: template.name,
      description: template.description,
      start_at: appointment.start_at,
      end_at: new Date(appointment.start_at.getTime() + template.duration_in_minutes * 60_000),
      time_zone: template.time_zone,
      state: appointment.state ?? "active",
      capacity: 1,
      booked_for_person_id: appointment.person_id,
      staff_member_ids: [appointment.staff_member_id]
    }
  ] })
  return id!
})
