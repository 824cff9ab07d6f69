import { Effect, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import type { WebhookTopic } from "./model.ts"

/** The SQL of webhook events: storing, finding, retention, and the upcoming-occurrence claims (part of `WebhooksRepo`, repo.ts). */
const decodeIds = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ id: Schema.Number })))

export const makeEventsRepo = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  return {
    insertEvent: (businessId: number, messageId: string, topic: WebhookTopic, body: string, createdAt: Date) =>
      sql`insert into webhook_events (business_id, message_id, topic, payload, created_at)
          values (${businessId}, ${messageId}, ${topic}, ${body}::json, ${createdAt})
          returning id`.pipe(
        Effect.flatMap(decodeIds),
        Effect.map((rows) => rows[0]!.id),
        Effect.orDie
      ),

    /** The event behind one of the subscription's deliveries (only those can be replayed to it). */
    eventOfSubscription: (businessId: number, subscriptionId: number, messageId: string) =>
      sql`select e.id from webhook_events e
          where e.business_id = ${businessId} and e.message_id = ${messageId}
            and exists (select 1 from webhook_deliveries d
                        where d.business_id = e.business_id and d.event_id = e.id and d.subscription_id = ${subscriptionId})`.pipe(
        Effect.flatMap(decodeIds),
        Effect.map((rows) => Option.fromNullishOr(rows[0]).pipe(Option.map((row) => row.id))),
        Effect.orDie
      ),

    /**
     * Up to `limit` active occurrences starting in (`from`, `until`] not yet announced as
     * upcoming, marked announced at `now`. Call it inside the transaction that emits their
     * events: the rows stay locked until it commits, and a concurrent run skips them (SKIP
     * LOCKED) and then finds them marked, so each occurrence is announced once.
     */
    claimUpcomingOccurrences: (businessId: number, window: { readonly from: Date; readonly until: Date }, limit: number) =>
      sql`with due as (
            select id from event_occurrences
            where business_id = ${businessId} and state = 'active' and upcoming_notified_at is null
              and start_at > ${window.from} and start_at <= ${window.until}
            order by start_at, id
            limit ${limit}
            for update skip locked
          )
          update event_occurrences o set upcoming_notified_at = ${window.from}
          from due where o.business_id = ${businessId} and o.id = due.id
          returning o.id`.pipe(
        Effect.flatMap(decodeIds),
        Effect.map((rows) => rows.map((row) => row.id).sort((a, b) => a - b)),
        Effect.orDie
      ),

    /**
     * Retention: deletes up to `limit` events created before `before`, oldest first, with their
     * deliveries and attempts (cascade). An event with a pending delivery (a late replay still
     * retrying) waits for it to settle. Returns how many events went.
     */
    pruneEvents: (before: Date, limit: number) =>
      sql`delete from webhook_events e
          using (
            select business_id, id from webhook_events ev
            where ev.created_at < ${before}
              and not exists (select 1 from webhook_deliveries d
                              where d.business_id = ev.business_id and d.event_id = ev.id and d.status = 'pending')
            order by ev.created_at
            limit ${limit}
          ) old
          where e.business_id = old.business_id and e.id = old.id
          returning e.id`.pipe(
        Effect.map((rows) => rows.length),
        Effect.orDie
      )
  }
})
