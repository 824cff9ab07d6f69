import { Effect, Schema } from "effect"
import { defineJob } from "../../src/platform/jobs.ts"
import { RETENTION_DAYS, pruneWebhookEvents } from "../../src/webhooks/retention.ts"

/** Only the crontab (workers/crontab.ts) enqueues it; its cron payload (`_cron`) is ignored. */
export const PruneWebhookEventsJob = defineJob("prune_webhook_events", Schema.Struct({}))

/** Daily (cron): webhook events older than 30 days go, with their deliveries and attempts (src/webhooks/retention.ts). */
export const pruneWebhookEventsTask = (_payload: unknown) =>
  Effect.gen(function* () {
    const pruned = yield* pruneWebhookEvents()
    yield* Effect.logInfo("webhook events pruned").pipe(Effect.annotateLogs({ events: pruned, retention_days: RETENTION_DAYS }))
  })
