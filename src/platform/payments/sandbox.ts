import { Clock, Context, Effect, Layer, Option, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { randomBytes } from "node:crypto"
import { RequestContext } from "../../shared/request-context.ts"
import { type CheckedCard, behaviourOf } from "./cards.ts"
import { type CardNetwork, type ChargeResult, PaymentGateway, type VaultedCard, type VaultProblem } from "./gateway.ts"

/**
 * The sandbox payment gateway: a stand-in for a hosted-form gateway, served by this service
 * itself (its pages: sandbox-routes.ts; its card rules and test numbers: cards.ts). Its state
 * lives in PostgreSQL (sandbox_gateway_*), so every API process serves its pages and agrees on
 * charges. A hosted form's address is `{business host}/sandbox/gateway/forms/{id}`: the id is
 * random (128 bits), single-use and expires with the vaulting session.
 */
const randomId = (prefix = "") => `${prefix}${randomBytes(16).toString("base64url")}`

const CardRow = Schema.Struct({
  token: Schema.String,
  card_type: Schema.String,
  last_four: Schema.String,
  expire_month: Schema.Number,
  expire_year: Schema.Number,
  first_name: Schema.String,
  last_name: Schema.String,
  behaviour: Schema.Literals(["succeed", "decline", "insufficient_funds"])
})
type CardRow = typeof CardRow.Type

const FormRow = Schema.Struct({
  id: Schema.String,
  return_url: Schema.String,
  expires_at: Schema.Date,
  require_cvv: Schema.Boolean,
  require_address: Schema.Boolean,
  require_postal: Schema.Boolean,
  accepted_card_types: Schema.Array(Schema.String),
  state: Schema.Literals(["open", "vaulted", "failed"]),
  token: Schema.NullOr(Schema.String),
  problems: Schema.NullOr(Schema.Unknown)
})
export type FormRow = typeof FormRow.Type

const TransactionRow = Schema.Struct({
  id: Schema.String,
  kind: Schema.Literals(["charge", "refund"]),
  token: Schema.NullOr(Schema.String),
  amount_cents: Schema.Number,
  status: Schema.Literals(["succeeded", "declined", "voided"]),
  decline_reason: Schema.NullOr(Schema.String)
})

const Key = Schema.Struct({ businessId: Schema.Number, id: Schema.String })

const NewForm = Schema.Struct({
  businessId: Schema.Number,
  id: Schema.String,
  returnUrl: Schema.String,
  expiresAt: Schema.Date,
  cvv: Schema.Boolean,
  address: Schema.Boolean,
  postal: Schema.Boolean,
  acceptedCardTypes: Schema.Array(Schema.String),
  now: Schema.Date
})

const NewTransaction = Schema.Struct({
  id: Schema.String,
  businessId: Schema.Number,
  kind: Schema.Literals(["charge", "refund"]),
  key: Schema.String,
  token: Schema.NullOr(Schema.String),
  chargeId: Schema.NullOr(Schema.String),
  amountCents: Schema.Number,
  currency: Schema.String,
  description: Schema.String,
  status: Schema.Literals(["succeeded", "declined"]),
  declineReason: Schema.NullOr(Schema.String),
  now: Schema.Date
})

const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const insertCard = SqlSchema.void({
    Request: Schema.Struct({ businessId: Schema.Number, ...CardRow.fields, now: Schema.Date }),
    execute: (r) =>
      sql`insert into sandbox_gateway_cards (token, business_id, card_type, last_four, expire_month, expire_year, first_name, last_name, behaviour, created_at)
          values (${r.token}, ${r.businessId}, ${r.card_type}, ${r.last_four}, ${r.expire_month}, ${r.expire_year}, ${r.first_name}, ${r.last_name}, ${r.behaviour}, ${r.now})`
  })
  const findCard = SqlSchema.findOneOption({
    Request: Schema.Struct({ businessId: Schema.Number, token: Schema.String }),
    Result: CardRow,
    execute: ({ businessId, token }) =>
      sql`select token, card_type, last_four, expire_month, expire_year, first_name, last_name, behaviour
          from sandbox_gateway_cards where business_id = ${businessId} and token = ${token}`
  })
  const insertForm = SqlSchema.void({
    Request: NewForm,
    execute: (r) =>
      sql`insert into sandbox_gateway_forms (business_id, id, return_url, expires_at, require_cvv, require_address, require_postal, accepted_card_types, created_at)
          values (${r.businessId}, ${r.id}, ${r.returnUrl}, ${r.expiresAt}, ${r.cvv}, ${r.address}, ${r.postal}, ${r.acceptedCardTypes as Array<string>}::text[], ${r.now})`
  })
  const findForm = SqlSchema.findOneOption({
    Request: Key,
    Result: FormRow,
    execute: ({ businessId, id }) =>
      sql`select id, return_url, expires_at, require_cvv, require_address, require_postal, accepted_card_types, state, token, problems
          from sandbox_gateway_forms where business_id = ${businessId} and id = ${id}`
  })
  // The one POST is final: a second one (a replay, another tab) changes nothing.
  const completeForm = SqlSchema.findAll({
    Request: Schema.Struct({ businessId: Schema.Number, id: Schema.String, token: Schema.NullOr(Schema.String), problems: Schema.NullOr(Schema.String), now: Schema.Date }),
    Result: Schema.Struct({ id: Schema.String }),
    execute: ({ businessId, id, token, problems, now }) =>
      sql`update sandbox_gateway_forms set state = ${token === null ? "failed" : "vaulted"}, token = ${token},
            problems = ${problems}::jsonb, submitted_at = ${now}
          where business_id = ${businessId} and id = ${id} and state = 'open' returning id`
  })
  const findTransaction = SqlSchema.findOneOption({
    Request: Key,
    Result: TransactionRow,
    execute: ({ businessId, id }) =>
      sql`select id, kind, token, amount_cents::int as amount_cents, status, decline_reason
          from sandbox_gateway_transactions where business_id = ${businessId} and id = ${id}`
  })
  const byIdempotencyKey = SqlSchema.findOneOption({
    Request: Schema.Struct({ businessId: Schema.Number, key: Schema.String }),
    Result: TransactionRow,
    execute: ({ businessId, key }) =>
      sql`select id, kind, token, amount_cents::int as amount_cents, status, decline_reason
          from sandbox_gateway_transactions where business_id = ${businessId} and idempotency_key = ${key}`
  })
  const insertTransaction = SqlSchema.void({
    Request: NewTransaction,
    execute: (r) =>
      sql`insert into sandbox_gateway_transactions (id, business_id, kind, idempotency_key, token, charge_id, amount_cents, currency, description, status, decline_reason, created_at)
          values (${r.id}, ${r.businessId}, ${r.kind}, ${r.key}, ${r.token}, ${r.chargeId}, ${r.amountCents}, ${r.currency}, ${r.description}, ${r.status}, ${r.declineReason}, ${r.now})
          on conflict (business_id, idempotency_key) do nothing`
  })
  const refunded = SqlSchema.findOne({
    Request: Key,
    Result: Schema.Struct({ cents: Schema.Number }),
    execute: ({ businessId, id }) =>
      sql`select coalesce(sum(amount_cents), 0)::int as cents from sandbox_gateway_transactions
          where business_id = ${businessId} and charge_id = ${id} and kind = 'refund' and status = 'succeeded'`
  })
  const voidCharge = SqlSchema.void({
    Request: Key,
    execute: ({ businessId, id }) =>
      sql`update sandbox_gateway_transactions set status = 'voided'
          where business_id = ${businessId} and id = ${id} and kind = 'charge' and status = 'succeeded'`
  })
  const insertIntent = SqlSchema.void({
    Request: Schema.Struct({ businessId: Schema.Number, id: Schema.String, secret: Schema.String, reference: Schema.String, now: Schema.Date }),
    execute: (r) =>
      sql`insert into sandbox_gateway_setup_intents (business_id, id, client_secret, reference, created_at)
          values (${r.businessId}, ${r.id}, ${r.secret}, ${r.reference}, ${r.now})`
  })
  const findIntent = SqlSchema.findOneOption({
    Request: Key,
    Result: Schema.Struct({ id: Schema.String, client_secret: Schema.String, reference: Schema.String, token: Schema.NullOr(Schema.String) }),
    execute: ({ businessId, id }) =>
      sql`select id, client_secret, reference, token from sandbox_gateway_setup_intents where business_id = ${businessId} and id = ${id}`
  })
  const confirmIntent = SqlSchema.void({
    Request: Schema.Struct({ businessId: Schema.Number, id: Schema.String, token: Schema.String }),
    execute: ({ businessId, id, token }) =>
      sql`update sandbox_gateway_setup_intents set token = ${token} where business_id = ${businessId} and id = ${id} and token is null`
  })

  /** Keeps a checked card: a token and its shown fields, never the number or CVV. */
  const vault = (businessId: number, card: CheckedCard, now: Date) =>
    Effect.gen(function* () {
      const token = randomId("tok_")
      yield* insertCard({
        businessId,
        token,
        card_type: card.cardType,
        last_four: card.lastFour,
        expire_month: card.expireMonth,
        expire_year: card.expireYear,
        first_name: card.firstName,
        last_name: card.lastName,
        behaviour: behaviourOf(card.number),
        now
      })
      return token
    })

  return {
    vault: (businessId: number, card: CheckedCard, now: Date) => vault(businessId, card, now).pipe(Effect.orDie),
    findCard: (businessId: number, token: string) => findCard({ businessId, token }).pipe(Effect.map(Option.getOrUndefined), Effect.orDie),
    insertForm: (row: typeof NewForm.Type) => insertForm(row).pipe(Effect.orDie),
    findForm: (businessId: number, id: string) => findForm({ businessId, id }).pipe(Effect.map(Option.getOrUndefined), Effect.orDie),
    /** Records the form's one outcome; false when it was already submitted. */
    completeForm: (businessId: number, id: string, outcome: { token: string } | { problems: ReadonlyArray<VaultProblem> }, now: Date) =>
      completeForm({
        businessId,
        id,
        token: "token" in outcome ? outcome.token : null,
        problems: "problems" in outcome ? JSON.stringify(outcome.problems) : null,
        now
      }).pipe(Effect.map((rows) => rows.length > 0), Effect.orDie),
    findTransaction: (businessId: number, id: string) => findTransaction({ businessId, id }).pipe(Effect.map(Option.getOrUndefined), Effect.orDie),
    byIdempotencyKey: (businessId: number, key: string) =>
      byIdempotencyKey({ businessId, key }).pipe(Effect.map(Option.getOrUndefined), Effect.orDie),
    insertTransaction: (row: typeof NewTransaction.Type) => insertTransaction(row).pipe(Effect.orDie),
    refunded: (businessId: number, id: string) => refunded({ businessId, id }).pipe(Effect.map((row) => row.cents), Effect.orDie),
    voidCharge: (businessId: number, id: string) => voidCharge({ businessId, id }).pipe(Effect.orDie),
    insertIntent: (businessId: number, id: string, secret: string, reference: string, now: Date) =>
      insertIntent({ businessId, id, secret, reference, now }).pipe(Effect.orDie),
    findIntent: (businessId: number, id: string) => findIntent({ businessId, id }).pipe(Effect.map(Option.getOrUndefined), Effect.orDie),
    confirmIntent: (businessId: number, id: string, token: string) => confirmIntent({ businessId, id, token }).pipe(Effect.orDie)
  }
})

