import { Schema } from "effect"
import type { SqlClient } from "effect/sql"
import { PaymentRow } from "./payments-model.ts"

/**
 * A payment's insert, written once: alone (`PaymentsRepo.insertPayment`) or in the statement that closes the
 * invoice it pays off (`InvoicesRepo.closePaid`), so the closing payment costs one round trip, not two.
 * Both answer the payment as `payments` reads it with its payer's name, so the answer needs no read back.
 */
export const PAYMENT_COLUMNS = `id, invoice_id, person_id, payment_method, payment_type_id, form_of_payment_id, state, amount_cents, description,
  gateway_transaction_id, error_message, created_at, voided_at`

export const NewPayment = Schema.Struct({
  businessId: Schema.Number,
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

export const PaymentWithPayer = Schema.Struct({
  ...PaymentRow.fields,
  payer: Schema.Struct({ id: Schema.Number, name: Schema.String, email: Schema.NullOr(Schema.String) })
})

/** The insert, as the body of a CTE named `p` (the answer below reads it). */
export const paymentInsertSql = (sql: SqlClient.SqlClient, r: typeof NewPayment.Type) =>
  sql`insert into payments (business_id, invoice_id, person_id, payment_method, payment_type_id, form_of_payment_id, state, amount_cents,
        description, gateway_transaction_id, error_message, created_by_staff_member_id, created_at, updated_at)
      values (${r.businessId}, ${r.invoiceId}, ${r.personId}, ${r.paymentMethod}, ${r.paymentTypeId}, ${r.formOfPaymentId}, ${r.state},
        ${r.amountCents}, ${r.description}, ${r.gatewayTransactionId}, ${r.errorMessage}, ${r.staffMemberId}, ${r.now}, ${r.now})
      returning ${sql.literal(PAYMENT_COLUMNS)}`

/** The inserted payment (CTE `p`) with its payer, looked up by key (a join may be planned as a walk of the business's people). */
export const paymentAnswerSql = (sql: SqlClient.SqlClient, businessId: number) =>
  sql`select p.*,
        (select json_build_object('id', pe.id, 'name', concat_ws(' ', pe.first_name, pe.last_name), 'email', pe.email::text)
         from people pe where pe.business_id = ${businessId} and pe.id = p.person_id) as payer
      from p`
