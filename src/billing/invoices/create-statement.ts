import { Schema } from "effect"
import { type SqlClient, SqlSchema } from "effect/sql"
import { orDie } from "../../shared/statements.ts"
import { InvoiceHead } from "./insert-statements.ts"
import { ITEM_COLUMNS } from "./items-writes.ts"
import { INVOICE_COLUMNS, InvoiceRow, ItemRow } from "./rows.ts"

/**
 * A new invoice written by one statement (spread into InvoicesRepo): its number, the invoice with
 * its totals, each item with its amounts, recipients and computed adjustments, all in their final
 * state. One statement needs no transaction of its own: it commits or fails whole, and the
 * business's number counter, locked by its first row, is held for that statement only, so
 * invoices of one business queue on it for one round trip and numbers stay gapless.
 */
const NewLine = Schema.Struct({
  /** A signup fee: its parent is the line before it. */
  fee: Schema.Boolean,
  kind: Schema.Literals(["plan", "signup_fee"]),
  plan_product_id: Schema.Number,
  name: Schema.String,
  description: Schema.NullOr(Schema.String),
  staff_member_id: Schema.NullOr(Schema.Number),
  event_id: Schema.NullOr(Schema.Number),
  start_date: Schema.NullOr(Schema.String),
  price_cents: Schema.Number,
  adjustment_total_cents: Schema.Number,
  discount_total_cents: Schema.Number,
  included_tax_total_cents: Schema.Number,
  additional_tax_total_cents: Schema.Number,
  total_cents: Schema.Number,
  person_ids: Schema.Array(Schema.Number),
  /** The item's ComputedAdjustment rows (items-writes.ts), in order. */
  adjustments: Schema.Array(Schema.Struct({
    type: Schema.String,
    name: Schema.String,
    amount_cents: Schema.Number,
    percent: Schema.NullOr(Schema.Number),
    inclusive: Schema.Boolean,
    source_type: Schema.String,
    source_id: Schema.Number
  }))
})
export type NewLine = typeof NewLine.Type

const NewInvoice = Schema.Struct({
  ...InvoiceHead,
  subtotalCents: Schema.Number,
  discountTotalCents: Schema.Number,
  adjustmentTotalCents: Schema.Number,
  includedTaxTotalCents: Schema.Number,
  additionalTaxTotalCents: Schema.Number,
  totalCents: Schema.Number,
  lines: Schema.Array(NewLine)
})

/** The invoice as written, its items (in line order: the i-th item is the i-th line) and the ids its adjustments were given. */
const Written = Schema.Struct({
  ...InvoiceRow.fields,
  items: Schema.Array(ItemRow),
  adjustment_ids: Schema.Array(Schema.Struct({
    id: Schema.Number,
    invoice_item_id: Schema.Number,
    source_type: Schema.String,
    source_id: Schema.Number
  }))
})

