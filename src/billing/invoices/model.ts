import { Schema } from "effect"
import { PaymentWire } from "./payments-model.ts"
import { Cents, FormattedMoney } from "../../shared/money.ts"
import { PageFields, PageQuery } from "../../shared/pagination.ts"
import { BooleanInput, IdListFromString, IntInput, Timestamp, TimestampInput, listParam } from "../../shared/schemas.ts"

/**
 * Invoices (spec: Invoice, Invoices endpoints, Invoice states). Wire fields beyond the spec's
 * (each item's price/total amounts) are listed in the compatibility notes of the report.
 */
export const INVOICE_STATES = ["open", "closed", "canceled", "cart", "cart_hidden", "on_hold"] as const
export type InvoiceState = (typeof INVOICE_STATES)[number]

/**
 * The transitions (state_event = the next state's name). `closed` is offered only when nothing
 * is outstanding and the invoice has a live item. Both modes may put an open invoice on hold
 * (spec: the client-mode PUT lists `on_hold` among its state events).
 */
export const TRANSITIONS: Record<InvoiceState, ReadonlyArray<InvoiceState>> = {
  cart: ["open", "cart_hidden", "canceled", "closed"],
  cart_hidden: ["cart", "open", "canceled", "closed"],
  open: ["on_hold", "canceled", "closed"],
  on_hold: ["open", "canceled"],
  closed: [],
  canceled: []
}

/** States in which items, discounts, prorates and the coupon may change. */
export const EDITABLE: ReadonlyArray<InvoiceState> = ["cart", "cart_hidden", "open", "on_hold"]

const Id = IntInput.annotate({ description: "Record id" })

export const PlanProductInput = Schema.Struct({
  id: Schema.optional(Id),
  recipient_ids: Schema.optional(Schema.Array(Id).annotate({ description: "People the plan is for; default: the payer" })),
  staff_member_id: Schema.optional(Schema.NullOr(Id).annotate({ description: "Required for staff-specific pricing" })),
  event_id: Schema.optional(Schema.NullOr(Id).annotate({ description: "The course sold (never for classes or appointments)" })),
  start_date: Schema.optional(Schema.NullOr(Schema.String).annotate({ description: "YYYY-MM-DD; default today (business-local)" }))
})
export type PlanProductInput = typeof PlanProductInput.Type

/**
 * POST invoice_items: the spec's `plan_product`, or the same wrapped in the singular resource
 * name client libraries wrap every body in (`{"invoice_item": {"plan_product": {...}}}`,
 * `invoice_item[plan_product][id]=7`). One of the two, not both.
 */
export const InvoiceItemAddInput = Schema.Struct({
  plan_product: Schema.optional(PlanProductInput),
  invoice_item: Schema.optional(
    Schema.Struct({ plan_product: PlanProductInput }).annotate({ description: "The same plan product, wrapped in the resource name" })
  )
})
export type InvoiceItemAddInput = typeof InvoiceItemAddInput.Type

export const InvoiceCreateInput = Schema.Struct({
  payer_id: Schema.optional(Id.annotate({ description: "Required in staff mode; client mode: the token's person" })),
  plan_products: Schema.optional(Schema.Array(PlanProductInput)),
  booking_id: Schema.optional(Schema.NullOr(Id))
})
export type InvoiceCreateInput = typeof InvoiceCreateInput.Type

export const FrontInvoiceUpdateInput = Schema.Struct({
  state_event: Schema.optional(Schema.String.annotate({ description: INVOICE_STATES.join(", ") })),
  coupon_code: Schema.optional(Schema.NullOr(Schema.String).annotate({ description: "A coupon's code (any case); empty or null removes it" }))
})
export type FrontInvoiceUpdateInput = typeof FrontInvoiceUpdateInput.Type

export const DeskInvoiceUpdateInput = Schema.Struct({
  ...FrontInvoiceUpdateInput.fields,
  location_id: Schema.optional(Schema.NullOr(Id)),
  commission_recipient_id: Schema.optional(Schema.NullOr(Id)),
  tip_recipient_id: Schema.optional(Schema.NullOr(Id)),
  send_receipt: Schema.optional(BooleanInput),
  receipt_email: Schema.optional(Schema.NullOr(Schema.String)),
  booking_id: Schema.optional(Schema.NullOr(Id).annotate({ description: "Ties the invoice to a booking, which completes when the invoice closes" }))
})
export type DeskInvoiceUpdateInput = typeof DeskInvoiceUpdateInput.Type

export const ProrateInput = Schema.Struct({
  amount_cents: Schema.optional(IntInput),
  initial_punchcard_count: Schema.optional(IntInput)
})
export type ProrateInput = typeof ProrateInput.Type

export const DiscountInput = Schema.Struct({
  amount_cents: Schema.optional(IntInput),
  percent: Schema.optional(IntInput)
})
export type DiscountInput = typeof DiscountInput.Type

export const InvoiceListQuery = Schema.Struct({
  ...PageQuery,
  state: Schema.optional(listParam(Schema.String, "Comma-delimited states")),
  person_ids: Schema.optional(IdListFromString),
  created_since: Schema.optional(TimestampInput),
  updated_since: Schema.optional(TimestampInput)
})
export type InvoiceListQuery = typeof InvoiceListQuery.Type

// ---------------------------------------------------------------------------------------------
// Wire

const PersonRef = Schema.Struct({ id: Schema.Int, name: Schema.String, email: Schema.NullOr(Schema.String) })

