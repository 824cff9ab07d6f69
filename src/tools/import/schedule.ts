import { Effect, Schema } from "effect"
import { materializeEvent } from "../../schedule/event-occurrences/materialize.ts"
import type { OngoingEnrollments } from "../../schedule/event-occurrences/ongoing-enrollments.ts"
import type { EventOccurrencesRepo } from "../../schedule/event-occurrences/repo.ts"
import { EventsRepo } from "../../schedule/events/repo.ts"
import { SERVICE_TYPES, SERVICE_VISIBILITIES } from "../../catalog/services/model.ts"
import { ServicesRepo } from "../../catalog/services/repo.ts"
import { StaffMembersRepo } from "../../catalog/staff-members/repo.ts"
import { isCalendarDate, minutesOf, WEEKDAYS } from "../../shared/zoned-time.ts"
import { OptionalText, Text, isHexColor } from "./fields.ts"
import { currentTime } from "../../shared/clock.ts"

/**
 * The schedule part of the import format: services (with the staff who give appointments),
 * staff working hours, and events with their recurrence. Records refer to each other by key
 * (services, locations) and by e-mail (staff), like the rest of the document. Imported events
 * are materialized in the import's transaction, so a new business has its schedule at once.
 */

const Key = Schema.String.check(Schema.isPattern(/^[A-Za-z0-9_.:-]{1,100}$/u, { message: "must be 1-100 letters, digits, or _ . : -" }))
const Time = Schema.String.check(
  Schema.isPattern(/^([01]\d|2[0-3]):[0-5]\d$/u, { message: "must be a 24-hour time, HH:MM" })
).annotate({ description: "Local wall-clock time, HH:MM" })
const DateText = Schema.String.check(
  Schema.makeFilter((s: string) => isCalendarDate(s) || "must be a real calendar date, YYYY-MM-DD")
).annotate({ description: "YYYY-MM-DD" })
const Count = (min: number, max: number) =>
  Schema.Int.check(Schema.isBetween({ minimum: min, maximum: max }, { message: `must be an integer from ${min} to ${max}` }))
const Weekdays = Schema.Array(Schema.Literals(WEEKDAYS)).annotate({ description: "Days of the week, lowercase English names" })
const EmailRef = Schema.String.annotate({ description: "E-mail of a staff member of the document" })

export const ImportWorkingHours = Schema.Struct({
  location: Key.annotate({ description: "Key of the location" }),
  days: Weekdays,
  start_time: Time,
  end_time: Time
}).annotate({ identifier: "ImportWorkingHours", description: "When the staff member takes appointments at a location" })

export const ImportService = Schema.Struct({
  key: Key.annotate({ description: "Unique among services; events refer to the service by it" }),
  name: Text(200),
  type: Schema.Literals(SERVICE_TYPES),
  category: Schema.optionalKey(Text(200).annotate({ description: "Category name; categories are created in order of first use" })),
  description: Schema.optionalKey(OptionalText(5000)),
  description_short: Schema.optionalKey(OptionalText(500)),
  instructions: Schema.optionalKey(OptionalText(5000)),
  duration_in_minutes: Count(1, 1440),
  calendar_color: Schema.optionalKey(Schema.String.check(isHexColor)),
  visibility: Schema.optionalKey(Schema.Literals(SERVICE_VISIBILITIES).annotate({ description: "Default Everyone" })),
  hidden: Schema.optionalKey(Schema.Boolean),
  online_booking: Schema.optionalKey(Schema.Boolean.annotate({ description: "Clients may book online (default true)" })),
  clients_can_book: Schema.optionalKey(Schema.Boolean),
  members_can_book: Schema.optionalKey(Schema.Boolean),
  client_purchase_disabled: Schema.optionalKey(Schema.Boolean),
  require_cc: Schema.optionalKey(Schema.Boolean),
  require_plan: Schema.optionalKey(Schema.Boolean),
  enrollment_window_blackout_minutes: Schema.optionalKey(Count(0, 525_600)),
  booking_window_days: Schema.optionalKey(Count(0, 3650)),
  free_cancellation_window_in_hours: Schema.optionalKey(Count(0, 8760)),
  maximum_clients: Schema.optionalKey(Count(1, 100_000).annotate({ description: "Places per occurrence; absent: unlimited (appointments: 1)" })),
  drop_in_price_cents: Schema.optionalKey(Count(0, 100_000_000)),
  number_of_free_visits: Schema.optionalKey(Count(0, 1000).annotate({ description: "Free visits for a new client (default 0)" })),
  anonymous_staff: Schema.optionalKey(Schema.Boolean.annotate({ description: "Hide the staff member's name from clients (default false)" })),
  show_capacity_to_clients: Schema.optionalKey(Schema.NullOr(Schema.Boolean).annotate({ description: "Default null: the business's default" })),
  show_rooms_to_clients: Schema.optionalKey(Schema.Boolean),
  allow_tips: Schema.optionalKey(Schema.Boolean),
  no_merchandise_price: Schema.optionalKey(Schema.NullOr(Schema.Boolean)),
  supports_single_payer: Schema.optionalKey(Schema.Boolean),
  staff: Schema.optionalKey(Schema.Array(EmailRef).annotate({ description: "Appointments: the staff members who give it" }))
}).annotate({ identifier: "ImportService" })

