import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { orDie, orUndefined } from "../../shared/statements.ts"
import { FormRow, PaymentRow, RefundRow } from "./payments-model.ts"
import { NewPayment, PAYMENT_COLUMNS, PaymentWithPayer, paymentAnswerSql, paymentInsertSql } from "./payment-insert.ts"
import { bigintArray } from "../../shared/sql-rows.ts"

/**
 * The SQL of payments, refunds, account credit and the payer's forms as payments see them. Writes
 * run on the caller's connection (inside its transaction).
 */
const Biz = { businessId: Schema.Number }
const ById = Schema.Struct({ ...Biz, id: Schema.Number })
const Ids = Schema.Struct({ ...Biz, ids: Schema.Array(Schema.Number) })
const REFUND_COLUMNS = `id, payment_id, invoice_id, payment_type_id, state, amount_cents, description, gateway_transaction_id, error_message,
  created_at, voided_at`
const FORM_COLUMNS = `id, type, autobill, gateway_token, card_type, last_four, expire_month, expire_year, account_number_masked`

const NewRefund = Schema.Struct({
  ...Biz,
  paymentId: Schema.Number,
  invoiceId: Schema.Number,
  paymentTypeId: Schema.Number,
  state: Schema.String,
  amountCents: Schema.Number,
  description: Schema.String,
  gatewayTransactionId: Schema.NullOr(Schema.String),
  errorMessage: Schema.NullOr(Schema.String),
  sendReceipt: Schema.Boolean,
  receiptEmail: Schema.NullOr(Schema.String),
  staffMemberId: Schema.NullOr(Schema.Number),
  now: Schema.Date
})
export type NewRefund = Omit<typeof NewRefund.Type, "businessId">

const NewCredit = Schema.Struct({
  ...Biz,
  personId: Schema.Number,
  amountCents: Schema.Number,
  reason: Schema.String,
  paymentId: Schema.NullOr(Schema.Number),
  refundId: Schema.NullOr(Schema.Number),
  now: Schema.Date
})
export type NewCredit = Omit<typeof NewCredit.Type, "businessId">

