import { Schema } from "effect"

/** Staff pay: rates, pays and their review (sql/migrations/0023_create_staff_pay.sql). */

export const PAY_TYPES = ["service", "tip", "commission", "adhoc"] as const
export type PayType = (typeof PAY_TYPES)[number]
export const PayTypeSchema = Schema.Literals(PAY_TYPES)

export const PAY_STATES = ["pending", "approved", "denied"] as const
export type PayState = (typeof PAY_STATES)[number]
export const PayStateSchema = Schema.Literals(PAY_STATES)

export const PAY_PERIOD_KINDS = ["semimonthly", "monthly", "weekly", "biweekly"] as const
export type PayPeriodKind = (typeof PAY_PERIOD_KINDS)[number]

export const PayRateTier = Schema.Struct({
  attendance_threshold: Schema.Number,
  bonus_cents: Schema.Number
})

export const PayRate = Schema.Struct({
  base_cents: Schema.Number,
  per_head_cents: Schema.Number,
  per_head_minimum: Schema.Number,
  hourly_cents: Schema.Number,
  tiers: Schema.Array(PayRateTier)
})
export type PayRate = typeof PayRate.Type

/** A pay as stored, as the CLI prints it. */
export const PayRow = Schema.Struct({
  id: Schema.Number,
  pay_type: PayTypeSchema,
  pay_state: PayStateSchema,
  staff_member_id: Schema.Number,
  service_id: Schema.NullOr(Schema.Number),
  event_occurrence_id: Schema.NullOr(Schema.Number),
  invoice_id: Schema.NullOr(Schema.Number),
  description: Schema.NullOr(Schema.String),
  base_cents: Schema.Number,
  per_head_cents: Schema.Number,
  tiered_cents: Schema.Number,
  final_cents: Schema.Number,
  service_hours: Schema.Number,
  pay_period_start: Schema.String,
  pay_period_end: Schema.String,
  recorded_at: Schema.String,
  reviewed_at: Schema.NullOr(Schema.String),
  reviewed_by_staff_member_id: Schema.NullOr(Schema.Number)
})
export type PayRow = typeof PayRow.Type

/** What an occurrence's service pays are computed from. */
export const OccurrenceForPay = Schema.Struct({
  id: Schema.Number,
  service_id: Schema.Number,
  service_type: Schema.String,
  local_date: Schema.String,
  duration_minutes: Schema.Number,
  completed_visits: Schema.Number,
  attendance_complete: Schema.Boolean
})
export type OccurrenceForPay = typeof OccurrenceForPay.Type

/** A closed invoice's sale pay facts. */
export const InvoiceForPay = Schema.Struct({
  id: Schema.Number,
  state: Schema.String,
  invoice_number: Schema.NullOr(Schema.String),
  local_closed_date: Schema.NullOr(Schema.String),
  commission_recipient_id: Schema.NullOr(Schema.Number),
  tip_recipient_id: Schema.NullOr(Schema.Number),
  commissionable_revenue_cents: Schema.Number
})
export type InvoiceForPay = typeof InvoiceForPay.Type
