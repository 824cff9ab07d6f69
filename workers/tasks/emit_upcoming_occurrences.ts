import { Effect } from "effect"
import { emitUpcomingOccurrences } from "../../src/webhooks/upcoming.ts"

/**
 * event_occurrence.upcoming (cron, every 5 minutes): announces each active occurrence once, when
 * it comes within 24 hours of its start (src/webhooks/upcoming.ts). The cron payload (`_cron`)
 * is ignored; a missed run is caught up by the next, which finds everything not yet announced.
 */
export const emitUpcomingOccurrencesTask = (_payload: unknown) =>
  Effect.gen(function* () {
    const announced = yield* emitUpcomingOccurrences()
    if (announced > 0) yield* Effect.logInfo("upcoming event occurrences announced").pipe(Effect.annotateLogs({ occurrences: announced }))
  })
