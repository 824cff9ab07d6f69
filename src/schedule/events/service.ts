import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { type Caller, isFrontCaller } from "../../access/caller.ts"
import { CurrentBusiness } from "../../access/tenant.ts"
import { enqueueJob } from "../../platform/jobs.ts"
import { MaterializeEventOccurrencesJob } from "./jobs.ts"
import { formatTimestamp } from "../../shared/schemas.ts"
import { WEEKDAYS } from "../../shared/zoned-time.ts"
import { staffRefs } from "../../catalog/staff-members/service.ts"
import { Enrollments } from "../event-occurrences/enrollments.ts"
import type { PersonRef } from "../event-occurrences/model.ts"
import type { EventInput, EventListQuery, EventRow, EventWire } from "./model.ts"
import { firstSessionDate, lastSessionDate, sessionInstants } from "./recurrence.ts"
import { EventsRepo } from "./repo.ts"
import { currentTime } from "../../shared/clock.ts"
import { EventRefusals } from "./refusals.ts"

/** Spec, limits: the events list spans at most 120 days from `from`. */
export const EVENTS_MAX_RANGE_DAYS = 120
const DAY_MS = 86_400_000

export const MATERIALIZE_TASK = MaterializeEventOccurrencesJob.name
export const materializeJobKey = (businessId: number, eventId: number) => `${MATERIALIZE_TASK}:${businessId}:${eventId}`

/** The first session's start and the last session's end (null without end), as instants. */
export const eventSpan = (row: EventRow): { readonly startAt: number; readonly endAt: number | null } => {
  const first = firstSessionDate(row) ?? row.start_date
  const last = lastSessionDate(row)
  return {
    startAt: sessionInstants(first, row.start_time, row.end_time, row.time_zone).startAt,
    endAt: last === null ? null : sessionInstants(last, row.start_time, row.end_time, row.time_zone).endAt
  }
}

/**
 * Each event's attendees as the audience may see them (spec, events: "attendees include the
 * caller and dependents" in client mode, "all attendees" in staff mode); a client_id-only call
 * has nobody.
 */
const attendeesFor = Effect.fn("Events.attendees")(function* (eventIds: ReadonlyArray<number>, caller: Caller) {
  const business = yield* CurrentBusiness
  const enrollments = yield* Enrollments
  if (caller._tag === "Staff") return yield* enrollments.eventAttendees(business.id, eventIds, null)
  if (caller._tag === "Visitor") return new Map<number, ReadonlyArray<PersonRef>>()
  return yield* enrollments.eventAttendees(business.id, eventIds, caller.household)
})

const toWire = (row: EventRow, options: { readonly clientMode: boolean }, attendees: ReadonlyMap<number, ReadonlyArray<PersonRef>>): EventWire => {
  const span = eventSpan(row)
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    service_id: row.service_id,
    location_id: row.location_id,
    start_time: formatTimestamp(new Date(span.startAt)),
    end_time: span.endAt === null ? null : formatTimestamp(new Date(span.endAt)),
    timezone: row.time_zone,
    capacity: row.capacity,
    staff_members: staffRefs(row.staff, options),
    recurrence: {
      frequency: row.frequency,
      days: row.frequency === "once" ? [] : [...row.weekdays].sort((a, b) => a - b).map((day) => WEEKDAYS[day]!),
      interval_weeks: row.interval_weeks,
      start_date: row.start_date,
      end_date: row.end_date,
      session_count: row.session_count,
      local_start_time: row.start_time,
      local_end_time: row.end_time
    },
    attendees: attendees.get(row.id) ?? [],
    created_at: formatTimestamp(row.created_at),
    updated_at: formatTimestamp(row.updated_at)
  }
}

/**
 * Events whose sessions overlap `from`..`to` (the first session's start to the last one's
 * end); with neither, every event. `to` may be at most 120 days after `from`.
 */
