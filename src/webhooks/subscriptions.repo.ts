import { Effect, Option, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { randomBytes } from "node:crypto"
import { CacheEvents, droppedOnChange } from "../platform/cache-events.ts"
import { AppConfig } from "../platform/config.ts"
import { deploymentKey } from "../platform/keys.ts"
import { SubscriptionRow, WebhookTopic } from "./model.ts"
import { BusinessRow } from "../shared/request-context.ts"
import { orDie, orUndefined } from "../shared/statements.ts"

/** The SQL of webhook subscriptions and of the business's webhooks feature (part of `WebhooksRepo`, repo.ts). */
const Id = Schema.Struct({ id: Schema.Number })
const Flag = Schema.Struct({ value: Schema.Boolean })
const ById = Schema.Struct({ businessId: Schema.Number, id: Schema.Number })
const OfBusiness = Schema.Struct({ businessId: Schema.Number })
const HasSubscribers = Schema.Struct({ businessId: Schema.Number, topic: WebhookTopic })

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

/**
 * How long an answer of `hasSubscribers` is kept at most. Every write of a subscription drops them all
 * (at once in the writing process, by its commit's notice in the others, migration 0037); the limit
 * only bounds a notice lost while the listener reconnects.
 */
const SUBSCRIBERS_TTL_MS = 5_000

export const makeSubscriptionsRepo = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const config = yield* AppConfig
  // Every emission asks; the answer changes only with a subscription (or the feature) of the business.
  const subscribers = droppedOnChange<string, boolean>(yield* CacheEvents, "webhook_subscriptions", SUBSCRIBERS_TTL_MS)
  /** A write of subscriptions: this process forgets what it kept once the statement is done. */
  const dropping = <I, A, E, R>(write: (request: I) => Effect.Effect<A, E, R>) => (request: I) =>
    Effect.ensuring(write(request), Effect.sync(subscribers.drop))

  const subscriptionColumns = sql`business_id, id, created_by_staff_member_id, created_by_account_id, topic, target, name,
    description, enabled, disabled_at, disabled_reason, created_at, updated_at`

  const createSecret = SqlSchema.void({
    Request: Schema.String,
    execute: (value) => sql`insert into app_secrets (name, value) values ('webhooks', ${value}) on conflict (name) do nothing`
  })
  const readSecret = SqlSchema.findOne({
    Request: Schema.Void,
    Result: Schema.Struct({ value: Schema.String }),
    execute: () => sql`select value from app_secrets where name = 'webhooks'`
  })
  const featureEnabled = SqlSchema.findOneOption({
    Request: Schema.Struct({ businessId: Schema.Number, lock: Schema.Boolean }),
    Result: Flag,
    execute: ({ businessId, lock }) =>
      sql`select webhooks_enabled as value from businesses where id = ${businessId} ${lock ? sql`for no key update` : sql``}`
  })
  const setFeature = SqlSchema.findAll({
    Request: Schema.Struct({ businessId: Schema.Number, enabled: Schema.Boolean }),
    Result: Id,
    execute: ({ businessId, enabled }) =>
      sql`update businesses set webhooks_enabled = ${enabled}, updated_at = now()
          where id = ${businessId} and webhooks_enabled <> ${enabled} returning id`
  })
  const countSubscriptions = SqlSchema.findOne({
    Request: OfBusiness,
    Result: Schema.Struct({ n: Schema.Number }),
    execute: ({ businessId }) => sql`select count(*) as n from webhook_subscriptions where business_id = ${businessId}`
  })
  const insertSubscription = SqlSchema.findOne({
    Request: Schema.Struct({
      businessId: Schema.Number,
      createdByStaffMemberId: Schema.Number,
      createdByAccountId: Schema.Number,
      topic: WebhookTopic,
      target: Schema.String,
      name: Schema.NullOr(Schema.String),
      description: Schema.NullOr(Schema.String),
      secretEncrypted: Schema.Uint8Array
    }),
    Result: SubscriptionRow,
    execute: (input) =>
      sql`insert into webhook_subscriptions
            (business_id, created_by_staff_member_id, created_by_account_id, topic, target, name, description, secret_encrypted)
          values (${input.businessId}, ${input.createdByStaffMemberId}, ${input.createdByAccountId}, ${input.topic}, ${input.target},
                  ${input.name}, ${input.description}, ${input.secretEncrypted})
          returning ${subscriptionColumns}`
  })
  const listSubscriptions = SqlSchema.findAll({
    Request: OfBusiness,
    Result: SubscriptionRow,
    execute: ({ businessId }) => sql`select ${subscriptionColumns} from webhook_subscriptions where business_id = ${businessId} order by id`
  })
  const findSubscription = SqlSchema.findOneOption({
    Request: ById,
    Result: SubscriptionRow,
    execute: ({ businessId, id }) =>
      sql`select ${subscriptionColumns} from webhook_subscriptions where business_id = ${businessId} and id = ${id}`
  })
  const updateSubscription = SqlSchema.findOneOption({
    Request: Schema.Struct({
      ...ById.fields,
      target: Schema.optional(Schema.String),
      name: Schema.optional(Schema.NullOr(Schema.String)),
      description: Schema.optional(Schema.NullOr(Schema.String)),
      enabled: Schema.optional(Schema.Union([Schema.Literal(true), Schema.Literals(["manual", "gone"])]))
    }),
    Result: SubscriptionRow,
    execute: ({ businessId, id, ...patch }) =>
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
          returning ${subscriptionColumns}`
  })
  const deleteSubscription = SqlSchema.findAll({
    Request: ById,
    Result: Id,
    execute: ({ businessId, id }) => sql`delete from webhook_subscriptions where business_id = ${businessId} and id = ${id} returning id`
  })
  const rotateSecret = SqlSchema.findOneOption({
    Request: Schema.Struct({ ...ById.fields, secretEncrypted: Schema.Uint8Array, previousExpiresAt: Schema.Date }),
    Result: SubscriptionRow,
    execute: ({ businessId, id, secretEncrypted, previousExpiresAt }) =>
      sql`update webhook_subscriptions
          set previous_secret_encrypted = secret_encrypted, previous_secret_expires_at = ${previousExpiresAt},
              secret_encrypted = ${secretEncrypted}, updated_at = now()
          where business_id = ${businessId} and id = ${id}
          returning ${subscriptionColumns}`
  })
  const hasSubscribers = SqlSchema.findOneOption({
    Request: HasSubscribers,
    Result: Flag,
    execute: ({ businessId, topic }) =>
      sql`select exists (select 1 from webhook_subscriptions where business_id = ${businessId} and topic = ${topic} and enabled) as value`
  })
  const subscribedBusinesses = SqlSchema.findAll({
    Request: Schema.Struct({ topic: WebhookTopic }),
    Result: BusinessRow,
    execute: ({ topic }) =>
      sql`select b.id, b.subdomain, b.name, b.time_zone, b.currency_code, b.default_locale
          from businesses b
          where b.id in (select business_id from webhook_subscriptions where topic = ${topic} and enabled)
          order by b.id`
  })

  // The deployment's key for secrets at rest: WEBHOOK_SECRET_KEY; in development without it, a
  // row made once and shared by the processes (src/platform/keys.ts). Read once per process.
  let secretsKey: Buffer | undefined
  const loadSecretsKey = deploymentKey(
    config,
    "WEBHOOK_SECRET_KEY",
    config.webhookSecretKey,
    Effect.gen(function* () {
      yield* createSecret(randomBytes(32).toString("hex"))
      return (yield* readSecret(undefined)).value
    }).pipe(Effect.orDie)
  ).pipe(Effect.map((hex) => Buffer.from(hex, "hex")))

  return {
    secretsKey: Effect.suspend(() =>
      secretsKey !== undefined
        ? Effect.succeed(secretsKey)
        : Effect.tap(loadSecretsKey, (key) => Effect.sync(() => void (secretsKey = key)))
    ),

    /**
     * Whether the business has the webhooks feature; `lock` holds its row (FOR NO KEY UPDATE) until
     * the transaction ends, so a concurrent switch-off waits and then removes what was just made, and
     * two creations count the business's subscriptions one after the other (a shared lock let both
     * count 99 and both insert). Other tables' foreign keys to the business do not wait on it.
     */
    featureEnabled: orDie(flagOf(featureEnabled)),
    /** Turns the feature on or off; off deletes every subscription (trigger). Returns whether it changed. */
    setFeature: dropping(orDie(anyRow(setFeature))),
    countSubscriptions: orDie(countSubscriptions),
    insertSubscription: dropping(orDie(insertSubscription)),
    listSubscriptions: orDie(listSubscriptions),
    findSubscription: orUndefined(findSubscription),
    /** The subscription as changed; undefined when the business has no such subscription. */
    updateSubscription: dropping(orUndefined(updateSubscription)),
    /** Whether the subscription was there to delete. */
    deleteSubscription: dropping(orDie(anyRow(deleteSubscription))),
    /** A new signing key; the current one keeps signing beside it until `previousExpiresAt`. */
    rotateSecret: orUndefined(rotateSecret),
    /**
     * Whether anyone listens to `topic` in the business: without a listener no event is stored. Kept
     * per process (SUBSCRIBERS_TTL_MS at most) and dropped on every subscription write, so a write
     * path does not ask PostgreSQL on each emission.
     */
    hasSubscribers: (request: typeof HasSubscribers.Type) =>
      subscribers.get(`${request.businessId}:${request.topic}`, () => orDie(flagOf(hasSubscribers))(request)),
    /** The businesses with an enabled webhook of the topic: where a scheduled topic's job has work. */
    subscribedBusinesses: orDie(subscribedBusinesses)
  }
})

/** A statement answering one boolean row, read as that boolean (no row: false). */
const flagOf = <I, E, R>(statement: (request: I) => Effect.Effect<Option.Option<typeof Flag.Type>, E, R>) => (request: I) =>
  statement(request).pipe(Effect.map(Option.exists((row) => row.value)))

/** A statement returning the rows it touched, read as whether it touched any. */
const anyRow = <I, A, E, R>(statement: (request: I) => Effect.Effect<ReadonlyArray<A>, E, R>) => (request: I) =>
  statement(request).pipe(Effect.map((rows) => rows.length > 0))
