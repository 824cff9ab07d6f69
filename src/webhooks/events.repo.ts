import { Effect, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { orDie, orUndefined } from "../shared/statements.ts"
import { WebhookTopic } from "./model.ts"

/** The SQL of webhook events: storing, finding, retention, and the upcoming-occurrence claims (part of `WebhooksRepo`, repo.ts). */
const Id = Schema.Struct({ id: Schema.Number })

export const makeEventsRepo = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  const insertEvent = SqlSchema.findOne({
    Request: Schema.Struct({
      businessId: Schema.Number,
      messageId: Schema.String,
      topic: WebhookTopic,
      body: Schema.String,
      createdAt: Schema.Date
    }),
    Result: Id,
    execute: ({ businessId, messageId, topic, body, createdAt }) =>
      sql`insert into webhook_events (business_id, message_id, topic, payload, created_at)
          values (${businessId}, ${messageId}, ${topic}, ${body}::json, ${createdAt})
          returning id`
  })
  const eventOfSubscription = SqlSchema.findOneOption({
    Request: Schema.Struct({ businessId: Schema.Number, subscriptionId: Schema.Number, messageId: Schema.String }),
    Result: Id,
    execute: ({ businessId, subscriptionId, messageId }) =>
      sql`select e.id from webhook_events e
          where e.business_id = ${businessId} and e.message_id = ${messageId}
            and exists (select 1 from webhook_deliveries d
                        where d.business_id = e.business_id and d.event_id = e.id and d.subscription_id = ${subscriptionId})`
  })
  const pruneEvents = SqlSchema.findAll({
    Request: Schema.Struct({ before: Schema.Date, limit: Schema.Number }),
    Result: Id,
    execute: ({ before, limit }) =>
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
          returning e.id`
  })

  /**
   * Retention: deletes up to `limit` events created before `before`, oldest first, with their
   * deliveries and attempts (cascade). An event with a pending delivery (a late replay still
   * retrying) waits for it to settle. Returns how many events went.
   */
  const prune = (request: Parameters<typeof pruneEvents>[0]) => pruneEvents(request).pipe(Effect.map((rows) => rows.length))

  return {
    insertEvent: orDie(insertEvent),
    /** The event behind one of the subscription's deliveries (only those can be replayed to it). */
    eventOfSubscription: orUndefined(eventOfSubscription),
    pruneEvents: orDie(prune)
  }
})
