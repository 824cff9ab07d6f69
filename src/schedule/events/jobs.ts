import { Schema } from "effect"
import { defineJob } from "../../platform/jobs.ts"

/**
 * Materializes one event's occurrences (enqueued, keyed by event, with every event change), or,
 * without an event (the daily cron entry), queues that job for every event whose window needs
 * extending. Run by workers/tasks/materialize_event_occurrences.ts.
 */
export const MaterializeEventOccurrencesJob = defineJob(
  "materialize_event_occurrences",
  Schema.Union([Schema.Struct({ business_id: Schema.Int, event_id: Schema.Int }), Schema.Struct({})])
)
