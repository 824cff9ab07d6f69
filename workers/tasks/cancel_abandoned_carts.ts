import { Effect, Schema } from "effect"
import { cancelAbandonedCarts } from "../../src/billing/invoices/abandoned.ts"
import { defineJob } from "../../src/platform/jobs.ts"

/** Only the crontab (workers/crontab.ts) enqueues it; its cron payload (`_cron`) is ignored. */
export const CancelAbandonedCartsJob = defineJob("cancel_abandoned_carts", Schema.Struct({}))

/** Carts untouched for a day are canceled (src/billing/invoices/abandoned.ts). */
export const cancelAbandonedCartsTask = (_payload: unknown) =>
  Effect.gen(function* () {
    const canceled = yield* cancelAbandonedCarts()
    if (canceled > 0) yield* Effect.logInfo("abandoned carts canceled").pipe(Effect.annotateLogs({ invoices: canceled }))
  })
