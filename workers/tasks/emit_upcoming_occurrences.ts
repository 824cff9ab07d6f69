import { Effect, Schema } from "effect"
import { defineJob } from "../../src/platform/jobs.ts"
import { emitUpcomingOccurrences } from "../../src/schedule/event-occurrences/upcoming.ts"

/** Only the crontab (workers/crontab.ts) enqueues it; its cron payload (`_cron`) is ignored. */
export const EmitUpcomingOccurrencesJob = defineJob("emit_upcoming_occurrences", Schema.Struct({}))

/**
 * event_occurrence.upcoming (cron, every 5 minutes): announces each active occurrence once, when
 * it comes within 24 hours of its start (src/schedule/event-occurrences/upcoming.ts). The cron payload (`_cron`)
 * is ignored; a missed run is caught up by the next, which finds everything not yet announced.
 */
export const emitUpcomingOccurrencesTask = (_payload: unknown) =>
  Effect.gen(function* () {
    const announced = yield* emitUpcomingOccurrences()
    if (announced > 0) yield* Effect.logInfo("upcoming event occurrences announced").pipe(Effect.annotateLogs({ occurrences: announced }))
  })