export class SandboxGatewayStore extends Context.Service<SandboxGatewayStore, Effect.Success<typeof make>>()("studio/SandboxGatewayStore") {
  static readonly layer = Layer.effect(SandboxGatewayStore)(make)
}

export const formPath = (formId: string) => `/sandbox/gateway/forms/${encodeURIComponent(formId)}`
export const setupIntentPath = (id: string) => `/sandbox/gateway/setup_intents/${encodeURIComponent(id)}`

const toVaulted = (row: CardRow): VaultedCard => ({
  token: row.token,
  cardType: row.card_type as CardNetwork,
  lastFour: row.last_four,
  expireMonth: row.expire_month,
  expireYear: row.expire_year,
  firstName: row.first_name,
  lastName: row.last_name
})

const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))

/** The sandbox as the PaymentGateway: state in PostgreSQL, pages on the request's host. */
export const SandboxGatewayLive = Layer.effect(PaymentGateway)(
  Effect.gen(function* () {
    const store = yield* SandboxGatewayStore
    const sql = yield* SqlClient.SqlClient
    /** One operation per idempotency key: a retry answers what the first one did. */
    const once = <A>(businessId: number, key: string, write: Effect.Effect<void>, answer: (row: typeof TransactionRow.Type) => A) =>
      Effect.gen(function* () {
        yield* write
        const row = yield* store.byIdempotencyKey(businessId, key)
        return answer(row!)
      })
    const outcome = (row: typeof TransactionRow.Type): ChargeResult =>
      row.status === "declined" ? { _tag: "Declined", reason: row.decline_reason ?? "declined" } : { _tag: "Succeeded", transactionId: row.id }

    return PaymentGateway.of({
      startVaulting: Effect.fn("SandboxGateway.startVaulting")(function* ({ businessId, returnUrl, expiresAt, requirements }) {
        const context = yield* RequestContext
        const formId = randomId()
        yield* store.insertForm({
          businessId,
          id: formId,
          returnUrl,
          expiresAt,
          cvv: requirements.cvv,
          address: requirements.address,
          postal: requirements.postal,
          acceptedCardTypes: requirements.acceptedCardTypes,
          now: yield* now
        })
        return { formId, formUrl: `${context.origin}${formPath(formId)}` }
      }),
      vaultResult: Effect.fn("SandboxGateway.vaultResult")(function* ({ businessId, formId }) {
        const form = yield* store.findForm(businessId, formId)
        if (!form || form.state === "open") return { _tag: "Pending" as const }
        if (form.state === "failed" || form.token === null) {
          return { _tag: "Failed" as const, problems: (form.problems ?? []) as ReadonlyArray<VaultProblem> }
        }
        const card = yield* store.findCard(businessId, form.token)
        return card ? { _tag: "Vaulted" as const, card: toVaulted(card) } : { _tag: "Pending" as const }
      }),
      charge: Effect.fn("SandboxGateway.charge")(function* (input) {
        const card = yield* store.findCard(input.businessId, input.token)
        const reason = !card ? "invalid_token" : card.behaviour === "decline" ? "card_declined" : card.behaviour === "insufficient_funds" ? "insufficient_funds" : null
        return yield* once(
          input.businessId,
          input.idempotencyKey,
          store.insertTransaction({
            id: randomId("ch_"),
            businessId: input.businessId,
            kind: "charge",
            key: input.idempotencyKey,
            token: input.token,
            chargeId: null,
            amountCents: input.amountCents,
            currency: input.currency,
            description: input.description,
            status: reason === null ? "succeeded" : "declined",
            declineReason: reason,
            now: yield* now
          }),
          outcome
        )
      }),
      refund: Effect.fn("SandboxGateway.refund")(function* ({ businessId, transactionId, amountCents, idempotencyKey }) {
        const earlier = yield* store.byIdempotencyKey(businessId, idempotencyKey)
        if (earlier) return outcome(earlier)
        return yield* sql.withTransaction(
          Effect.gen(function* () {
            // Serializes refunds of one charge: the sum below must see every earlier one.
            yield* sql`select id from sandbox_gateway_transactions where business_id = ${businessId} and id = ${transactionId} for update`
            const charge = yield* store.findTransaction(businessId, transactionId)
            let reason: string | null = null
            if (!charge || charge.kind !== "charge") reason = "unknown_transaction"
            else if (charge.status !== "succeeded") reason = "not_refundable"
            else if (amountCents > charge.amount_cents - (yield* store.refunded(businessId, transactionId))) reason = "amount_exceeds_charge"
            if (reason !== null) return { _tag: "Declined" as const, reason }
            return yield* once(
              businessId,
              idempotencyKey,
              store.insertTransaction({
                id: randomId("re_"),
                businessId,
                kind: "refund",
                key: idempotencyKey,
                token: charge!.token,
                chargeId: transactionId,
                amountCents,
                currency: "",
                description: "",
                status: "succeeded",
                declineReason: null,
                now: yield* now
              }),
              outcome
            )
          })
        ).pipe(Effect.catchTag("SqlError", Effect.die))
      }),
      void: Effect.fn("SandboxGateway.void")(function* ({ businessId, transactionId }) {
        yield* store.voidCharge(businessId, transactionId)
        const charge = yield* store.findTransaction(businessId, transactionId)
        if (charge?.kind === "charge" && charge.status === "voided") return { _tag: "Voided" as const }
        return { _tag: "Declined" as const, reason: charge ? "not_voidable" : "unknown_transaction" }
      }),
      createSetupIntent: Effect.fn("SandboxGateway.createSetupIntent")(function* ({ businessId, reference }) {
        const context = yield* RequestContext
        const id = randomId("seti_")
        const secret = `${id}_secret_${randomBytes(16).toString("base64url")}`
        yield* store.insertIntent(businessId, id, secret, reference, yield* now)
        return { setupIntentId: id, clientSecret: secret, confirmUrl: `${context.origin}${setupIntentPath(id)}` }
      }),
      setupIntentCard: Effect.fn("SandboxGateway.setupIntentCard")(function* ({ businessId, setupIntentId }) {
        const intent = yield* store.findIntent(businessId, setupIntentId)
        if (!intent) return undefined
        const card = intent.token === null ? undefined : yield* store.findCard(businessId, intent.token)
        return { reference: intent.reference, card: card ? toVaulted(card) : undefined }
      })
    })
  })
)
