import { Context, Effect, Layer, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { randomBytes } from "node:crypto"
import {
  AttemptRow,
  DeliveryRow,
  type DeliveryStatus,
  DeliveryWorkRow,
  SubscriptionRow,
  type WebhookTopic
} from "./model.ts"

/**
 * The SQL of webhooks. Every statement names `business_id`; writes run on the caller's
 * connection, so inside `sql.withTransaction` they commit or roll back with the change that
 * caused them (an event with its person, a delivery's attempt with its next job).
 */
const decodeSubscriptions = Schema.decodeUnknownEffect(Schema.Array(SubscriptionRow))
const decodeDeliveries = Schema.decodeUnknownEffect(Schema.Array(DeliveryRow))
const decodeAttempts = Schema.decodeUnknownEffect(Schema.Array(AttemptRow))
const decodeWork = Schema.decodeUnknownEffect(Schema.Array(DeliveryWorkRow))
const decodeIds = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ id: Schema.Number })))
const decodeFlags = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ value: Schema.Boolean })))
const decodeBusinesses = Schema.decodeUnknownEffect(
  Schema.Array(
    Schema.Struct({
      id: Schema.Number,
      subdomain: Schema.String,
      name: Schema.String,
      time_zone: Schema.String,
      currency_code: Schema.String,
      default_locale: Schema.String
    })
  )
)

export interface SubscriptionInsert {
  readonly createdByStaffMemberId: number
  readonly createdByAccountId: number
  readonly topic: WebhookTopic
  readonly target: string
  readonly name: string | null
  readonly description: string | null
  readonly secretEncrypted: Buffer
}

export interface SubscriptionPatch {
  readonly target?: string
  readonly name?: string | null
  readonly description?: string | null
  /** true: enabled again; "manual"/"gone": disabled for that reason. */
  readonly enabled?: true | "manual" | "gone"
}

export interface AttemptRecord {
  readonly attempt: number
  readonly startedAt: Date
  readonly statusCode: number | null
  readonly latencyMs: number
  readonly error: string | null
  readonly responseBody: string | null
}

