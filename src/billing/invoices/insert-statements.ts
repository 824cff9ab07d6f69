import { Effect, Schema } from "effect"
import { type SqlClient, SqlSchema } from "effect/sql"
import { orDie } from "../../shared/statements.ts"
import { INVOICE_COLUMNS, InvoiceRow } from "./rows.ts"

/**
 * An invoice's insert and its number, spread into InvoicesRepo: the create's draft with its totals
 * and the number taken last, and the billing runs' insert with a number taken first.
 */
const Id = Schema.Struct({ id: Schema.Number })
const ById = Schema.Struct({ businessId: Schema.Number, id: Schema.Number })

const InvoiceHead = {
  businessId: Schema.Number,
  invoiceDate: Schema.String,
  personId: Schema.Number,
  currency: Schema.String,
  bookingId: Schema.NullOr(Schema.Number),
  createdByStaffMemberId: Schema.NullOr(Schema.Number),
  createdByPersonId: Schema.NullOr(Schema.Number),
  now: Schema.Date
}
const InvoiceInsert = Schema.Struct({ ...InvoiceHead, invoiceNumber: Schema.String })

const Totals = {
  subtotalCents: Schema.Number,
  discountTotalCents: Schema.Number,
  adjustmentTotalCents: Schema.Number,
  includedTaxTotalCents: Schema.Number,
  additionalTaxTotalCents: Schema.Number,
  totalCents: Schema.Number
}
const DraftInsert = Schema.Struct({ ...InvoiceHead, ...Totals })

export const invoiceInserts = (sql: SqlClient.SqlClient) => {
  const nextNumber = SqlSchema.findOne({
    Request: Schema.Struct({ businessId: Schema.Number }),
    Result: Schema.Struct({ n: Schema.Number }),
    execute: ({ businessId }) =>
      sql`insert into invoice_numbers (business_id, last_number) values (${businessId}, 1)
          on conflict (business_id) do update set last_number = invoice_numbers.last_number + 1
          returning last_number::int as n`
  })
  const insert = SqlSchema.findOne({
    Request: InvoiceInsert,
    Result: Id,
    execute: (r) =>
      sql`insert into invoices (business_id, invoice_number, invoice_date, person_id, currency, booking_id,
            created_by_staff_member_id, created_by_person_id, created_at, updated_at)
          values (${r.businessId}, ${r.invoiceNumber}, ${r.invoiceDate}::date, ${r.personId}, ${r.currency}, ${r.bookingId},
            ${r.createdByStaffMemberId}, ${r.createdByPersonId}, ${r.now}, ${r.now})
          returning id`
  })
  // The row is written with its totals and a stand-in number unique to it ("draft <id>", never
  // seen outside the transaction); `numberLast` gives it the business's next number just before commit.
  const insertDraft = SqlSchema.findOne({
    Request: DraftInsert,
    Result: Id,
    execute: (r) =>
      sql`with next as (select nextval(pg_get_serial_sequence('invoices', 'id')) as id)
          insert into invoices (business_id, id, invoice_number, invoice_date, person_id, currency, booking_id,
            created_by_staff_member_id, created_by_person_id, subtotal_cents, discount_total_cents, adjustment_total_cents,
            included_tax_total_cents, additional_tax_total_cents, total_cents, created_at, updated_at)
          select ${r.businessId}, next.id, 'draft ' || next.id, ${r.invoiceDate}::date, ${r.personId}, ${r.currency}, ${r.bookingId},
            ${r.createdByStaffMemberId}, ${r.createdByPersonId}, ${r.subtotalCents}, ${r.discountTotalCents}, ${r.adjustmentTotalCents},
            ${r.includedTaxTotalCents}, ${r.additionalTaxTotalCents}, ${r.totalCents}, ${r.now}, ${r.now}
          from next
          returning id`
  })
  // The counter row stays locked until commit, so this is the write's last statement: invoices of
  // one business wait on each other for one round trip, not for the whole write.
  const numberLast = SqlSchema.findOne({
    Request: ById,
    Result: InvoiceRow,
    execute: ({ businessId, id }) =>
      sql`with counter as (
            insert into invoice_numbers (business_id, last_number) values (${businessId}, 1)
            on conflict (business_id) do update set last_number = invoice_numbers.last_number + 1
            returning last_number)
          update invoices i set invoice_number = counter.last_number::text from counter
          where i.business_id = ${businessId} and i.id = ${id}
          returning ${sql.literal(INVOICE_COLUMNS)}`
  })
  const nextInvoiceNumber = (request: { readonly businessId: number }) => Effect.map(nextNumber(request), (row) => String(row.n))
  return {
    nextNumber: orDie(nextInvoiceNumber),
    /** Answers `{ id }`. */
    insert: orDie(insert),
    /** An invoice with its totals and no number yet: `numberLast` must end the transaction. Answers `{ id }`. */
    insertDraft: orDie(insertDraft),
    /** Gives a draft the business's next number (locks the counter until commit); answers the row. */
    numberLast: orDie(numberLast)
  }
}