export const listEvents = Effect.fn("Events.list")(function* (query: EventListQuery, caller: Caller) {
  const business = yield* CurrentBusiness
  if (query.from !== undefined && query.to !== undefined) {
    if (query.to.getTime() < query.from.getTime()) {
      return yield* EventRefusals.rangeEndBeforeStart.fail({ from: "from", to: "to" })
    }
    if (query.to.getTime() - query.from.getTime() > EVENTS_MAX_RANGE_DAYS * DAY_MS) {
      return yield* EventRefusals.rangeTooLong.fail({ from: "from", to: "to", max: EVENTS_MAX_RANGE_DAYS })
    }
  }
  const rows = yield* (yield* EventsRepo).list({ businessId: business.id, ids: query.ids, serviceIds: query.service_ids, scope: caller })
  const from = query.from?.getTime()
  const to = query.to?.getTime()
  const inRange = rows.filter((row) => {
    if (from === undefined && to === undefined) return true
    const span = eventSpan(row)
    return (to === undefined || span.startAt < to) && (from === undefined || span.endAt === null || span.endAt > from)
  })
  const attendees = yield* attendeesFor(inRange.map((row) => row.id), caller)
  return { events: inRange.map((row) => toWire(row, { clientMode: isFrontCaller(caller) }, attendees)) }
})

export const getEvent = Effect.fn("Events.get")(function* (id: number, caller: Caller) {
  const business = yield* CurrentBusiness
  const [row] = yield* (yield* EventsRepo).list({ businessId: business.id, ids: [id], scope: caller })
  if (!row) return yield* EventRefusals.eventNotFound.fail({ id })
  return { events: [toWire(row, { clientMode: isFrontCaller(caller) }, yield* attendeesFor([row.id], caller))] }
})

// ---------------------------------------------------------------------------------------------
// Writes: each change enqueues the event's materialization in its own transaction, keyed by
// event, so a burst of changes leaves one pending job (graphile-worker replaces it).

const checkInput = (input: EventInput) => {
  const problems: Array<string> = []
  if (input.frequency === "weekly" && input.weekdays.length === 0) problems.push("a weekly event needs at least one weekday")
  if (input.weekdays.some((day) => !Number.isInteger(day) || day < 0 || day > 6)) problems.push("weekdays are 0 (Sunday) to 6")
  if (input.frequency === "once" && (input.end_date != null || input.session_count != null)) {
    problems.push("a one-off event has no end_date or session_count")
  }
  if (input.start_time === input.end_time) problems.push("start_time and end_time must differ")
  return problems.length === 0 ? Effect.void : Effect.die(new Error(`Invalid event: ${problems.join("; ")}`))
}

const enqueueMaterialization = (businessId: number, eventId: number) =>
  enqueueJob(MaterializeEventOccurrencesJob, { business_id: businessId, event_id: eventId }, { jobKey: materializeJobKey(businessId, eventId) })

export const createEvent = Effect.fn("Events.create")(function* (businessId: number, input: EventInput) {
  yield* checkInput(input)
  const sql = yield* SqlClient.SqlClient
  const repo = yield* EventsRepo
  return yield* sql.withTransaction(
    Effect.gen(function* () {
      const id = yield* repo.insert({ businessId, input })
      yield* enqueueMaterialization(businessId, id)
      return id
    })
  ).pipe(Effect.orDie)
})

/** Replaces the schedule; false when the event does not exist (or was deleted). */
export const updateEvent = Effect.fn("Events.update")(function* (businessId: number, id: number, input: EventInput) {
  yield* checkInput(input)
  const sql = yield* SqlClient.SqlClient
  const repo = yield* EventsRepo
  return yield* sql.withTransaction(
    Effect.gen(function* () {
      const updated = yield* repo.replace({ businessId, id, input })
      if (updated) yield* enqueueMaterialization(businessId, id)
      return updated
    })
  ).pipe(Effect.orDie)
})

/** Deletes the event; its materialization then marks its future occurrences deleted (rows kept). */
export const deleteEvent = Effect.fn("Events.delete")(function* (businessId: number, id: number) {
  const sql = yield* SqlClient.SqlClient
  const repo = yield* EventsRepo
  const now = (yield* currentTime)
  return yield* sql.withTransaction(
    Effect.gen(function* () {
      const deleted = yield* repo.softDelete({ businessId, id, at: now })
      if (deleted) yield* enqueueMaterialization(businessId, id)
      return deleted
    })
  ).pipe(Effect.orDie)
})
