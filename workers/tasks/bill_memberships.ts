import { Effect, Schema } from "effect"
import { billDueMemberships } from "../../src/billing/billing-runs/service.ts"
import { defineJob } from "../../src/platform/jobs.ts"

/** Only the crontab (workers/crontab.ts) enqueues it; its cron payload (`_cron`) is ignored. */
export const BillMembershipsJob = defineJob("bill_memberships", Schema.Struct({}))

/**
 * Automatic billing (cron, every 15 minutes): memberships whose next period has begun get their
 * renewal invoice and charge job, each period once (src/billing/billing-runs/service.ts).
 */
export const billMembershipsTask = (_payload: unknown) =>
  Effect.gen(function* () {
    const billed = yield* billDueMemberships()
    if (billed > 0) yield* Effect.logInfo("membership periods billed").pipe(Effect.annotateLogs({ periods: billed }))
  })
