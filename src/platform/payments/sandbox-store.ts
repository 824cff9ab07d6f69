import { Context, Effect, Layer, Option, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { randomBytes } from "node:crypto"
import { type CheckedCard, behaviourOf } from "./cards.ts"
import type { VaultProblem } from "./gateway.ts"

/**
 * The sandbox gateway's state in PostgreSQL (sandbox_gateway_*): vaulted cards (a token and the
 * shown fields, never the number or CVV), hosted forms, charges and refunds, setup intents.
 */
export const randomId = (prefix = "") => `${prefix}${randomBytes(16).toString("base64url")}`

export const CardRow = Schema.Struct({
  token: Schema.String,
  card_type: Schema.String,
  last_four: Schema.String,
  expire_month: Schema.Number,
  expire_year: Schema.Number,
  first_name: Schema.String,
  last_name: Schema.String,
  behaviour: Schema.Literals(["succeed", "decline", "insufficient_funds"])
})
export type CardRow = typeof CardRow.Type

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

export const TransactionRow = Schema.Struct({
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

/** Cards and the hosted forms that vault them: a token and the shown fields, never the number or CVV. */
const cardStatements = (sql: SqlClient.SqlClient) => {
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
      }).pipe(Effect.map((rows) => rows.length > 0), Effect.orDie)
  }
}

/** Charges, refunds and voids, each once per idempotency key. */
const transactionStatements = (sql: SqlClient.SqlClient) => {
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
          where business_id = ${businessId} and id = ${id} and kind in ('charge', 'refund') and status = 'succeeded'`
  })
  return {
    findTransaction: (businessId: number, id: string) => findTransaction({ businessId, id }).pipe(Effect.map(Option.getOrUndefined), Effect.orDie),
    byIdempotencyKey: (businessId: number, key: string) =>
      byIdempotencyKey({ businessId, key }).pipe(Effect.map(Option.getOrUndefined), Effect.orDie),
    insertTransaction: (row: typeof NewTransaction.Type) => insertTransaction(row).pipe(Effect.orDie),
    refunded: (businessId: number, id: string) => refunded({ businessId, id }).pipe(Effect.map((row) => row.cents), Effect.orDie),
    voidCharge: (businessId: number, id: string) => voidCharge({ businessId, id }).pipe(Effect.orDie)
  }
}

/** Setup intents (processor connect): created with a reference, confirmed once with a card's token. */
const intentStatements = (sql: SqlClient.SqlClient) => {
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
  return {
    insertIntent: (businessId: number, id: string, secret: string, reference: string, now: Date) =>
      insertIntent({ businessId, id, secret, reference, now }).pipe(Effect.orDie),
    findIntent: (businessId: number, id: string) => findIntent({ businessId, id }).pipe(Effect.map(Option.getOrUndefined), Effect.orDie),
    confirmIntent: (businessId: number, id: string, token: string) => confirmIntent({ businessId, id, token }).pipe(Effect.orDie)
  }
}

const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  return { ...cardStatements(sql), ...transactionStatements(sql), ...intentStatements(sql) }
})

export class SandboxGatewayStore extends Context.Service<SandboxGatewayStore, Effect.Success<typeof make>>()("studio/SandboxGatewayStore") {
  static readonly layer = Layer.effect(SandboxGatewayStore)(make)
}

