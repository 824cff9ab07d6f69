import { Effect } from "effect"
import { deliverWebhook } from "../../src/webhooks/delivery.ts"
import { DeliverWebhookJob } from "../../src/webhooks/jobs.ts"

/**
 * One attempt of one webhook delivery: POST, log the attempt, then settle the delivery or
 * schedule the next attempt (src/webhooks/delivery.ts). A receiver's failure is not a job
 * failure; the job fails (and graphile-worker retries it) only when the attempt cannot be
 * made or recorded, e.g. the database is unreachable.
 */
export const deliverWebhookTask = (payload: unknown) =>
  Effect.gen(function* () {
    const job = yield* DeliverWebhookJob.decode(payload)
    yield* deliverWebhook(job.business_id, job.delivery_id)
  })
