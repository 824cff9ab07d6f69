import { Effect, Schema } from "effect"
import type { SqlClient } from "effect/sql"
import type { InvoiceAmounts, ItemAmounts } from "./totals.ts"
import { bigintArray } from "../../shared/sql-rows.ts"

/**
 * The writes of invoice items in their final state: a new item with its amounts, recipients and
 * computed adjustments, and the one writer of recomputed amounts (`writeAmounts`, called only by
 * the invoices' recompute). Part of InvoiceItemsRepo (items-repo.ts spreads these in), kept apart
 * so reads and writes each fit one file; same conventions: every statement names `business_id`
 * and runs on the caller's connection.
 */

export const ItemInsert = Schema.Struct({
  businessId: Schema.Number,
  invoiceId: Schema.Number,
  kind: Schema.Literals(["plan", "signup_fee"]),
  parentItemId: Schema.NullOr(Schema.Number),
  planProductId: Schema.Number,
  name: Schema.String,
  description: Schema.NullOr(Schema.String),
  staffMemberId: Schema.NullOr(Schema.Number),
  eventId: Schema.NullOr(Schema.Number),
  startDate: Schema.NullOr(Schema.String),
  priceCents: Schema.Number,
  now: Schema.Date
})
export type ItemInsert = Omit<typeof ItemInsert.Type, "businessId" | "invoiceId" | "now">

/** The rows the money rule adds to an item: the coupon's share, then one line per sales tax. */
export const computedAdjustments = (item: ItemAmounts, coupon: { readonly id: number; readonly name: string } | null) => [
  ...(coupon !== null && item.couponCents !== 0
    ? [{ type: "Discount", name: coupon.name, amount_cents: item.couponCents, percent: null as number | null, inclusive: false, source_type: "Coupon", source_id: coupon.id }]
    : []),
  ...item.taxes.map((tax) => ({
    type: "TaxAdjustment",
    name: tax.name,
    amount_cents: tax.amountCents,
    percent: tax.rate as number | null,
    inclusive: tax.inclusive,
    source_type: "SalesTax",
    source_id: tax.salesTaxId
  }))
]
export type ComputedAdjustment = ReturnType<typeof computedAdjustments>[number]

export const ITEM_COLUMNS = `it.id, it.invoice_id, it.kind, it.parent_item_id, it.plan_product_id, pp.kind as product_kind,
  pp.terms_acceptance_required as has_terms, it.name, it.description, it.staff_member_id, it.event_id,
  it.start_date::text as start_date, it.commissionable, it.compable, it.price_cents, it.total_cents,
  pp.count as product_count, pp.limit_period, pp.commitment_length, pp.commitment_unit,
  pp.invoice_interval_count, pp.invoice_interval_unit`

export const itemWrites = (sql: SqlClient.SqlClient) => {
  /** Computed rows: coupon shares and tax lines are rewritten; staff adjustments get their signed amounts. */
  // `stored`: the items' adjustments as read before computing; a statement that would change no
  // row (no computed row to delete, a staff adjustment absent or already at its amount) is not sent.
  const writeAmounts = ({ businessId, invoiceId, amounts, stored, couponId, couponName, now }: {
    readonly businessId: number
    readonly invoiceId: number
    readonly amounts: InvoiceAmounts
    readonly stored: ReadonlyArray<{ readonly invoice_item_id: number; readonly type: string; readonly source_type: string | null; readonly amount_cents: number }>
    readonly couponId: number | null
    readonly couponName: string
    readonly now: Date
  }) =>
    Effect.gen(function* () {
      const ids = amounts.items.map((item) => item.id)
      if (ids.length > 0 && stored.some((a) => a.source_type !== null)) {
        yield* sql`delete from invoice_item_adjustments where business_id = ${businessId} and invoice_item_id = any(${bigintArray(ids)}::bigint[])
                     and source_type is not null`
      }
      for (const item of amounts.items) {
        for (const [type, cents] of [["PriceOverride", item.overrideCents], ["ProrateAdjustment", item.prorateCents], ["Discount", item.discountCents]] as const) {
          const staff = stored.find((a) => a.invoice_item_id === item.id && a.type === type && a.source_type === null)
          if (staff === undefined || staff.amount_cents === cents) continue
          yield* sql`update invoice_item_adjustments set amount_cents = ${cents}
                     where business_id = ${businessId} and invoice_item_id = ${item.id} and type = ${type} and source_type is null`
        }
        for (const row of computedAdjustments(item, couponId === null ? null : { id: couponId, name: couponName })) {
          yield* sql`insert into invoice_item_adjustments (business_id, invoice_item_id, type, name, amount_cents, percent, inclusive,
                       source_type, source_id, created_at, updated_at)
                     values (${businessId}, ${item.id}, ${row.type}, ${row.name}, ${row.amount_cents}, ${row.percent}, ${row.inclusive},
                       ${row.source_type}, ${row.source_id}, ${now}, ${now})`
        }
        yield* sql`update invoice_items set adjustment_total_cents = ${item.adjustmentTotalCents}, discount_total_cents = ${item.discountTotalCents},
                     included_tax_total_cents = ${item.includedTaxTotalCents}, additional_tax_total_cents = ${item.additionalTaxTotalCents},
                     total_cents = ${item.totalCents}, updated_at = ${now}
                   where business_id = ${businessId} and id = ${item.id}`
      }
      yield* sql`update invoices set subtotal_cents = ${amounts.subtotalCents}, discount_total_cents = ${amounts.discountTotalCents},
                   adjustment_total_cents = ${amounts.adjustmentTotalCents}, included_tax_total_cents = ${amounts.includedTaxTotalCents},
                   additional_tax_total_cents = ${amounts.additionalTaxTotalCents}, total_cents = ${amounts.totalCents}, updated_at = ${now}
                 where business_id = ${businessId} and id = ${invoiceId}`
    })


  return {
    /** Computed rows: coupon shares and tax lines are rewritten; staff adjustments get their signed amounts. */
    writeAmounts
  }
}
