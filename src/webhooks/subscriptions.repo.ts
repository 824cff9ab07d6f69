import { Effect, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { randomBytes } from "node:crypto"
import { SubscriptionRow, type WebhookTopic } from "./model.ts"

/** The SQL of webhook subscriptions and of the business's webhooks feature (part of `WebhooksRepo`, repo.ts). */
const decodeSubscriptions = Schema.decodeUnknownEffect(Schema.Array(SubscriptionRow))
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

export const makeSubscriptionsRepo = Effect.gen(function* () {
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

    /** The businesses with an enabled webhook of the topic: where a scheduled topic's job has work. */
    subscribedBusinesses: (topic: WebhookTopic) =>
      sql`select b.id, b.subdomain, b.name, b.time_zone, b.currency_code, b.default_locale
          from businesses b
          where b.id in (select business_id from webhook_subscriptions where topic = ${topic} and enabled)
          order by b.id`.pipe(Effect.flatMap(decodeBusinesses), Effect.orDie)
  }
})