export const AdjustmentWire = Schema.Struct({
  id: Schema.Int,
  type: Schema.String,
  name: Schema.String,
  created_at: Timestamp,
  amount_cents: Cents,
  amount: FormattedMoney,
  percent: Schema.optional(Schema.Number),
  source: Schema.optional(Schema.Struct({ id: Schema.Int, type: Schema.String })),
  initial_punchcard_count: Schema.optional(Schema.Int)
}).annotate({ identifier: "InvoiceItemAdjustment" })
export type AdjustmentWire = typeof AdjustmentWire.Type

export const InvoiceItemWire = Schema.Struct({
  id: Schema.Int,
  name: Schema.String,
  description: Schema.NullOr(Schema.String),
  recipients: Schema.Array(PersonRef),
  adjustments: Schema.Array(AdjustmentWire),
  detail: Schema.Struct({
    id: Schema.Int,
    type: Schema.String,
    start_date: Schema.optional(Schema.NullOr(Schema.String)),
    count_description: Schema.optional(Schema.String).annotate({ description: "The visits the plan gives, localized (plan items)" }),
    extended_description: Schema.optional(Schema.Array(Schema.String)).annotate({
      description: "The plan's terms line by line, localized: visits, validity, billing (plan items)"
    }),
    initial_punchcard_count_description: Schema.optional(Schema.String).annotate({
      description: "The visits of the first period when a prorate sets them, localized"
    }),
    has_terms: Schema.optional(Schema.Boolean),
    plan_product_id: Schema.optional(Schema.Int),
    product_id: Schema.optional(Schema.Int).annotate({ description: "The product sold (a plan product's id); retail_product_id: no retail products are sold" }),
    retail_product_id: Schema.optional(Schema.Int)
  }),
  service: Schema.optional(Schema.NullOr(Schema.Struct({ id: Schema.Int }))),
  price_cents: Cents,
  price: FormattedMoney,
  total_cents: Cents,
  total: FormattedMoney,
  commissionable: Schema.optional(Schema.Boolean),
  compable: Schema.optional(Schema.Boolean)
}).annotate({ identifier: "InvoiceItem" })
export type InvoiceItemWire = typeof InvoiceItemWire.Type

const CouponWire = Schema.Struct({
  id: Schema.Int,
  code: Schema.String,
  name: Schema.String,
  description: Schema.NullOr(Schema.String),
  discount_percent: Schema.optional(Schema.Int),
  discount_amount_cents: Schema.optional(Schema.Int),
  discount_amount: Schema.optional(FormattedMoney)
})

export const InvoiceWire = Schema.Struct({
  id: Schema.Int,
  invoice_number: Schema.optional(Schema.String),
  invoice_date: Schema.optional(Schema.String),
  total_cents: Cents,
  total: FormattedMoney,
  outstanding_amount_cents: Schema.optional(Cents),
  outstanding_amount: Schema.optional(FormattedMoney),
  currency: Schema.String,
  state: Schema.Literals(INVOICE_STATES),
  state_events: Schema.Array(Schema.String),
  invoice_items: Schema.optional(Schema.Array(InvoiceItemWire)),
  payments: Schema.optional(Schema.Array(PaymentWire)),
  person: Schema.optional(PersonRef),
  person_id: Schema.optional(Schema.Int),
  coupon: Schema.optional(Schema.NullOr(CouponWire)),
  subtotal_cents: Schema.optional(Cents),
  subtotal: Schema.optional(FormattedMoney),
  discount_total_cents: Schema.optional(Cents),
  discount_total: Schema.optional(FormattedMoney),
  adjustment_total_cents: Schema.optional(Cents),
  adjustment_total: Schema.optional(FormattedMoney),
  included_tax_total_cents: Schema.optional(Cents),
  included_tax_total: Schema.optional(FormattedMoney),
  additional_tax_total_cents: Schema.optional(Cents),
  additional_tax_total: Schema.optional(FormattedMoney),
  send_receipt: Schema.optional(Schema.Boolean),
  receipt_email: Schema.optional(Schema.NullOr(Schema.String)),
  has_tip: Schema.optional(Schema.Boolean),
  has_commission_pay: Schema.optional(Schema.Boolean),
  can_adjust_tip: Schema.optional(Schema.Boolean),
  is_voidable: Schema.optional(Schema.Boolean),
  location: Schema.optional(Schema.NullOr(Schema.Struct({ id: Schema.Int, name: Schema.String, slug: Schema.String }))),
  created_by: Schema.optional(Schema.NullOr(PersonRef)),
  commission_recipient: Schema.optional(Schema.NullOr(PersonRef)),
  tip_recipient: Schema.optional(Schema.NullOr(PersonRef)),
  booking_id: Schema.optional(Schema.NullOr(Schema.Int)),
  closed_at: Schema.optional(Schema.NullOr(Timestamp)),
  canceled_at: Schema.optional(Schema.NullOr(Timestamp)),
  created_at: Schema.optional(Timestamp),
  updated_at: Schema.optional(Timestamp)
}).annotate({ identifier: "Invoice" })
export type InvoiceWire = typeof InvoiceWire.Type

export const Invoices = Schema.Struct({ invoices: Schema.Array(InvoiceWire) })
export const InvoicePage = Schema.Struct({ invoices: Schema.Array(InvoiceWire), ...PageFields })
export const Discounts = Schema.Struct({ discounts: Schema.Array(AdjustmentWire) })
