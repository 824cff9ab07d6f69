import { Effect } from "effect"
import { fanOutEvent } from "../../src/webhooks/delivery.ts"
import { WebhookFanoutJob } from "../../src/webhooks/jobs.ts"

/**
 * One emitted webhook event → one delivery (and one `deliver_webhook` job) per subscription of
 * its topic. Enqueued by `emitWebhookEvent` in the transaction of the change; idempotent, so a
 * retried fan-out makes no second delivery.
 */
export const webhookFanoutTask = (payload: unknown) =>
  Effect.gen(function* () {
    const job = yield* WebhookFanoutJob.decode(payload)
    yield* fanOutEvent(job.business_id, job.event_id)
  })
