import { Context, Effect, Layer } from "effect"
import { CacheEventsLive } from "../platform/cache-events.ts"
import { makeDeliveriesRepo } from "./deliveries.repo.ts"
import { makeEventsRepo } from "./events.repo.ts"
import { makeSubscriptionsRepo } from "./subscriptions.repo.ts"


/**
 * The SQL of webhooks, one service over three files by aggregate: subscriptions (and the
 * business's feature switch), events, deliveries (with their attempts). Every statement names
 * `business_id`; writes run on the caller's connection, so inside `sql.withTransaction` they
 * commit or roll back with the change that caused them (an event with its person, a delivery's
 * attempt with its next job).
 */
const make = Effect.map(
  Effect.all([makeSubscriptionsRepo, makeEventsRepo, makeDeliveriesRepo]),
  ([subscriptions, events, deliveries]) => ({ ...subscriptions, ...events, ...deliveries })
)

export class WebhooksRepo extends Context.Service<WebhooksRepo, Effect.Success<typeof make>>()("studio/WebhooksRepo") {
  /** Its subscriber answers are emptied by the same events as the request caches (one listener per process). */
  static readonly layer = Layer.effect(WebhooksRepo)(make).pipe(Layer.provide(CacheEventsLive))
}
