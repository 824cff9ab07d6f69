import { Effect, Schema } from "effect"
import { fanOutEvent } from "../../src/webhooks/delivery.ts"

/**
 * One emitted webhook event → one delivery (and one `deliver_webhook` job) per subscription of
 * its topic. Enqueued by `emitWebhookEvent` in the transaction of the change; idempotent, so a
 * retried fan-out makes no second delivery.
 */
const Payload = Schema.Struct({ business_id: Schema.Number, event_id: Schema.Number })
const decode = Schema.decodeUnknownEffect(Payload)

export const webhookFanoutTask = (payload: unknown) =>
  Effect.gen(function* () {
    const job = yield* decode(payload).pipe(Effect.orDie)
    yield* fanOutEvent(job.business_id, job.event_id)
  })
