import { Schema } from "effect"
import { Cents, FormattedMoney } from "../../shared/money.ts"
import { BooleanInput, IntInput, Timestamp } from "../../shared/schemas.ts"

/**
 * Payments, refunds and account credit (spec: Invoice's payments, Payment method entry, the
 * payments/refunds/voids endpoints). States (spec: "not shown"): settled, failed, voided (see
 * sql/migrations/0019_create_payments.sql).
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

/** Fixed payment type ids; the business's external methods are 100 + their position. */
export const PAYMENT_TYPE_IDS = { creditcard: 1, cash: 2, check: 3, ach: 4, credit: 5 } as const
export const EXTERNAL_TYPE_BASE = 100
export const CHECKOUT_STATES = ["cart", "cart_hidden"] as const
export const PAYABLE_STATES = ["cart", "cart_hidden", "open"] as const

const Int = IntInput

export const PaymentInput = Schema.Struct({
  payment_method: Schema.optional(Schema.NullOr(Schema.String).annotate({ description: "A payment method key (creditcard, credit, cash, check, ach, an external method)" })),
  amount_cents: Schema.optional(Schema.NullOr(Int).annotate({ description: "Greater than zero, at most the outstanding amount" })),
  form_of_payment_id: Schema.optional(Schema.NullOr(Int).annotate({ description: "creditcard/ach: the payer's form; default their autobill form" }))
})
export type PaymentInput = typeof PaymentInput.Type

/** `{"payment": {...}}` as every other body, or the spec's fields at the top level (the wrapped ones win). */
export const PaymentBody = Schema.Struct({ payment: Schema.optional(PaymentInput), ...PaymentInput.fields })

export const RefundInput = Schema.Struct({
  amount_cents: Schema.optional(Schema.NullOr(Int)),
  payment_type_id: Schema.optional(Schema.NullOr(Int).annotate({ description: "2 cash, 5 account credit, or the payment's own type (default)" })),
  invoice_item_ids_to_cancel: Schema.optional(Schema.NullOr(Schema.Array(Int))),
  send_receipt: Schema.optional(Schema.NullOr(BooleanInput)),
  receipt_email: Schema.optional(Schema.NullOr(Schema.String))
})
export type RefundInput = typeof RefundInput.Type

export const VoidInput = Schema.Struct({
  invoice_item_ids_to_cancel: Schema.optional(Schema.NullOr(Schema.Array(Int)))
})
export type VoidInput = typeof VoidInput.Type


export const Payments = Schema.Struct({ payments: Schema.Array(PaymentWire) })
export const Refunds = Schema.Struct({ refunds: Schema.Array(RefundWire) })

export const PaymentMethodWire = Schema.Struct({
  payment_type_id: Schema.Int,
  key: Schema.String,
  description: Schema.String,
  form_of_payment_id: Schema.NullOr(Schema.Int),
  autobill: Schema.Boolean,
  payer: PersonRef,
  details: Schema.Record(Schema.String, Schema.Union([Schema.String, Schema.Number, Schema.Null]))
}).annotate({ identifier: "PaymentMethod" })
export const PaymentMethods = Schema.Struct({ payment_methods: Schema.Array(PaymentMethodWire) })

// Rows

/** What payments and refunds both record, in their rows' column order. */
const MoneyMovement = {
  state: Schema.Literals(PAYMENT_STATES),
  amount_cents: Schema.Number,
  description: Schema.String,
  gateway_transaction_id: Schema.NullOr(Schema.String),
  error_message: Schema.NullOr(Schema.String),
  created_at: Schema.Date,
  voided_at: Schema.NullOr(Schema.Date)
} as const

export const PaymentRow = Schema.Struct({
  id: Schema.Number,
  invoice_id: Schema.Number,
  person_id: Schema.Number,
  payment_method: Schema.String,
  payment_type_id: Schema.Number,
  form_of_payment_id: Schema.NullOr(Schema.Number),
  ...MoneyMovement
})
export type PaymentRow = typeof PaymentRow.Type

export const RefundRow = Schema.Struct({
  id: Schema.Number,
  payment_id: Schema.Number,
  invoice_id: Schema.Number,
  payment_type_id: Schema.Number,
  ...MoneyMovement
})
export type RefundRow = typeof RefundRow.Type

export const FormRow = Schema.Struct({
  id: Schema.Number,
  type: Schema.String,
  autobill: Schema.Boolean,
  gateway_token: Schema.NullOr(Schema.String),
  card_type: Schema.NullOr(Schema.String),
  last_four: Schema.NullOr(Schema.String),
  expire_month: Schema.NullOr(Schema.Number),
  expire_year: Schema.NullOr(Schema.Number),
  account_number_masked: Schema.NullOr(Schema.String)
})
export type FormRow = typeof FormRow.Type
