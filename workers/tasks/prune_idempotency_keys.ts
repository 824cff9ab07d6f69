import { Effect, Schema } from "effect"
import { defineJob } from "../../src/platform/jobs.ts"
import { pruneIdempotencyKeys } from "../../src/shared/idempotency.ts"

/** Only the crontab (workers/crontab.ts) enqueues it; its cron payload (`_cron`) is ignored. */
export const PruneIdempotencyKeysJob = defineJob("prune_idempotency_keys", Schema.Struct({}))

/** Daily: Idempotency-Key records older than the retention are deleted (src/shared/idempotency.ts). */
export const pruneIdempotencyKeysTask = (_payload: unknown) =>
  Effect.gen(function* () {
    const pruned = yield* pruneIdempotencyKeys()
    if (pruned > 0) yield* Effect.logInfo("idempotency keys pruned").pipe(Effect.annotateLogs({ keys: pruned }))
  })
