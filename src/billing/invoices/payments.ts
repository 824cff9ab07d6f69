import { Context, type Effect, Schema } from "effect"
import { Cents, FormattedMoney } from "../../shared/money.ts"
import { Timestamp } from "../../shared/schemas.ts"

/**
 * What an invoice shows of its payments: their records and what is still outstanding. Payments
 * (src/payments) sit above invoices (they close invoices), so invoices declares the records'
 * shape and the question, and src/billing/payments/invoice-payments-live.ts answers it; provided in
 * src/app/layers.ts.
 */
export const PAYMENT_STATES = ["settled", "failed", "voided"] as const
export type PaymentState = (typeof PAYMENT_STATES)[number]

/** A payer as payment records show one. */
export const PersonRef = Schema.Struct({ id: Schema.Int, name: Schema.String, email: Schema.NullOr(Schema.String) })

export const RefundWire = Schema.Struct({
  id: Schema.Int,
  amount_cents: Cents,
  amount: FormattedMoney,
  state: Schema.Literals(PAYMENT_STATES),
  payment_id: Schema.Int,
  payment_type_id: Schema.Int,
  description: Schema.String,
  created_at: Timestamp,
  voided_at: Schema.NullOr(Timestamp),
  error_message: Schema.optional(Schema.String)
}).annotate({ identifier: "Refund" })
export type RefundWire = typeof RefundWire.Type

export const PaymentWire = Schema.Struct({
  id: Schema.Int,
  description: Schema.String,
  state: Schema.Literals(PAYMENT_STATES),
  payment_method: Schema.String,
  payment_type_id: Schema.Int,
  amount_cents: Cents,
  amount: FormattedMoney,
  maximum_refund_cents: Cents,
  maximum_refund: FormattedMoney,
  created_at: Timestamp,
  voided_at: Schema.NullOr(Timestamp),
  error_message: Schema.optional(Schema.String),
  refunds: Schema.Array(RefundWire),
  payer: PersonRef
}).annotate({ identifier: "Payment" })
export type PaymentWire = typeof PaymentWire.Type

/** What the answer needs of an invoice. */
export interface InvoiceTotal {
  readonly id: number
  readonly state: string
  readonly total_cents: number
}

export interface InvoiceMoney {
  /** total − (settled payments − settled refunds), never below 0; 0 once closed or canceled. */
  readonly outstanding: number
  readonly payments: ReadonlyArray<PaymentWire>
}

export class InvoicePayments extends Context.Service<InvoicePayments, {
  /** Each invoice's payments and outstanding amount, money formatted with `price`. */
  readonly ofInvoices: (
    businessId: number,
    invoices: ReadonlyArray<InvoiceTotal>,
    price: (cents: number) => string
  ) => Effect.Effect<ReadonlyMap<number, InvoiceMoney>>
}>()("studio/InvoicePayments") {}
