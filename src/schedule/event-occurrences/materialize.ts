import { Clock, Effect } from "effect"
import { SqlClient } from "effect/sql"
import type { EventRow } from "../events/model.ts"
import { EventsRepo } from "../events/repo.ts"
import { MaterializeEventOccurrencesJob } from "../events/jobs.ts"
import { materializeJobKey } from "../events/service.ts"
import { sessionDates, sessionInstants } from "../events/recurrence.ts"
import { enqueueJob } from "../../platform/jobs.ts"
import { addDays, localDateAt } from "../../shared/zoned-time.ts"
import type { OccurrenceInsert } from "./model.ts"
import { OngoingEnrollments } from "./ongoing-enrollments.ts"
import { EventOccurrencesRepo } from "./repo.ts"
import type { MaterializedRow } from "./write-statements.ts"

/**
 * Occurrences are materialized from events for a rolling window: from today (in the event's
 * time zone) to `WINDOW_DAYS` ahead. The first run also backfills the past `BACKFILL_DAYS`,
 * so a schedule imported mid-week shows the whole week. Later runs leave the past alone:
 * what already started is history.
 *
 * For each session date of the window: a missing occurrence is created; one that has not
 * started and is active or reserved follows the event (time, place, staff, capacity); one
 * that was cancelled or deleted keeps that state. An occurrence whose date the event no longer
 * produces (or of a deleted event) is marked deleted, its row kept. New sessions that have not
 * started get the event's ongoing enrollments, in the same transaction (ongoing-enrollments.ts).
 */
export const WINDOW_DAYS = 120
export const BACKFILL_DAYS = 7

export interface MaterializeResult {
  readonly created: number
  readonly updated: number
  readonly deleted: number
}

const differs = (current: MaterializedRow, wanted: OccurrenceInsert) =>
  current.start_at.getTime() !== wanted.start_at.getTime() ||
  current.end_at.getTime() !== wanted.end_at.getTime() ||
  current.time_zone !== wanted.time_zone ||
  current.service_id !== wanted.service_id ||
  current.location_id !== wanted.location_id ||
  current.name !== wanted.name ||
  current.description !== wanted.description ||
  current.capacity !== wanted.capacity ||
  current.staff_member_ids.join(",") !== wanted.staff_member_ids.join(",")

/** The occurrence of an event's session on `date`, as the schedule makes it. */
export const sessionOccurrence = (event: EventRow, date: string): OccurrenceInsert => {
  const { startAt, endAt } = sessionInstants(date, event.start_time, event.end_time, event.time_zone)
  return {
    event_id: event.id,
    scheduled_date: date,
    service_id: event.service_id,
    location_id: event.location_id,
    name: event.name,
    description: event.description,
    start_at: new Date(startAt),
    end_at: new Date(endAt),
    time_zone: event.time_zone,
    state: "active",
    capacity: event.capacity,
    booked_for_person_id: null,
    staff_member_ids: event.staff.map((staff) => staff.id)
  }
}

export const materializeEvent = Effect.fn("EventOccurrences.materialize")(function* (businessId: number, eventId: number) {
  const sql = yield* SqlClient.SqlClient
  const events = yield* EventsRepo
  const occurrences = yield* EventOccurrencesRepo
  const nowMs = yield* Clock.currentTimeMillis
  const now = new Date(nowMs)
  return yield* sql.withTransaction(
    Effect.gen(function* () {
      const event = yield* events.lockForMaterialize({ businessId, id: eventId })
      if (!event) return { created: 0, updated: 0, deleted: 0 } satisfies MaterializeResult
      const today = localDateAt(nowMs, event.time_zone)
      const windowEnd = addDays(today, WINDOW_DAYS)
      const firstRun = event.materialized_through === null
      const existing = yield* occurrences.materializedFrom({ businessId, eventId, fromDate: addDays(today, -BACKFILL_DAYS) })
      const upcoming = (row: { readonly start_at: Date; readonly state: string }) =>
        row.start_at.getTime() > nowMs && (row.state === "active" || row.state === "reserved")

      if (event.deleted_at !== null) {
        const deleted = yield* occurrences.setState({ businessId, ids: existing.filter(upcoming).map((row) => row.id), state: "deleted", at: now })
        return { created: 0, updated: 0, deleted } satisfies MaterializeResult
      }

      const byDate = new Map(existing.map((row) => [row.scheduled_date, row]))
      const dates = sessionDates(event, addDays(today, -BACKFILL_DAYS), windowEnd)
      const wanted = new Set(dates)
      const inserts: Array<OccurrenceInsert> = []
      let updated = 0
      for (const date of dates) {
        const row = sessionOccurrence(event, date)
        const found = byDate.get(date)
        if (found === undefined) {
          if (row.start_at.getTime() > nowMs || firstRun) inserts.push(row)
        } else if (upcoming(found) && differs(found, row)) {
          yield* occurrences.reschedule({ businessId, id: found.id, row, at: now })
          updated++
        }
      }
      const insertedIds = yield* occurrences.insert({ businessId, rows: inserts })
      // Ongoing (recurring) leases of the event cover its future sessions: the new ones too.
      const added = inserts.flatMap((row, i) => (row.start_at.getTime() > nowMs ? [{ id: insertedIds[i]!, start_at: row.start_at }] : []))
      if (added.length > 0) yield* (yield* OngoingEnrollments).sessionsAdded(businessId, eventId, added)
      const stale = existing.filter((row) => !wanted.has(row.scheduled_date) && row.scheduled_date <= windowEnd && upcoming(row))
      const deleted = yield* occurrences.setState({ businessId, ids: stale.map((row) => row.id), state: "deleted", at: now })
      yield* events.setMaterializedThrough({ businessId, id: eventId, date: windowEnd })
      return { created: inserts.length, updated, deleted } satisfies MaterializeResult
    })
  ).pipe(Effect.orDie)
})

/**
 * The daily extension (workers/crontab.ts): one keyed job per live event whose window ends
 * before today's, so each event moves forward in its own transaction and its own retries.
 */
export const enqueueDueMaterializations = Effect.fn("EventOccurrences.enqueueDue")(function* () {
  const sql = yield* SqlClient.SqlClient
  const nowMs = yield* Clock.currentTimeMillis
  // Today in UTC stands for every zone's today: a zone ahead of UTC may wait for the next
  // run, so a window never drops below WINDOW_DAYS - 1 days; one behind gets a no-op job.
  const due = yield* (yield* EventsRepo).materializedBefore({ date: addDays(localDateAt(nowMs, "UTC"), WINDOW_DAYS) })
  yield* sql.withTransaction(
    Effect.forEach(
      due,
      (event) =>
        enqueueJob(MaterializeEventOccurrencesJob, { business_id: event.business_id, event_id: event.id }, {
          jobKey: materializeJobKey(event.business_id, event.id)
        }),
      { discard: true }
    )
  ).pipe(Effect.orDie)
  return due.length
})
