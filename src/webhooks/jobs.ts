import { Schema } from "effect"
import { defineJob } from "../platform/jobs.ts"

/** The jobs webhooks enqueue (src/platform/jobs.ts), run by workers/tasks/<name>.ts. */

/** One emitted event → one delivery (and one `deliver_webhook` job) per subscription of its topic. */
export const WebhookFanoutJob = defineJob("webhook_fanout", Schema.Struct({ business_id: Schema.Number, event_id: Schema.Number }))

/** One attempt of one delivery. */
export const DeliverWebhookJob = defineJob("deliver_webhook", Schema.Struct({ business_id: Schema.Number, delivery_id: Schema.Number }))