export const ImportEvent = Schema.Struct({
  service: Key.annotate({ description: "Key of a GroupClass or Course service" }),
  name: Schema.optionalKey(Text(200).annotate({ description: "Defaults to the service's name" })),
  description: Schema.optionalKey(OptionalText(5000)),
  location: Schema.optionalKey(Key.annotate({ description: "Key of the location; its time zone sets the wall-clock times" })),
  staff: Schema.optionalKey(Schema.Array(EmailRef)),
  capacity: Schema.optionalKey(Count(1, 100_000).annotate({ description: "Defaults to the service's maximum_clients" })),
  frequency: Schema.Literals(["once", "weekly"]),
  days: Schema.optionalKey(Weekdays.annotate({ description: "Weekly: the days of the week" })),
  interval_weeks: Schema.optionalKey(Count(1, 52)),
  start_date: DateText,
  end_date: Schema.optionalKey(DateText),
  session_count: Schema.optionalKey(Count(1, 1000).annotate({ description: "A fixed run of sessions (courses)" })),
  start_time: Time,
  end_time: Time.annotate({ description: "Earlier than start_time: the next day" })
}).annotate({ identifier: "ImportEvent" })

/** What writing a schedule needs from the layer graph (repos of src/app/layers.ts). */
export type ScheduleImportServices = ServicesRepo | StaffMembersRepo | EventsRepo | EventOccurrencesRepo | OngoingEnrollments

type Problem = { readonly path: ReadonlyArray<PropertyKey>; readonly issue: string }

interface ScheduleDocument {
  readonly locations?: ReadonlyArray<{ readonly key: string }>
  readonly staff?: ReadonlyArray<{ readonly email: string; readonly working_hours?: ReadonlyArray<typeof ImportWorkingHours.Type> }>
  readonly services?: ReadonlyArray<typeof ImportService.Type>
  readonly events?: ReadonlyArray<typeof ImportEvent.Type>
}

/** The cross-references of the schedule: keys resolve, rules hold, with the path of each problem. */
export const scheduleProblems = (doc: ScheduleDocument): ReadonlyArray<Problem> => {
  const problems: Array<Problem> = []
  const locations = new Set((doc.locations ?? []).map((location) => location.key))
  const staff = new Set((doc.staff ?? []).map((member) => member.email.toLowerCase()))
  const checkStaff = (emails: ReadonlyArray<string> | undefined, path: ReadonlyArray<PropertyKey>) =>
    (emails ?? []).forEach((email, j) => {
      if (!staff.has(email.toLowerCase())) problems.push({ path: [...path, j], issue: `no staff member with e-mail ${email} in this document` })
    })

  ;(doc.staff ?? []).forEach((member, i) =>
    (member.working_hours ?? []).forEach((hours, j) => {
      const at = ["staff", i, "working_hours", j]
      if (!locations.has(hours.location)) problems.push({ path: [...at, "location"], issue: `no location with key "${hours.location}" in this document` })
      if (hours.days.length === 0) problems.push({ path: [...at, "days"], issue: "needs at least one day" })
      if (minutesOf(hours.end_time) <= minutesOf(hours.start_time)) problems.push({ path: [...at, "end_time"], issue: "must be after start_time" })
    })
  )

  const services = new Map<string, typeof ImportService.Type>()
  ;(doc.services ?? []).forEach((service, i) => {
    if (services.has(service.key)) problems.push({ path: ["services", i, "key"], issue: `key "${service.key}" is already used` })
    else services.set(service.key, service)
    if (service.staff !== undefined && service.type !== "Appointment") {
      problems.push({ path: ["services", i, "staff"], issue: "only appointment services name the staff who give them; classes name staff on their events" })
    }
    checkStaff(service.staff, ["services", i, "staff"])
  })

  ;(doc.events ?? []).forEach((event, i) => {
    const at = (...rest: Array<PropertyKey>) => ["events", i, ...rest]
    const service = services.get(event.service)
    if (service === undefined) problems.push({ path: at("service"), issue: `no service with key "${event.service}" in this document` })
    else if (service.type === "Appointment") problems.push({ path: at("service"), issue: "appointments have no events: they are booked in the staff's working hours" })
    if (event.location !== undefined && !locations.has(event.location)) {
      problems.push({ path: at("location"), issue: `no location with key "${event.location}" in this document` })
    }
    checkStaff(event.staff, at("staff"))
    if (event.start_time === event.end_time) problems.push({ path: at("end_time"), issue: "must differ from start_time" })
    if (event.frequency === "once") {
      for (const key of ["days", "interval_weeks", "end_date", "session_count"] as const) {
        if (event[key] !== undefined) problems.push({ path: at(key), issue: "a one-off event (frequency once) has no recurrence" })
      }
    } else {
      if ((event.days ?? []).length === 0) problems.push({ path: at("days"), issue: "a weekly event needs at least one day" })
      if (event.end_date !== undefined && event.end_date < event.start_date) problems.push({ path: at("end_date"), issue: "must not be before start_date" })
      if (service?.type === "Course" && event.end_date === undefined && event.session_count === undefined) {
        problems.push({ path: at("session_count"), issue: "a course is a fixed run: give session_count or end_date" })
      }
    }
  })
  return problems
}

