import { Effect, Option, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { currentTraceparent } from "../platform/job-trace.ts"
import { orDie, orUndefined } from "../shared/statements.ts"
import { AttemptRow, DELIVERY_STATUSES, DeliveryRow, DeliveryWorkRow } from "./model.ts"
import { bigintArray } from "../shared/sql-rows.ts"

/** The SQL of webhook deliveries and their attempts: fan-out, claims, the log (part of `WebhooksRepo`, repo.ts). */
const ByDelivery = Schema.Struct({ businessId: Schema.Number, deliveryId: Schema.Number })
const Status = Schema.Literals(DELIVERY_STATUSES)
const Attempt = Schema.Struct({
  attempt: Schema.Number,
  startedAt: Schema.Date,
  statusCode: Schema.NullOr(Schema.Number),
  latencyMs: Schema.Number,
  error: Schema.NullOr(Schema.String),
  responseBody: Schema.NullOr(Schema.String)
})

export const makeDeliveriesRepo = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  /** A delivery as the log shows it, with its event's message id and topic (`d`, `e`). */
  const deliveryColumns = sql`d.id, d.subscription_id, e.message_id, e.topic, d.kind, d.status, d.attempt_count,
    d.last_status_code, d.next_attempt_at, d.created_at, d.completed_at`
  const deliveryFrom = sql`webhook_deliveries d join webhook_events e on e.business_id = d.business_id and e.id = d.event_id`
  const attemptColumns = sql`delivery_id, attempt, started_at, status_code, latency_ms, error, response_body`

  const fanOut = SqlSchema.findOne({
    Request: Schema.Struct({
      businessId: Schema.Number,
      eventId: Schema.Number,
      task: Schema.String,
      maxAttempts: Schema.Number,
      traceparent: Schema.NullOr(Schema.String)
    }),
    Result: Schema.Struct({ n: Schema.Number }),
    execute: ({ businessId, eventId, task, maxAttempts, traceparent }) =>
      sql`
          with created as (
            insert into webhook_deliveries (business_id, subscription_id, event_id, kind)
            select s.business_id, s.id, e.id, 'event'
            from webhook_events e
            join businesses b on b.id = e.business_id and b.webhooks_enabled
            join webhook_subscriptions s on s.business_id = e.business_id and s.topic = e.topic and s.enabled
            where e.business_id = ${businessId} and e.id = ${eventId}
            order by s.id
            on conflict (business_id, subscription_id, event_id) where kind = 'event' do nothing
            returning business_id, id
          )
          select case when exists (select 1 from created) then (
            select count(*) from graphile_worker.add_jobs(array(
              select row(${task}::text,
                         case when ${traceparent}::text is null then json_build_object('business_id', business_id, 'delivery_id', id)
                         else json_build_object('business_id', business_id, 'delivery_id', id,
                                                '_trace', json_build_object('traceparent', ${traceparent}::text)) end,
                         null::text,
                         null::timestamptz, ${maxAttempts}::int, 'webhook_delivery:' || business_id || ':' || id, null::int,
                         null::text[])::graphile_worker.job_spec
              from created order by id))
          ) else 0 end as n`
  })
  const claimAttempt = SqlSchema.findOneOption({
    Request: Schema.Struct({ ...ByDelivery.fields, interrupted: Schema.String }),
    Result: DeliveryWorkRow,
    execute: ({ businessId, deliveryId, interrupted }) =>
      sql`with claimed as (
            update webhook_deliveries d set attempt_count = d.attempt_count + 1, next_attempt_at = null, updated_at = now()
            where d.business_id = ${businessId} and d.id = ${deliveryId} and d.status = 'pending'
              and exists (select 1 from webhook_subscriptions s
                          where s.business_id = d.business_id and s.id = d.subscription_id and s.enabled)
            returning d.business_id, d.id, d.subscription_id, d.event_id, d.attempt_count
          ), cut_off as (
            insert into webhook_delivery_attempts (business_id, delivery_id, attempt, started_at, status_code, latency_ms, error)
            select business_id, id, attempt_count - 1, now(), null, 0, ${interrupted} from claimed where attempt_count > 1
            on conflict (business_id, delivery_id, attempt) do nothing
          )
          select c.business_id, c.id, c.subscription_id, c.attempt_count, e.message_id, e.payload::text as body,
                 s.target, s.secret_encrypted, s.previous_secret_encrypted, s.previous_secret_expires_at
          from claimed c
          join webhook_events e on e.business_id = c.business_id and e.id = c.event_id
          join webhook_subscriptions s on s.business_id = c.business_id and s.id = c.subscription_id`
  })
  const cancelPending = SqlSchema.void({
    Request: ByDelivery,
    execute: ({ businessId, deliveryId }) =>
      sql`update webhook_deliveries set status = 'cancelled', next_attempt_at = null, completed_at = now(), updated_at = now()
          where business_id = ${businessId} and id = ${deliveryId} and status = 'pending'`
  })
  const recordAttempt = SqlSchema.void({
    Request: Schema.Struct({ ...ByDelivery.fields, attempt: Attempt, status: Status, nextAttemptAt: Schema.NullOr(Schema.Date) }),
    execute: ({ businessId, deliveryId, attempt, status, nextAttemptAt }) =>
      sql`with logged as (
            insert into webhook_delivery_attempts
              (business_id, delivery_id, attempt, started_at, status_code, latency_ms, error, response_body)
            values (${businessId}, ${deliveryId}, ${attempt.attempt}, ${attempt.startedAt}, ${attempt.statusCode},
                    ${attempt.latencyMs}, ${attempt.error}, ${attempt.responseBody})
            on conflict (business_id, delivery_id, attempt) do nothing
          )
          update webhook_deliveries set status = ${status},
            last_status_code = coalesce(${attempt.statusCode}::int, last_status_code),
            next_attempt_at = ${nextAttemptAt},
            completed_at = ${status === "pending" ? sql`null` : sql`now()`},
            updated_at = now()
          where business_id = ${businessId} and id = ${deliveryId}`
  })
  const listDeliveries = SqlSchema.findAll({
    Request: Schema.Struct({
      businessId: Schema.Number,
      subscriptionId: Schema.Number,
      before: Schema.UndefinedOr(Schema.Number),
      limit: Schema.Number,
      status: Schema.UndefinedOr(Status)
    }),
    Result: DeliveryRow,
    execute: ({ businessId, subscriptionId, before, limit, status }) =>
      sql`
          select ${deliveryColumns} from ${deliveryFrom}
          where d.business_id = ${businessId} and d.subscription_id = ${subscriptionId}
            ${before === undefined ? sql`` : sql`and d.id < ${before}`}
            ${status === undefined ? sql`` : sql`and d.status = ${status}`}
          order by d.id desc
          limit ${limit}`
  })
  const attemptsOf = SqlSchema.findAll({
    Request: Schema.Struct({ businessId: Schema.Number, deliveryIds: Schema.Array(Schema.Number) }),
    Result: AttemptRow,
    execute: ({ businessId, deliveryIds }) =>
      sql`
          select ${attemptColumns}
          from webhook_delivery_attempts
          where business_id = ${businessId} and delivery_id = any(${bigintArray(deliveryIds)})
          order by delivery_id, attempt`
  })
  const findDelivery = SqlSchema.findOneOption({
    Request: ByDelivery,
    Result: DeliveryRow,
    execute: ({ businessId, deliveryId }) =>
      sql`
          select ${deliveryColumns} from ${deliveryFrom}
          where d.business_id = ${businessId} and d.id = ${deliveryId}`
  })
  const attemptsOfDelivery = SqlSchema.findAll({
    Request: ByDelivery,
    Result: AttemptRow,
    execute: ({ businessId, deliveryId }) =>
      sql`
          select ${attemptColumns}
          from webhook_delivery_attempts where business_id = ${businessId} and delivery_id = ${deliveryId}
          order by attempt`
  })
  const insertReplay = SqlSchema.findOne({
    Request: Schema.Struct({ businessId: Schema.Number, subscriptionId: Schema.Number, eventId: Schema.Number }),
    Result: Schema.Struct({ id: Schema.Number }),
    execute: ({ businessId, subscriptionId, eventId }) =>
      sql`insert into webhook_deliveries (business_id, subscription_id, event_id, kind)
          values (${businessId}, ${subscriptionId}, ${eventId}, 'replay') returning id`
  })

  /**
   * One delivery per enabled subscription of the event's topic (one made while the fan-out was
   * queued gets the event too: it happened as the subscription began), and one job for each,
   * in one statement (graphile-worker's `add_jobs`, the batch form of what src/platform/jobs.ts
   * does: the same task, key and attempts as `enqueueDelivery`). Idempotent: a second run (the
   * fan-out job retried) makes no delivery and no job. Returns how many it made.
   */
  const fanOutTraced = (request: Omit<Parameters<typeof fanOut>[0], "traceparent">) =>
    // Each delivery's job continues the fan-out's trace, as `enqueueJob` does (src/platform/job-trace.ts).
    Effect.flatMap(currentTraceparent, (traceparent) => fanOut({ ...request, traceparent: traceparent ?? null })).pipe(
      Effect.map((row) => row.n)
    )
  /** Newest first, each page with its deliveries' attempts; `before` is the last id of the previous page. */
  const page = (request: Parameters<typeof listDeliveries>[0]) =>
    Effect.gen(function* () {
      const deliveries = yield* listDeliveries(request)
      const ids = deliveries.map((d) => d.id)
      const attempts = ids.length === 0 ? [] : yield* attemptsOf({ businessId: request.businessId, deliveryIds: ids })
      return { deliveries, attempts }
    })
  /** One delivery with its attempts; undefined when the business has no such delivery. */
  const withAttempts = (request: typeof ByDelivery.Type) =>
    Effect.gen(function* () {
      const delivery = yield* findDelivery(request)
      if (Option.isNone(delivery)) return undefined
      return { delivery: delivery.value, attempts: yield* attemptsOfDelivery(request) }
    })

  return {
    fanOut: orDie(fanOutTraced),
    /**
     * Claims the next attempt of a pending delivery whose subscription is enabled, in one
     * statement: the attempt number (the row lock serializes two runs of one delivery), a log
     * row for a previous attempt a dead worker left unrecorded, and what the POST needs.
     * Undefined: nothing to attempt (delivered, failed, cancelled, or its subscription disabled or gone).
     */
    claimAttempt: orUndefined(claimAttempt),
    /** A pending delivery whose subscription is disabled will not be attempted. */
    cancelPending: orDie(cancelPending),
    /** The attempt's log row and the delivery's new state, in one statement. */
    recordAttempt: orDie(recordAttempt),
    listDeliveries: orDie(page),
    findDelivery: orDie(withAttempts),
    insertReplay: orDie(insertReplay)
  }
})