const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  const subscriptionColumns = sql`business_id, id, created_by_staff_member_id, created_by_account_id, topic, target, name,
    description, enabled, disabled_at, disabled_reason, created_at, updated_at`

  // The deployment's key for secrets at rest: made once, shared by its processes, read once per process.
  let secretsKey: Buffer | undefined
  const loadSecretsKey = Effect.gen(function* () {
    yield* sql`insert into app_secrets (name, value) values ('webhooks', ${randomBytes(32).toString("hex")})
               on conflict (name) do nothing`
    const rows = yield* sql<{ readonly value: string }>`select value from app_secrets where name = 'webhooks'`
    return Buffer.from(rows[0]!.value, "hex")
  }).pipe(Effect.orDie)

  return {
    secretsKey: Effect.suspend(() =>
      secretsKey !== undefined
        ? Effect.succeed(secretsKey)
        : Effect.tap(loadSecretsKey, (key) => Effect.sync(() => void (secretsKey = key)))
    ),

    /**
     * Whether the business has the webhooks feature; `lock` holds its row (FOR SHARE) until the
     * transaction ends, so a concurrent switch-off waits and then removes what was just made.
     */
    featureEnabled: (businessId: number, options: { readonly lock: boolean } = { lock: false }) =>
      sql`select webhooks_enabled as value from businesses where id = ${businessId} ${options.lock ? sql`for share` : sql``}`.pipe(
        Effect.flatMap(decodeFlags),
        Effect.map((rows) => rows[0]?.value === true),
        Effect.orDie
      ),

    /** Turns the feature on or off; off deletes every subscription (trigger). Returns whether it changed. */
    setFeature: (businessId: number, enabled: boolean) =>
      sql`update businesses set webhooks_enabled = ${enabled}, updated_at = now()
          where id = ${businessId} and webhooks_enabled <> ${enabled} returning id`.pipe(
        Effect.flatMap(decodeIds),
        Effect.map((rows) => rows.length > 0),
        Effect.orDie
      ),

    countSubscriptions: (businessId: number) =>
      sql<{ readonly n: number }>`select count(*) as n from webhook_subscriptions where business_id = ${businessId}`.pipe(
        Effect.map((rows) => Number(rows[0]?.n ?? 0)),
        Effect.orDie
      ),

    insertSubscription: (businessId: number, input: SubscriptionInsert) =>
      sql`insert into webhook_subscriptions
            (business_id, created_by_staff_member_id, created_by_account_id, topic, target, name, description, secret_encrypted)
          values (${businessId}, ${input.createdByStaffMemberId}, ${input.createdByAccountId}, ${input.topic}, ${input.target},
                  ${input.name}, ${input.description}, ${input.secretEncrypted})
          returning ${subscriptionColumns}`.pipe(
        Effect.flatMap(decodeSubscriptions),
        Effect.map((rows) => rows[0]!),
        Effect.orDie
      ),

    listSubscriptions: (businessId: number) =>
      sql`select ${subscriptionColumns} from webhook_subscriptions where business_id = ${businessId} order by id`.pipe(
        Effect.flatMap(decodeSubscriptions),
        Effect.orDie
      ),

    findSubscription: (businessId: number, id: number) =>
      sql`select ${subscriptionColumns} from webhook_subscriptions where business_id = ${businessId} and id = ${id}`.pipe(
        Effect.flatMap(decodeSubscriptions),
        Effect.map((rows) => Option.fromNullishOr(rows[0])),
        Effect.orDie
      ),

    updateSubscription: (businessId: number, id: number, patch: SubscriptionPatch) =>
      sql`update webhook_subscriptions set
            target = ${patch.target === undefined ? sql`target` : sql`${patch.target}`},
            name = ${patch.name === undefined ? sql`name` : sql`${patch.name}`},
            description = ${patch.description === undefined ? sql`description` : sql`${patch.description}`},
            ${
        patch.enabled === undefined
          ? sql``
          : patch.enabled === true
          ? sql`enabled = true, disabled_at = null, disabled_reason = null,`
          : sql`enabled = false, disabled_at = coalesce(disabled_at, now()), disabled_reason = ${patch.enabled},`
      }
            updated_at = now()
          where business_id = ${businessId} and id = ${id}
          returning ${subscriptionColumns}`.pipe(
        Effect.flatMap(decodeSubscriptions),
        Effect.map((rows) => Option.fromNullishOr(rows[0])),
        Effect.orDie
      ),

    deleteSubscription: (businessId: number, id: number) =>
      sql`delete from webhook_subscriptions where business_id = ${businessId} and id = ${id} returning id`.pipe(
        Effect.flatMap(decodeIds),
        Effect.map((rows) => rows.length > 0),
        Effect.orDie
      ),

    /** A new signing key; the current one keeps signing beside it until `previousExpiresAt`. */
    rotateSecret: (businessId: number, id: number, secretEncrypted: Buffer, previousExpiresAt: Date) =>
      sql`update webhook_subscriptions
          set previous_secret_encrypted = secret_encrypted, previous_secret_expires_at = ${previousExpiresAt},
              secret_encrypted = ${secretEncrypted}, updated_at = now()
          where business_id = ${businessId} and id = ${id}
          returning ${subscriptionColumns}`.pipe(
        Effect.flatMap(decodeSubscriptions),
        Effect.map((rows) => Option.fromNullishOr(rows[0])),
        Effect.orDie
      ),

    /** Whether anyone listens to `topic` in the business: without a listener no event is stored. */
    hasSubscribers: (businessId: number, topic: WebhookTopic) =>
      sql`select exists (select 1 from webhook_subscriptions where business_id = ${businessId} and topic = ${topic} and enabled) as value`
        .pipe(
          Effect.flatMap(decodeFlags),
          Effect.map((rows) => rows[0]?.value === true),
          Effect.orDie
        ),

    insertEvent: (businessId: number, messageId: string, topic: WebhookTopic, body: string, createdAt: Date) =>
      sql`insert into webhook_events (business_id, message_id, topic, payload, created_at)
          values (${businessId}, ${messageId}, ${topic}, ${body}::json, ${createdAt})
          returning id`.pipe(
        Effect.flatMap(decodeIds),
        Effect.map((rows) => rows[0]!.id),
        Effect.orDie
      ),

    /**
     * One delivery per enabled subscription of the event's topic (one made while the fan-out was
     * queued gets the event too: it happened as the subscription began), and one job for each,
     * in one statement (graphile-worker's `add_jobs`, the batch form of what src/platform/jobs.ts
     * does: the same task, key and attempts as `enqueueDelivery`). Idempotent: a second run (the
     * fan-out job retried) makes no delivery and no job. Returns how many it made.
     */
    fanOut: (businessId: number, eventId: number, job: { readonly task: string; readonly maxAttempts: number }) =>
      sql<{ readonly n: number }>`
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
              select row(${job.task}::text, json_build_object('business_id', business_id, 'delivery_id', id), null::text,
                         null::timestamptz, ${job.maxAttempts}::int, 'webhook_delivery:' || business_id || ':' || id, null::int,
                         null::text[])::graphile_worker.job_spec
              from created order by id))
          ) else 0 end as n`.pipe(
        Effect.map((rows) => Number(rows[0]?.n ?? 0)),
        Effect.orDie
      ),

    /**
     * Claims the next attempt of a pending delivery whose subscription is enabled, in one
     * statement: the attempt number (the row lock serializes two runs of one delivery), a log
     * row for a previous attempt a dead worker left unrecorded, and what the POST needs.
     * None: nothing to attempt (delivered, failed, cancelled, or its subscription disabled or gone).
     */
    claimAttempt: (businessId: number, deliveryId: number, interrupted: string) =>
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
          join webhook_subscriptions s on s.business_id = c.business_id and s.id = c.subscription_id`.pipe(
        Effect.flatMap(decodeWork),
        Effect.map((rows) => Option.fromNullishOr(rows[0])),
        Effect.orDie
      ),

    /** A pending delivery whose subscription is disabled will not be attempted. */
    cancelPending: (businessId: number, deliveryId: number) =>
      sql`update webhook_deliveries set status = 'cancelled', next_attempt_at = null, completed_at = now(), updated_at = now()
          where business_id = ${businessId} and id = ${deliveryId} and status = 'pending'`.pipe(Effect.asVoid, Effect.orDie),

    /** The attempt's log row and the delivery's new state, in one statement. */
    recordAttempt: (
      businessId: number,
      deliveryId: number,
      attempt: AttemptRecord,
      outcome: { readonly status: DeliveryStatus; readonly nextAttemptAt: Date | null }
    ) =>
      sql`with logged as (
            insert into webhook_delivery_attempts
              (business_id, delivery_id, attempt, started_at, status_code, latency_ms, error, response_body)
            values (${businessId}, ${deliveryId}, ${attempt.attempt}, ${attempt.startedAt}, ${attempt.statusCode},
                    ${attempt.latencyMs}, ${attempt.error}, ${attempt.responseBody})
            on conflict (business_id, delivery_id, attempt) do nothing
          )
          update webhook_deliveries set status = ${outcome.status},
            last_status_code = coalesce(${attempt.statusCode}::int, last_status_code),
            next_attempt_at = ${outcome.nextAttemptAt},
            completed_at = ${outcome.status === "pending" ? sql`null` : sql`now()`},
            updated_at = now()
          where business_id = ${businessId} and id = ${deliveryId}`.pipe(Effect.asVoid, Effect.orDie),

    /** Newest first; `before` is the last id of the previous page. */
    listDeliveries: (
      businessId: number,
      subscriptionId: number,
      options: { readonly before: number | undefined; readonly limit: number; readonly status: DeliveryStatus | undefined }
    ) =>
      Effect.gen(function* () {
        const deliveries = yield* sql`
          select d.id, d.subscription_id, e.message_id, e.topic, d.kind, d.status, d.attempt_count, d.last_status_code,
                 d.next_attempt_at, d.created_at, d.completed_at
          from webhook_deliveries d
          join webhook_events e on e.business_id = d.business_id and e.id = d.event_id
          where d.business_id = ${businessId} and d.subscription_id = ${subscriptionId}
            ${options.before === undefined ? sql`` : sql`and d.id < ${options.before}`}
            ${options.status === undefined ? sql`` : sql`and d.status = ${options.status}`}
          order by d.id desc
          limit ${options.limit}`.pipe(Effect.flatMap(decodeDeliveries))
        const ids = deliveries.map((d) => d.id)
        const attempts = ids.length === 0 ? [] : yield* sql`
          select delivery_id, attempt, started_at, status_code, latency_ms, error, response_body
          from webhook_delivery_attempts
          where business_id = ${businessId} and delivery_id = any(${ids})
          order by delivery_id, attempt`.pipe(Effect.flatMap(decodeAttempts))
        return { deliveries, attempts }
      }).pipe(Effect.orDie),

    findDelivery: (businessId: number, deliveryId: number) =>
      Effect.gen(function* () {
        const deliveries = yield* sql`
          select d.id, d.subscription_id, e.message_id, e.topic, d.kind, d.status, d.attempt_count, d.last_status_code,
                 d.next_attempt_at, d.created_at, d.completed_at
          from webhook_deliveries d
          join webhook_events e on e.business_id = d.business_id and e.id = d.event_id
          where d.business_id = ${businessId} and d.id = ${deliveryId}`.pipe(Effect.flatMap(decodeDeliveries))
        const attempts = yield* sql`
          select delivery_id, attempt, started_at, status_code, latency_ms, error, response_body
          from webhook_delivery_attempts where business_id = ${businessId} and delivery_id = ${deliveryId}
          order by attempt`.pipe(Effect.flatMap(decodeAttempts))
        return Option.fromNullishOr(deliveries[0]).pipe(Option.map((delivery) => ({ delivery, attempts })))
      }).pipe(Effect.orDie),

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

    insertReplay: (businessId: number, subscriptionId: number, eventId: number) =>
      sql`insert into webhook_deliveries (business_id, subscription_id, event_id, kind)
          values (${businessId}, ${subscriptionId}, ${eventId}, 'replay') returning id`.pipe(
        Effect.flatMap(decodeIds),
        Effect.map((rows) => rows[0]!.id),
        Effect.orDie
      ),

    /** The businesses with an enabled webhook of the topic: where a scheduled topic's job has work. */
    subscribedBusinesses: (topic: WebhookTopic) =>
      sql`select b.id, b.subdomain, b.name, b.time_zone, b.currency_code, b.default_locale
          from businesses b
          where b.id in (select business_id from webhook_subscriptions where topic = ${topic} and enabled)
          order by b.id`.pipe(Effect.flatMap(decodeBusinesses), Effect.orDie),

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

export class WebhooksRepo extends Context.Service<WebhooksRepo, Effect.Success<typeof make>>()("studio/WebhooksRepo") {
  static readonly layer = Layer.effect(WebhooksRepo)(make)
}
