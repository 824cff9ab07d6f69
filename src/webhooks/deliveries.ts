import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { requireOwner } from "../access/policies.ts"
import { CurrentBusiness } from "../access/tenant.ts"
import { linkBase } from "../shared/pagination.ts"
import { RequestContext } from "../shared/request-context.ts"
import { formatTimestamp } from "../shared/schemas.ts"
import { enqueueDelivery } from "./delivery.ts"
import type { AttemptRow, DeliveryResource, DeliveryRow, DeliveryStatus } from "./model.ts"
import { WebhooksRepo } from "./repo.ts"
import { findOwn } from "./service.ts"
import { WebhookRefusals } from "./refusals.ts"

/**
 * A subscription's delivery log (`/api/v3/webhooks/:id/deliveries`, newest first, each with its
 * attempts) and the replay of one event to it. Owners only, as the subscriptions themselves.
 */
export const DELIVERIES_PER_PAGE = 25
export const MAX_DELIVERIES_PER_PAGE = 100

const toDelivery = (row: DeliveryRow, attempts: ReadonlyArray<AttemptRow>): DeliveryResource => ({
  id: String(row.id),
  type: "webhook_deliveries",
  attributes: {
    webhook_id: row.subscription_id,
    event_id: row.message_id,
    topic: row.topic,
    kind: row.kind,
    status: row.status,
    attempt_count: row.attempt_count,
    last_status_code: row.last_status_code,
    next_attempt_at: row.next_attempt_at === null ? null : formatTimestamp(row.next_attempt_at),
    created_at: formatTimestamp(row.created_at),
    completed_at: row.completed_at === null ? null : formatTimestamp(row.completed_at),
    attempts: attempts.map((a) => ({
      attempt: a.attempt,
      started_at: formatTimestamp(a.started_at),
      status_code: a.status_code,
      latency_ms: a.latency_ms,
      error: a.error,
      response_body: a.response_body
    }))
  }
})

export interface DeliveryListQuery {
  readonly "page[size]"?: number | undefined
  readonly "page[before]"?: number | undefined
  readonly "filter[status]"?: DeliveryStatus | undefined
}

export const listWebhookDeliveries = Effect.fn("Webhooks.deliveries")(function* (id: number, query: DeliveryListQuery) {
  yield* requireOwner
  const business = yield* CurrentBusiness
  const repo = yield* WebhooksRepo
  const context = yield* RequestContext
  yield* findOwn(id)
  const size = Math.min(query["page[size]"] ?? DELIVERIES_PER_PAGE, MAX_DELIVERIES_PER_PAGE)
  const { deliveries, attempts } = yield* repo.listDeliveries({
    businessId: business.id,
    subscriptionId: id,
    before: query["page[before]"],
    limit: size + 1,
    status: query["filter[status]"]
  })
  const page = deliveries.slice(0, size)
  const self = linkBase(context)
  let next: string | undefined
  if (deliveries.length > size) {
    const url = new URL(self)
    url.searchParams.set("page[before]", String(page[page.length - 1]!.id))
    next = url.toString()
  }
  return {
    data: page.map((delivery) => toDelivery(delivery, attempts.filter((a) => a.delivery_id === delivery.id))),
    links: { self: self.toString(), ...(next === undefined ? {} : { next }) }
  }
})

/**
 * Sends one event to the subscription again, as a new delivery with its own attempts and the
 * event's own webhook-id (it is the same event; a receiver that already processed it may
 * skip it). Only events the subscription was sent can be replayed to it.
 */
export const replayWebhookEvent = Effect.fn("Webhooks.replay")(function* (id: number, messageId: string) {
  yield* requireOwner
  const business = yield* CurrentBusiness
  const repo = yield* WebhooksRepo
  const sql = yield* SqlClient.SqlClient
  const subscription = yield* findOwn(id)
  if (!subscription.enabled) return yield* WebhookRefusals.webhookDisabled.fail({ id })
  const event = yield* repo.eventOfSubscription({ businessId: business.id, subscriptionId: id, messageId })
  if (event === undefined) return yield* WebhookRefusals.webhookEventNotFound.fail({ id, event_id: messageId })
  // The answer is the delivery as queued, read in its own transaction: once it commits, the
  // worker may deliver it before this request could read it again.
  const found = yield* sql.withTransaction(
    Effect.gen(function* () {
      const { id: deliveryId } = yield* repo.insertReplay({ businessId: business.id, subscriptionId: id, eventId: event.id })
      yield* enqueueDelivery(business.id, deliveryId)
      return yield* repo.findDelivery({ businessId: business.id, deliveryId })
    })
  ).pipe(Effect.orDie)
  // Inserted in the same transaction: it is there.
  const { delivery, attempts } = found!
  return { data: toDelivery(delivery, attempts) }
})
