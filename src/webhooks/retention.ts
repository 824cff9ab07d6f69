import { Clock, Effect } from "effect"
import { WebhooksRepo } from "./repo.ts"

/**
 * Retention of the webhook log: events are kept `RETENTION_DAYS` after they were emitted, then
 * deleted with their deliveries and attempts by a daily job (workers/crontab.ts), in batches of
 * `BATCH` so no statement holds many locks or runs long. Every delivery settles within about
 * three days, so a month leaves owners time to read the log and replay, and bounds the tables.
 */
export const RETENTION_DAYS = 30
const BATCH = 1_000

export const pruneWebhookEvents = Effect.fn("Webhooks.prune")(function* (options: { readonly batch?: number } = {}) {
  const repo = yield* WebhooksRepo
  const before = new Date((yield* Clock.currentTimeMillis) - RETENTION_DAYS * 86_400_000)
  const batch = options.batch ?? BATCH
  let pruned = 0
  while (true) {
    const deleted = yield* repo.pruneEvents({ before, limit: batch })
    pruned += deleted
    if (deleted < batch) break
  }
  return pruned
})
