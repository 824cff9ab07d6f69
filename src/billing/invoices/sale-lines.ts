import { Schema } from "effect"
import type { SqlClient, Statement } from "effect/sql"
import { ProductRow } from "./rows.ts"

/**
 * What closing an invoice sells (close.ts): per live plan item of a live product and per
 * recipient, the product, the item's fields and the prorate's first count, in item and recipient
 * order. Read on its own (`InvoiceItemsRepo.saleLines`) or inside the payment's invoice lock
 * (`InvoicesRepo.findToPay`), so the payment that closes its invoice reads it in the same round trip.
 */
export const SaleLine = Schema.Struct({
  ...ProductRow.fields,
  item_id: Schema.Number,
  item_start_date: Schema.NullOr(Schema.String),
  item_price_cents: Schema.Number,
  item_staff_member_id: Schema.NullOr(Schema.Number),
  recipient_id: Schema.Number,
  recipient_position: Schema.Number,
  recipient_plan_id: Schema.NullOr(Schema.Number),
  initial_punchcard_count: Schema.NullOr(Schema.Number)
})
export type SaleLine = typeof SaleLine.Type

/**
 * The sale lines of the invoice `invoiceId` names (a value, or a column of an enclosing query). Reached
 * from the invoice's items only: a recipient's person exists by its foreign key, and a join to `people`
 * let the planner start from all of the business's people when its statistics took them for few.
 */
export const saleLinesSql = (sql: SqlClient.SqlClient, businessId: number, invoiceId: Statement.Fragment) =>
  sql`select pp.id, pp.kind, pp.name, pp.description, pp.price_cents, pp.signup_fee_cents, pp.staff_specific_pricing, pp.suspended,
             pp.count, pp.limit_period, pp.commitment_length, pp.commitment_unit, pp.consider_member, pp.terms,
             pp.terms_acceptance_required, pp.terms_acceptance_type,
             it.id as item_id, it.start_date::text as item_start_date, it.price_cents as item_price_cents,
             it.staff_member_id as item_staff_member_id, r.person_id as recipient_id, r.position as recipient_position,
             r.plan_id as recipient_plan_id,
             (select a.initial_punchcard_count from invoice_item_adjustments a
              where a.business_id = it.business_id and a.invoice_item_id = it.id and a.type = 'ProrateAdjustment' and a.source_type is null
              order by a.id limit 1) as initial_punchcard_count
      from invoice_items it
      join plan_products pp on pp.business_id = it.business_id and pp.id = it.plan_product_id and pp.deleted_at is null
      join invoice_item_recipients r on r.business_id = it.business_id and r.invoice_item_id = it.id
      where it.business_id = ${businessId} and it.invoice_id = ${invoiceId} and it.kind = 'plan' and it.canceled_at is null
      order by it.id, r.position`
