import { Effect, Schema } from "effect"
import { type SqlClient, SqlSchema } from "effect/sql"
import { ItemRow } from "./rows.ts"
import type { InvoiceAmounts, ItemAmounts } from "./totals.ts"

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

const ComputedItem = Schema.Struct({
  ...ItemInsert.fields,
  adjustmentTotalCents: Schema.Number,
  discountTotalCents: Schema.Number,
  includedTaxTotalCents: Schema.Number,
  additionalTaxTotalCents: Schema.Number,
  totalCents: Schema.Number,
  personIds: Schema.Array(Schema.Number),
  /** JSON of the item's ComputedAdjustment rows, in order. */
  adjustments: Schema.String
})
export type ComputedItem = typeof ComputedItem.Type

export const itemWrites = (sql: SqlClient.SqlClient) => {
  // A new item written once, in its final state: amounts, recipients and computed adjustments in
  // one statement; answers the item as `items` reads it and the ids its adjustments were given.
  const insertComputed = SqlSchema.findOne({
    Request: ComputedItem,
    Result: Schema.Struct({
      ...ItemRow.fields,
      adjustment_ids: Schema.Array(Schema.Struct({ id: Schema.Number, source_type: Schema.String, source_id: Schema.Number }))
    }),
    execute: (r) =>
      sql`with it as (
            insert into invoice_items (business_id, invoice_id, kind, parent_item_id, plan_product_id, name, description, staff_member_id,
              event_id, start_date, price_cents, adjustment_total_cents, discount_total_cents, included_tax_total_cents,
              additional_tax_total_cents, total_cents, created_at, updated_at)
            values (${r.businessId}, ${r.invoiceId}, ${r.kind}, ${r.parentItemId}, ${r.planProductId}, ${r.name}, ${r.description},
              ${r.staffMemberId}, ${r.eventId}, ${r.startDate}::date, ${r.priceCents}, ${r.adjustmentTotalCents}, ${r.discountTotalCents},
              ${r.includedTaxTotalCents}, ${r.additionalTaxTotalCents}, ${r.totalCents}, ${r.now}, ${r.now})
            returning *),
          recipients as (
            insert into invoice_item_recipients (business_id, invoice_item_id, person_id, position)
            select it.business_id, it.id, u.person_id, u.ord from it, unnest(${r.personIds}::bigint[]) with ordinality as u(person_id, ord)),
          adjustments as (
            insert into invoice_item_adjustments (business_id, invoice_item_id, type, name, amount_cents, percent, inclusive,
              source_type, source_id, created_at, updated_at)
            select it.business_id, it.id, a.type, a.name, a.amount_cents, a.percent, a.inclusive, a.source_type, a.source_id, it.created_at, it.created_at
            from it, rows from (jsonb_to_recordset(${r.adjustments}::jsonb)
              as (type text, name text, amount_cents integer, percent numeric, inclusive boolean, source_type text, source_id bigint))
              with ordinality as a(type, name, amount_cents, percent, inclusive, source_type, source_id, ord)
            order by a.ord
            returning id, source_type, source_id)
          select ${sql.literal(ITEM_COLUMNS)},
            coalesce((select json_agg(json_build_object('id', a.id, 'source_type', a.source_type, 'source_id', a.source_id) order by a.id)
              from adjustments a), '[]') as adjustment_ids
          from it join plan_products pp on pp.business_id = it.business_id and pp.id = it.plan_product_id`
  })

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
        yield* sql`delete from invoice_item_adjustments where business_id = ${businessId} and invoice_item_id = any(${ids}::bigint[])
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
    /** A new item with its amounts, recipients and computed adjustments, in one statement. */
    insertComputed,
    /** Computed rows: coupon shares and tax lines are rewritten; staff adjustments get their signed amounts. */
    writeAmounts
  }
}
