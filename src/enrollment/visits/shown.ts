import { Effect } from "effect"
import { type ShownVisitRow, type VisitDetail, type VisitOne, type VisitRow, toEmbeddedOccurrence, toEmbeddedPerson, toVisitWire } from "./model.ts"
import { VisitsRepo } from "./repo.ts"

/**
 * Visits as their lists show them: `status` and the occurrence embedded (one query for a whole
 * page); `:id` also embeds the person (`shownVisits`).
 */
export const detailedVisits = Effect.fn("Visits.detailed")(function* (businessId: number, rows: ReadonlyArray<VisitRow>) {
  const occurrences = yield* (yield* VisitsRepo).embeddedOccurrences({ businessId, ids: rows.map((row) => row.event_occurrence_id) })
  return rows.map((row): VisitDetail => ({
    ...toVisitWire(row),
    status: row.state,
    event_occurrence: toEmbeddedOccurrence(occurrences.get(row.event_occurrence_id)!)
  }))
})

const toShown = (row: ShownVisitRow): VisitOne => ({
  ...toVisitWire(row),
  status: row.state,
  event_occurrence: toEmbeddedOccurrence({
    id: row.event_occurrence_id,
    event_id: row.o_event_id,
    name: row.o_name,
    service_id: row.o_service_id,
    location_id: row.o_location_id,
    start_at: row.o_start_at,
    end_at: row.o_end_at,
    time_zone: row.o_time_zone,
    state: row.o_state
  }),
  person: row.person_id === null || row.p_first_name === null
    ? null
    : toEmbeddedPerson({ id: row.person_id, first_name: row.p_first_name, last_name: row.p_last_name ?? "", email: row.p_email })
})

/**
 * Visits by id as `:id` answers them: detailed, and their people embedded (null for a reserved
 * place without one), read in one statement with their occurrences and people. Also what create
 * and update answer after their commit, and what the visit webhooks carry. A visit not found is absent.
 */
export const shownVisits = Effect.fn("Visits.shownById")(function* (businessId: number, ids: ReadonlyArray<number>) {
  const rows = yield* (yield* VisitsRepo).shown({ businessId, ids })
  return { visits: rows.map(toShown) }
})
