import { Effect, Schema } from "effect"
import { defineJob } from "../../src/platform/jobs.ts"
import { emitEndedPlans } from "../../src/billing/plans/ended.ts"

/** Only the crontab (workers/crontab.ts) enqueues it; its cron payload (`_cron`) is ignored. */
export const EmitEndedPlansJob = defineJob("emit_ended_plans", Schema.Struct({}))

/**
 * plan.ended (cron, every 15 minutes): announces each plan once, after its last day has passed
 * in its business's time zone (src/billing/plans/ended.ts). A missed run is caught up by the next.
 */
export const emitEndedPlansTask = (_payload: unknown) =>
  Effect.gen(function* () {
    const announced = yield* emitEndedPlans()
    if (announced > 0) yield* Effect.logInfo("ended plans announced").pipe(Effect.annotateLogs({ plans: announced }))
  })