export const createStatements = (sql: SqlClient.SqlClient) => {
  // Item ids are drawn in line order before the insert, so a fee names its parent (the line
  // before it) and recipients and adjustments name their item without reading the insert back;
  // their foreign keys are checked at the statement's end, when the items are there.
  const insertNew = SqlSchema.findOne({
    Request: NewInvoice,
    Result: Written,
    execute: (r) =>
      sql`with counter as (
            insert into invoice_numbers (business_id, last_number) values (${r.businessId}, 1)
            on conflict (business_id) do update set last_number = invoice_numbers.last_number + 1
            returning last_number),
          i as (
            insert into invoices (business_id, invoice_number, invoice_date, person_id, currency, booking_id,
              created_by_staff_member_id, created_by_person_id, subtotal_cents, discount_total_cents, adjustment_total_cents,
              included_tax_total_cents, additional_tax_total_cents, total_cents, created_at, updated_at)
            select ${r.businessId}, counter.last_number::text, ${r.invoiceDate}::date, ${r.personId}, ${r.currency}, ${r.bookingId},
              ${r.createdByStaffMemberId}, ${r.createdByPersonId}, ${r.subtotalCents}, ${r.discountTotalCents}, ${r.adjustmentTotalCents},
              ${r.includedTaxTotalCents}, ${r.additionalTaxTotalCents}, ${r.totalCents}, ${r.now}, ${r.now}
            from counter
            returning *),
          line as (
            select nextval(pg_get_serial_sequence('invoice_items', 'id')) as id, l.*
            from (select * from rows from (jsonb_to_recordset(${JSON.stringify(r.lines)}::jsonb)
                    as (fee boolean, kind text, plan_product_id bigint, name text, description text, staff_member_id bigint,
                        event_id bigint, start_date date, price_cents integer, adjustment_total_cents integer,
                        discount_total_cents integer, included_tax_total_cents integer, additional_tax_total_cents integer,
                        total_cents integer, person_ids jsonb, adjustments jsonb))
                  with ordinality as l(fee, kind, plan_product_id, name, description, staff_member_id, event_id, start_date, price_cents,
                    adjustment_total_cents, discount_total_cents, included_tax_total_cents, additional_tax_total_cents, total_cents,
                    person_ids, adjustments, ord)
                  order by l.ord) l),
          placed as (select line.*, case when line.fee then lag(line.id) over (order by line.ord) end as parent_item_id from line),
          it as (
            insert into invoice_items (id, business_id, invoice_id, kind, parent_item_id, plan_product_id, name, description,
              staff_member_id, event_id, start_date, price_cents, adjustment_total_cents, discount_total_cents,
              included_tax_total_cents, additional_tax_total_cents, total_cents, created_at, updated_at)
            select p.id, i.business_id, i.id, p.kind, p.parent_item_id, p.plan_product_id, p.name, p.description,
              p.staff_member_id, p.event_id, p.start_date, p.price_cents, p.adjustment_total_cents, p.discount_total_cents,
              p.included_tax_total_cents, p.additional_tax_total_cents, p.total_cents, i.created_at, i.created_at
            from placed p, i order by p.ord
            returning *),
          recipients as (
            insert into invoice_item_recipients (business_id, invoice_item_id, person_id, position)
            select ${r.businessId}, p.id, u.person_id::bigint, u.ord
            from placed p, jsonb_array_elements_text(p.person_ids) with ordinality as u(person_id, ord)),
          adjustments as (
            insert into invoice_item_adjustments (business_id, invoice_item_id, type, name, amount_cents, percent, inclusive,
              source_type, source_id, created_at, updated_at)
            select ${r.businessId}, p.id, a.type, a.name, a.amount_cents, a.percent, a.inclusive, a.source_type, a.source_id, ${r.now}, ${r.now}
            from placed p, rows from (jsonb_to_recordset(p.adjustments)
              as (type text, name text, amount_cents integer, percent numeric, inclusive boolean, source_type text, source_id bigint))
              with ordinality as a(type, name, amount_cents, percent, inclusive, source_type, source_id, ord)
            order by p.ord, a.ord
            returning id, invoice_item_id, source_type, source_id)
          select ${sql.literal(INVOICE_COLUMNS)},
            (select json_agg(row_to_json(written)) from (
               select ${sql.literal(ITEM_COLUMNS)}
               from it join placed on placed.id = it.id join plan_products pp on pp.business_id = it.business_id and pp.id = it.plan_product_id
               order by placed.ord) written
            ) as items,
            coalesce((select json_agg(json_build_object('id', a.id, 'invoice_item_id', a.invoice_item_id, 'source_type', a.source_type,
              'source_id', a.source_id) order by a.id) from adjustments a), '[]') as adjustment_ids
          from i`
  })
  return {
    /** A new invoice with its number, items, recipients and adjustments, in one statement: needs no transaction. */
    insertNew: orDie(insertNew)
  }
}
