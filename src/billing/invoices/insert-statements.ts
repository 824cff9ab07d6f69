import { Effect, Schema } from "effect"
import { type SqlClient, SqlSchema } from "effect/sql"
import { orDie } from "../../shared/statements.ts"

/**
 * The billing runs' invoice insert and its number (taken first), spread into InvoicesRepo; a new
 * invoice of POST invoices is written by one statement of its own (create-statement.ts).
 */
const Id = Schema.Struct({ id: Schema.Number })

/** What every new invoice is written with, whichever way it is numbered (also create-statement.ts). */
export const InvoiceHead = {
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
  const nextInvoiceNumber = (request: { readonly businessId: number }) => Effect.map(nextNumber(request), (row) => String(row.n))
  return {
    nextNumber: orDie(nextInvoiceNumber),
    /** Answers `{ id }`. */
    insert: orDie(insert)
  }
}
