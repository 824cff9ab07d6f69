import { Effect } from "effect"
import { type VisitDetail, type VisitOne, type VisitRow, toEmbeddedOccurrence, toEmbeddedPerson, toVisitWire } from "./model.ts"
import { VisitsRepo } from "./repo.ts"

/**
 * Visits as their endpoints show them, and as visit.created/visit.updated carry them: `status`
 * and the occurrence embedded (one query for a whole page); `:id` also embeds the person.
 */
export const detailedVisits = Effect.fn("Visits.detailed")(function* (businessId: number, rows: ReadonlyArray<VisitRow>) {
  const occurrences = yield* (yield* VisitsRepo).embeddedOccurrences({ businessId, ids: rows.map((row) => row.event_occurrence_id) })
  return rows.map((row): VisitDetail => ({
    ...toVisitWire(row),
    status: row.state,
    event_occurrence: toEmbeddedOccurrence(occurrences.get(row.event_occurrence_id)!)
  }))
})

/**
 * Visits as `:id` answers them: detailed, and their people embedded (null for a reserved place
 * without one). Also what create and update answer, and what the visit webhooks carry.
 */
export const visitsShown = Effect.fn("Visits.shown")(function* (businessId: number, rows: ReadonlyArray<VisitRow>) {
  const visits = yield* detailedVisits(businessId, rows)
  const personIds = rows.flatMap((row) => (row.person_id === null ? [] : [row.person_id]))
  const people = yield* (yield* VisitsRepo).embeddedPeople({ businessId, ids: personIds })
  return {
    visits: visits.map((visit): VisitOne => {
      const person = visit.person_id === null ? undefined : people.get(visit.person_id)
      return { ...visit, person: person === undefined ? null : toEmbeddedPerson(person) }
    })
  }
})
