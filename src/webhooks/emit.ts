import { Effect, Option } from "effect"
import { enqueueJob } from "../platform/jobs.ts"
import { WebhookFanoutJob } from "./jobs.ts"
import { formatTimestamp } from "../shared/schemas.ts"
import type { WebhookTopic } from "./model.ts"
import { WebhooksRepo } from "./repo.ts"
import { generateMessageId } from "./signing.ts"
import { currentTime } from "../shared/clock.ts"

/**
 * The one way a domain change notifies webhooks. Call it inside the transaction of the change
 * (`sql.withTransaction`): the event row and its fan-out job commit with the change or not at
 * all. The body every subscriber receives is the Core API response of the record, root key and
 * all (`{"people": [{...}]}`, the desk representation), after `id` (the event's msg_ id, also
 * the `webhook-id` header), `topic`, `created_at` and `business_id`.
 *
 * The payload is an Effect so it is built only when someone listens: a business without a
 * subscription to the topic pays one indexed lookup and stores nothing.
 *
 * Topics of later domains call it the same way, e.g. visits:
 *   yield* emitWebhookEvent(business.id, "visit.created", Effect.succeed({ visits: [visit] }))
 * and scheduled jobs (plan.ended, event_occurrence.upcoming) with the business of each record.
 */
export type WebhookPayload = { readonly [root: string]: ReadonlyArray<unknown> }

export const emitWebhookEvent = Effect.fn("Webhooks.emit")(function* <E, R>(
  businessId: number,
  topic: WebhookTopic,
  payload: Effect.Effect<WebhookPayload, E, R>
) {
  const repo = yield* WebhooksRepo
  if (!(yield* repo.hasSubscribers({ businessId, topic }))) return Option.none<string>()
  return Option.some(yield* storeEvent(businessId, topic, payload))
})

/**
 * One event per payload, all of one topic (e.g. the visits a course booking created): the
 * subscription lookup runs once for all of them, in the same transaction, so the answer is the same.
 */
export const emitWebhookEvents = Effect.fn("Webhooks.emitMany")(function* <E, R>(
  businessId: number,
  topic: WebhookTopic,
  payloads: ReadonlyArray<Effect.Effect<WebhookPayload, E, R>>
) {
  if (payloads.length === 0) return
  if (!(yield* (yield* WebhooksRepo).hasSubscribers({ businessId, topic }))) return
  for (const payload of payloads) yield* storeEvent(businessId, topic, payload)
})

const storeEvent = Effect.fn("Webhooks.store")(function* <E, R>(
  businessId: number,
  topic: WebhookTopic,
  payload: Effect.Effect<WebhookPayload, E, R>
) {
  const repo = yield* WebhooksRepo
  const records = yield* payload
  const createdAt = (yield* currentTime)
  const messageId = generateMessageId()
  const body = JSON.stringify({ id: messageId, topic, created_at: formatTimestamp(createdAt), business_id: businessId, ...records })
  const { id: eventId } = yield* repo.insertEvent({ businessId, messageId, topic, body, createdAt })
  yield* enqueueJob(WebhookFanoutJob, { business_id: businessId, event_id: eventId }, { maxAttempts: 10 })
  return messageId
})
