import { Schema } from "effect"
import { INVOICE_STATES } from "./model.ts"

/** The rows the invoice statements read (repo.ts, items-repo.ts), decoded by their SqlSchema statements. */

/** The columns of an InvoiceRow, over `invoices i`. */
export const INVOICE_COLUMNS = `i.id, i.invoice_number, i.state, i.invoice_date::text as invoice_date, i.person_id, i.currency, i.location_id,
  i.booking_id, i.coupon_id, i.commission_recipient_id, i.tip_recipient_id, i.send_receipt, i.receipt_email,
  i.created_by_staff_member_id, i.created_by_person_id, i.closed_at, i.canceled_at, i.subtotal_cents, i.discount_total_cents,
  i.adjustment_total_cents, i.included_tax_total_cents, i.additional_tax_total_cents, i.total_cents, i.created_at, i.updated_at`

export const InvoiceRow = Schema.Struct({
  id: Schema.Number,
  invoice_number: Schema.String,
  state: Schema.Literals(INVOICE_STATES),
  invoice_date: Schema.String,
  person_id: Schema.Number,
  currency: Schema.String,
  location_id: Schema.NullOr(Schema.Number),
  booking_id: Schema.NullOr(Schema.Number),
  coupon_id: Schema.NullOr(Schema.Number),
  commission_recipient_id: Schema.NullOr(Schema.Number),
  tip_recipient_id: Schema.NullOr(Schema.Number),
  send_receipt: Schema.Boolean,
  receipt_email: Schema.NullOr(Schema.String),
  created_by_staff_member_id: Schema.NullOr(Schema.Number),
  created_by_person_id: Schema.NullOr(Schema.Number),
  closed_at: Schema.NullOr(Schema.Date),
  canceled_at: Schema.NullOr(Schema.Date),
  subtotal_cents: Schema.Number,
  discount_total_cents: Schema.Number,
  adjustment_total_cents: Schema.Number,
  included_tax_total_cents: Schema.Number,
  additional_tax_total_cents: Schema.Number,
  total_cents: Schema.Number,
  created_at: Schema.Date,
  updated_at: Schema.Date
})
export type InvoiceRow = typeof InvoiceRow.Type

export const ItemRow = Schema.Struct({
  id: Schema.Number,
  invoice_id: Schema.Number,
  kind: Schema.Literals(["plan", "signup_fee"]),
  parent_item_id: Schema.NullOr(Schema.Number),
  plan_product_id: Schema.Number,
  product_kind: Schema.Literals(["membership", "prepaid", "pack", "single_visit_pass"]),
  has_terms: Schema.Boolean,
  name: Schema.String,
  description: Schema.NullOr(Schema.String),
  staff_member_id: Schema.NullOr(Schema.Number),
  event_id: Schema.NullOr(Schema.Number),
  start_date: Schema.NullOr(Schema.String),
  commissionable: Schema.Boolean,
  compable: Schema.Boolean,
  price_cents: Schema.Number,
  total_cents: Schema.Number,
  // The product's terms, for the detail's descriptions.
  product_count: Schema.NullOr(Schema.Number),
  limit_period: Schema.NullOr(Schema.Literals(["week", "month", "year"])),
  commitment_length: Schema.NullOr(Schema.Number),
  commitment_unit: Schema.NullOr(Schema.Literals(["day", "week", "month", "year"])),
  invoice_interval_count: Schema.NullOr(Schema.Number),
  invoice_interval_unit: Schema.NullOr(Schema.Literals(["weekly", "monthly", "yearly"]))
})
export type ItemRow = typeof ItemRow.Type

export const AdjustmentRow = Schema.Struct({
  id: Schema.Number,
  invoice_item_id: Schema.Number,
  type: Schema.String,
  name: Schema.String,
  requested_cents: Schema.NullOr(Schema.Number),
  amount_cents: Schema.Number,
  percent: Schema.NullOr(Schema.Number),
  inclusive: Schema.Boolean,
  source_type: Schema.NullOr(Schema.String),
  source_id: Schema.NullOr(Schema.Number),
  initial_punchcard_count: Schema.NullOr(Schema.Number),
  created_at: Schema.Date
})
export type AdjustmentRow = typeof AdjustmentRow.Type

export const CouponRow = Schema.Struct({
  id: Schema.Number,
  code: Schema.String,
  name: Schema.String,
  description: Schema.NullOr(Schema.String),
  discount_percent: Schema.NullOr(Schema.Number),
  discount_amount_cents: Schema.NullOr(Schema.Number),
  active: Schema.Boolean
})
export type CouponRow = typeof CouponRow.Type


export const ProductRow = Schema.Struct({
  id: Schema.Number,
  kind: Schema.Literals(["membership", "prepaid", "pack", "single_visit_pass"]),
  name: Schema.String,
  description: Schema.NullOr(Schema.String),
  price_cents: Schema.Number,
  signup_fee_cents: Schema.NullOr(Schema.Number),
  staff_specific_pricing: Schema.Boolean,
  suspended: Schema.Boolean,
  count: Schema.NullOr(Schema.Number),
  limit_period: Schema.NullOr(Schema.Literals(["week", "month", "year"])),
  commitment_length: Schema.NullOr(Schema.Number),
  commitment_unit: Schema.NullOr(Schema.Literals(["day", "week", "month", "year"])),
  consider_member: Schema.Boolean,
  terms: Schema.NullOr(Schema.String),
  terms_acceptance_required: Schema.Boolean,
  terms_acceptance_type: Schema.String
})
export type ProductRow = typeof ProductRow.Type