const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const forms = SqlSchema.findAll({
    Request: Schema.Struct({ ...Biz, personId: Schema.Number }),
    Result: FormRow,
    execute: ({ businessId, personId }) =>
      sql`select ${sql.literal(FORM_COLUMNS)} from forms_of_payment where business_id = ${businessId} and person_id = ${personId}
          order by autobill desc, id`
  })
  const payments = SqlSchema.findAll({
    Request: Ids,
    Result: PaymentRow,
    execute: ({ businessId, ids }) =>
      sql`select ${sql.literal(PAYMENT_COLUMNS)} from payments where business_id = ${businessId} and invoice_id = any(${bigintArray(ids)}::bigint[])
          order by id`
  })
  const payment = SqlSchema.findOneOption({
    Request: Schema.Struct({ ...ById.fields, lock: Schema.optional(Schema.Boolean) }),
    Result: PaymentRow,
    execute: ({ businessId, id, lock }) =>
      sql`select ${sql.literal(PAYMENT_COLUMNS)} from payments where business_id = ${businessId} and id = ${id} ${lock ? sql`for update` : sql``}`
  })
  const refunds = SqlSchema.findAll({
    Request: Ids,
    Result: RefundRow,
    execute: ({ businessId, ids }) =>
      sql`select ${sql.literal(REFUND_COLUMNS)} from refunds where business_id = ${businessId} and payment_id = any(${bigintArray(ids)}::bigint[]) order by id`
  })
  const refund = SqlSchema.findOneOption({
    Request: Schema.Struct({ ...ById.fields, lock: Schema.optional(Schema.Boolean) }),
    Result: RefundRow,
    execute: ({ businessId, id, lock }) =>
      sql`select ${sql.literal(REFUND_COLUMNS)} from refunds where business_id = ${businessId} and id = ${id} ${lock ? sql`for update` : sql``}`
  })
  const insertPayment = SqlSchema.findOne({
    Request: NewPayment,
    Result: PaymentWithPayer,
    execute: (r) => sql`with p as (${paymentInsertSql(sql, r)}) ${paymentAnswerSql(sql, r.businessId)}`
  })
  const insertRefund = SqlSchema.findOne({
    Request: NewRefund,
    Result: RefundRow,
    execute: (r) =>
      sql`insert into refunds (business_id, payment_id, invoice_id, payment_type_id, state, amount_cents, description, gateway_transaction_id,
            error_message, send_receipt, receipt_email, created_by_staff_member_id, created_at)
          values (${r.businessId}, ${r.paymentId}, ${r.invoiceId}, ${r.paymentTypeId}, ${r.state}, ${r.amountCents}, ${r.description},
            ${r.gatewayTransactionId}, ${r.errorMessage}, ${r.sendReceipt}, ${r.receiptEmail}, ${r.staffMemberId}, ${r.now})
          returning ${sql.literal(REFUND_COLUMNS)}`
  })
  const voidPayment = SqlSchema.void({
    Request: Schema.Struct({ ...ById.fields, now: Schema.Date }),
    execute: ({ businessId, id, now }) =>
      sql`update payments set state = 'voided', voided_at = ${now}, updated_at = ${now} where business_id = ${businessId} and id = ${id}`
  })
  const voidRefund = SqlSchema.void({
    Request: Schema.Struct({ ...ById.fields, now: Schema.Date }),
    execute: ({ businessId, id, now }) => sql`update refunds set state = 'voided', voided_at = ${now} where business_id = ${businessId} and id = ${id}`
  })
  const lockPerson = SqlSchema.findAll({
    Request: Schema.Struct({ ...Biz, personId: Schema.Number }),
    Result: Schema.Struct({ id: Schema.Number }),
    execute: ({ businessId, personId }) => sql`select id from people where business_id = ${businessId} and id = ${personId} for update`
  })
  const balances = SqlSchema.findAll({
    Request: Ids,
    Result: Schema.Struct({ person_id: Schema.Number, cents: Schema.Number }),
    execute: ({ businessId, ids }) =>
      sql`select person_id, coalesce(sum(amount_cents), 0)::int as cents from account_credit_entries
          where business_id = ${businessId} and person_id = any(${bigintArray(ids)}::bigint[]) group by person_id`
  })
  const insertCredit = SqlSchema.void({
    Request: NewCredit,
    execute: (r) =>
      sql`insert into account_credit_entries (business_id, person_id, amount_cents, reason, payment_id, refund_id, created_at)
          values (${r.businessId}, ${r.personId}, ${r.amountCents}, ${r.reason}, ${r.paymentId}, ${r.refundId}, ${r.now})`
  })
  const invoiceItems = SqlSchema.findAll({
    Request: Schema.Struct({ ...Biz, invoiceId: Schema.Number }),
    Result: Schema.Struct({ id: Schema.Number }),
    execute: ({ businessId, invoiceId }) => sql`select id from invoice_items where business_id = ${businessId} and invoice_id = ${invoiceId}`
  })
  const person = SqlSchema.findOneOption({
    Request: ById,
    Result: Schema.Struct({ id: Schema.Number, name: Schema.String, email: Schema.NullOr(Schema.String) }),
    execute: ({ businessId, id }) =>
      sql`select id, concat_ws(' ', first_name, last_name) as name, email::text as email from people
          where business_id = ${businessId} and id = ${id}`
  })

  const none = Effect.succeed([])
  const paymentsOf = (request: typeof Ids.Type) => (request.ids.length === 0 ? none : payments(request))
  const refundsOf = (request: typeof Ids.Type) => (request.ids.length === 0 ? none : refunds(request))
  const balancesOf = (request: typeof Ids.Type) =>
    request.ids.length === 0
      ? Effect.succeed(new Map<number, number>())
      : Effect.map(balances(request), (rows) => new Map(rows.map((r) => [r.person_id, r.cents])))
  const invoiceItemIds = (request: Parameters<typeof invoiceItems>[0]) => Effect.map(invoiceItems(request), (rows) => new Set(rows.map((r) => r.id)))

  return {
    /** The payer's forms of payment, as payments use them. */
    forms: orDie(forms),
    /** The payments of invoices (`ids`), none asked for none. */
    payments: orDie(paymentsOf),
    /** `lock`: for update. */
    payment: orUndefined(payment),
    /** The refunds of payments (`ids`), none asked for none. */
    refunds: orDie(refundsOf),
    /** `lock`: for update. */
    refund: orUndefined(refund),
    /** Answers the payment's row and its payer (id, name, email). */
    insertPayment: orDie(insertPayment),
    /** Answers `{ id }`. */
    insertRefund: orDie(insertRefund),
    voidPayment: orDie(voidPayment),
    voidRefund: orDie(voidRefund),
    /** Serializes account-credit moves of one person (the row lock lasts until commit). */
    lockPerson: orDie(lockPerson),
    /** Account-credit balance by person id (`ids`); people without credit are absent. */
    balances: orDie(balancesOf),
    insertCredit: orDie(insertCredit),
    /** The ids of an invoice's items, as a set. */
    invoiceItemIds: orDie(invoiceItemIds),
    person: orUndefined(person)
  }
})

export class PaymentsRepo extends Context.Service<PaymentsRepo, Effect.Success<typeof make>>()("studio/PaymentsRepo") {
  static readonly layer = Layer.effect(PaymentsRepo)(make)
}
