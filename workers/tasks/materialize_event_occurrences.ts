import { Effect } from "effect"
import { enqueueDueMaterializations, materializeEvent } from "../../src/schedule/event-occurrences/materialize.ts"
import { MaterializeEventOccurrencesJob } from "../../src/schedule/events/jobs.ts"

/**
 * Materializes one event's occurrences for the rolling window (enqueued, keyed by event, in
 * the transaction of every event change), or, without an event (the daily cron entry), queues
 * that job for every event whose window needs extending. graphile-worker adds `_cron` to the
 * cron payload; unknown keys are ignored.
 */
export const materializeEventOccurrencesTask = (payload: unknown) =>
  Effect.gen(function* () {
    const job = yield* MaterializeEventOccurrencesJob.decode(payload)
    if ("event_id" in job) {
      const result = yield* materializeEvent(job.business_id, job.event_id)
      yield* Effect.logInfo("event occurrences materialized").pipe(
        Effect.annotateLogs({ business_id: job.business_id, event_id: job.event_id, ...result })
      )
    } else {
      const queued = yield* enqueueDueMaterializations()
      yield* Effect.logInfo("event occurrence windows queued for extension").pipe(Effect.annotateLogs({ events: queued }))
    }
  })
