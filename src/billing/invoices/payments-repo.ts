import { Context, Effect, Layer, Option, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { FormRow, PaymentRow, RefundRow } from "./payments-model.ts"

/**
 * The SQL of payments, refunds, account credit and the payer's forms as payments see them. Writes
 * run on the caller's connection (inside its transaction).
 */
const Biz = { businessId: Schema.Number }
const ById = Schema.Struct({ ...Biz, id: Schema.Number })
const Ids = Schema.Struct({ ...Biz, ids: Schema.Array(Schema.Number) })
const PAYMENT_COLUMNS = `id, invoice_id, person_id, payment_method, payment_type_id, form_of_payment_id, state, amount_cents, description,
  gateway_transaction_id, error_message, created_at, voided_at`
const REFUND_COLUMNS = `id, payment_id, invoice_id, payment_type_id, state, amount_cents, description, gateway_transaction_id, error_message,
  created_at, voided_at`
const FORM_COLUMNS = `id, type, autobill, gateway_token, card_type, last_four, expire_month, expire_year, account_number_masked`

const NewPayment = Schema.Struct({
  ...Biz,
  invoiceId: Schema.Number,
  personId: Schema.Number,
  paymentMethod: Schema.String,
  paymentTypeId: Schema.Number,
  formOfPaymentId: Schema.NullOr(Schema.Number),
  state: Schema.String,
  amountCents: Schema.Number,
  description: Schema.String,
  gatewayTransactionId: Schema.NullOr(Schema.String),
  errorMessage: Schema.NullOr(Schema.String),
  staffMemberId: Schema.NullOr(Schema.Number),
  now: Schema.Date
})
export type NewPayment = Omit<typeof NewPayment.Type, "businessId">

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
      sql`select ${sql.literal(PAYMENT_COLUMNS)} from payments where business_id = ${businessId} and invoice_id = any(${ids}::bigint[])
          order by id`
  })
  const payment = SqlSchema.findOneOption({
    Request: Schema.Struct({ ...ById.fields, lock: Schema.Boolean }),
    Result: PaymentRow,
    execute: ({ businessId, id, lock }) =>
      sql`select ${sql.literal(PAYMENT_COLUMNS)} from payments where business_id = ${businessId} and id = ${id} ${lock ? sql`for update` : sql``}`
  })
  const refunds = SqlSchema.findAll({
    Request: Ids,
    Result: RefundRow,
    execute: ({ businessId, ids }) =>
      sql`select ${sql.literal(REFUND_COLUMNS)} from refunds where business_id = ${businessId} and payment_id = any(${ids}::bigint[]) order by id`
  })
  const refund = SqlSchema.findOneOption({
    Request: Schema.Struct({ ...ById.fields, lock: Schema.Boolean }),
    Result: RefundRow,
    execute: ({ businessId, id, lock }) =>
      sql`select ${sql.literal(REFUND_COLUMNS)} from refunds where business_id = ${businessId} and id = ${id} ${lock ? sql`for update` : sql``}`
  })
  const insertPayment = SqlSchema.findOne({
    Request: NewPayment,
    Result: Schema.Struct({ id: Schema.Number }),
    execute: (r) =>
      sql`insert into payments (business_id, invoice_id, person_id, payment_method, payment_type_id, form_of_payment_id, state, amount_cents,
            description, gateway_transaction_id, error_message, created_by_staff_member_id, created_at, updated_at)
          values (${r.businessId}, ${r.invoiceId}, ${r.personId}, ${r.paymentMethod}, ${r.paymentTypeId}, ${r.formOfPaymentId}, ${r.state},
            ${r.amountCents}, ${r.description}, ${r.gatewayTransactionId}, ${r.errorMessage}, ${r.staffMemberId}, ${r.now}, ${r.now})
          returning id`
  })
  const insertRefund = SqlSchema.findOne({
    Request: NewRefund,
    Result: Schema.Struct({ id: Schema.Number }),
    execute: (r) =>
      sql`insert into refunds (business_id, payment_id, invoice_id, payment_type_id, state, amount_cents, description, gateway_transaction_id,
            error_message, send_receipt, receipt_email, created_by_staff_member_id, created_at)
          values (${r.businessId}, ${r.paymentId}, ${r.invoiceId}, ${r.paymentTypeId}, ${r.state}, ${r.amountCents}, ${r.description},
            ${r.gatewayTransactionId}, ${r.errorMessage}, ${r.sendReceipt}, ${r.receiptEmail}, ${r.staffMemberId}, ${r.now})
          returning id`
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
          where business_id = ${businessId} and person_id = any(${ids}::bigint[]) group by person_id`
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
  // Ends the plans an item created (and its signup fee's plan item's, by parent).
  const cancelItemPlans = SqlSchema.void({
    Request: Schema.Struct({ ...Ids.fields, now: Schema.Date, today: Schema.String }),
    execute: ({ businessId, ids, now, today }) =>
      sql`update plans set canceled_at = coalesce(canceled_at, ${now}),
            end_date = case when end_date is null or end_date > ${today}::date then greatest(start_date, ${today}::date) else end_date end,
            updated_at = ${now}
          where business_id = ${businessId} and id in (
            select plan_id from invoice_item_recipients where business_id = ${businessId} and plan_id is not null
              and invoice_item_id = any(${ids}::bigint[]))`
  })
  const person = SqlSchema.findOneOption({
    Request: ById,
    Result: Schema.Struct({ id: Schema.Number, name: Schema.String, email: Schema.NullOr(Schema.String) }),
    execute: ({ businessId, id }) =>
      sql`select id, concat_ws(' ', first_name, last_name) as name, email::text as email from people
          where business_id = ${businessId} and id = ${id}`
  })

  return {
    forms: (businessId: number, personId: number) => forms({ businessId, personId }).pipe(Effect.orDie),
    payments: (businessId: number, invoiceIds: ReadonlyArray<number>) =>
      invoiceIds.length === 0 ? Effect.succeed([]) : payments({ businessId, ids: invoiceIds }).pipe(Effect.orDie),
    payment: (businessId: number, id: number, lock = false) =>
      payment({ businessId, id, lock }).pipe(Effect.map(Option.getOrUndefined), Effect.orDie),
    refunds: (businessId: number, paymentIds: ReadonlyArray<number>) =>
      paymentIds.length === 0 ? Effect.succeed([]) : refunds({ businessId, ids: paymentIds }).pipe(Effect.orDie),
    refund: (businessId: number, id: number, lock = false) => refund({ businessId, id, lock }).pipe(Effect.map(Option.getOrUndefined), Effect.orDie),
    insertPayment: (businessId: number, r: NewPayment) => insertPayment({ businessId, ...r }).pipe(Effect.map((row) => row.id), Effect.orDie),
    insertRefund: (businessId: number, r: NewRefund) => insertRefund({ businessId, ...r }).pipe(Effect.map((row) => row.id), Effect.orDie),
    voidPayment: (businessId: number, id: number, now: Date) => voidPayment({ businessId, id, now }).pipe(Effect.orDie),
    voidRefund: (businessId: number, id: number, now: Date) => voidRefund({ businessId, id, now }).pipe(Effect.orDie),
    lockPerson: (businessId: number, personId: number) => lockPerson({ businessId, personId }).pipe(Effect.orDie),
    balances: (businessId: number, personIds: ReadonlyArray<number>) =>
      personIds.length === 0
        ? Effect.succeed(new Map<number, number>())
        : balances({ businessId, ids: personIds }).pipe(Effect.map((rows) => new Map(rows.map((r) => [r.person_id, r.cents]))), Effect.orDie),
    insertCredit: (businessId: number, r: NewCredit) => insertCredit({ businessId, ...r }).pipe(Effect.orDie),
    invoiceItemIds: (businessId: number, invoiceId: number) =>
      invoiceItems({ businessId, invoiceId }).pipe(Effect.map((rows) => new Set(rows.map((r) => r.id))), Effect.orDie),
    cancelItemPlans: (businessId: number, itemIds: ReadonlyArray<number>, now: Date, today: string) =>
      itemIds.length === 0 ? Effect.void : cancelItemPlans({ businessId, ids: itemIds, now, today }).pipe(Effect.orDie),
    person: (businessId: number, id: number) => person({ businessId, id }).pipe(Effect.map(Option.getOrUndefined), Effect.orDie)
  }
})

export class PaymentsRepo extends Context.Service<PaymentsRepo, Effect.Success<typeof make>>()("studio/PaymentsRepo") {
  static readonly layer = Layer.effect(PaymentsRepo)(make)
}
