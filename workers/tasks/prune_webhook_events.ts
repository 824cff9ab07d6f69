import { Effect } from "effect"
import { RETENTION_DAYS, pruneWebhookEvents } from "../../src/webhooks/retention.ts"

/** Daily (cron): webhook events older than 30 days go, with their deliveries and attempts (src/webhooks/retention.ts). */
export const pruneWebhookEventsTask = (_payload: unknown) =>
  Effect.gen(function* () {
    const pruned = yield* pruneWebhookEvents()
    yield* Effect.logInfo("webhook events pruned").pipe(Effect.annotateLogs({ events: pruned, retention_days: RETENTION_DAYS }))
  })