export interface ScheduleCounts {
  readonly services: number
  readonly events: number
  readonly event_occurrences: number
}

/**
 * Writes the schedule of a document already checked, on the import's transaction: categories,
 * services and their providers, working hours, events, then each event's occurrences.
 */
export const writeSchedule = Effect.fn("Import.writeSchedule")(function* (
  doc: ScheduleDocument,
  context: { readonly businessId: number; readonly locationIds: ReadonlyMap<string, number>; readonly personIdsByEmail: ReadonlyMap<string, number> }
) {
  const { businessId } = context
  const servicesRepo = yield* ServicesRepo
  const staffRepo = yield* StaffMembersRepo
  const eventsRepo = yield* EventsRepo
  const now = (yield* currentTime)
  const staffIds = yield* staffRepo.idsByPerson({ businessId })
  const staffId = (email: string) => staffIds.get(context.personIdsByEmail.get(email.toLowerCase())!)!
  const weekday = (day: (typeof WEEKDAYS)[number]) => WEEKDAYS.indexOf(day)

  yield* staffRepo.insertWorkingHours({
    businessId,
    rows: (doc.staff ?? []).flatMap((member) =>
      (member.working_hours ?? []).flatMap((hours) =>
        [...new Set(hours.days)].map((day) => ({
          staff_member_id: staffId(member.email),
          location_id: context.locationIds.get(hours.location)!,
          weekday: weekday(day),
          start_time: hours.start_time,
          end_time: hours.end_time
        }))
      )
    )
  })

  const categories = new Map<string, number>()
  const serviceIds = new Map<string, number>()
  const services = doc.services ?? []
  for (const [position, service] of services.entries()) {
    let categoryId: number | null = null
    if (service.category !== undefined) {
      const name = service.category.trim()
      if (!categories.has(name)) categories.set(name, (yield* servicesRepo.ensureCategory({ businessId, name, position: categories.size })).id)
      categoryId = categories.get(name)!
    }
    // What the document leaves out takes the services repo's defaults (one place for them).
    const { key: _key, category: _category, hidden, staff, ...settings } = service
    const id = yield* servicesRepo.insert({
      businessId,
      service: {
        ...settings,
        name: service.name.trim(),
        position,
        category_id: categoryId,
        hidden_at: hidden ? now : null,
        staff_member_ids: (staff ?? []).map(staffId)
      }
    })
    serviceIds.set(service.key, id)
  }

  let occurrences = 0
  const events = doc.events ?? []
  for (const event of events) {
    const service = services.find((candidate) => candidate.key === event.service)!
    const id = yield* eventsRepo.insert({ businessId, input: {
      service_id: serviceIds.get(event.service)!,
      location_id: event.location === undefined ? null : context.locationIds.get(event.location)!,
      name: (event.name ?? service.name).trim(),
      description: event.description ?? null,
      frequency: event.frequency,
      weekdays: (event.days ?? []).map(weekday),
      interval_weeks: event.interval_weeks ?? 1,
      start_date: event.start_date,
      end_date: event.end_date ?? null,
      session_count: event.session_count ?? null,
      start_time: event.start_time,
      end_time: event.end_time,
      capacity: event.capacity ?? null,
      staff_member_ids: (event.staff ?? []).map(staffId)
    } })
    occurrences += (yield* materializeEvent(businessId, id)).created
  }
  return {
    counts: { services: services.length, events: events.length, event_occurrences: occurrences } satisfies ScheduleCounts,
    serviceIds: serviceIds as ReadonlyMap<string, number>,
    staffId
  }
})
