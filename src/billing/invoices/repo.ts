import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { type Page, totalCount } from "../../shared/pagination.ts"
import { orDie, orUndefined } from "../../shared/statements.ts"
import { INVOICE_STATES } from "./model.ts"
import { INVOICE_COLUMNS, InvoiceRow } from "./rows.ts"
import { createStatements } from "./create-statement.ts"
import { SaleLine, saleLinesSql } from "./sale-lines.ts"
import { invoiceInserts } from "./insert-statements.ts"
import { paymentConfigurationSql } from "../../catalog/payment-configuration/repo.ts"
import { PaymentConfigurationRow } from "../../catalog/payment-configuration/model.ts"
import { NewPayment, PaymentWithPayer, paymentAnswerSql, paymentInsertSql } from "./payment-insert.ts"
import { bigintArray } from "../../shared/sql-rows.ts"

/**
 * The SQL of invoices themselves: rows, the list, state and settings (numbers and inserts in
 * insert-statements.ts, spread in). What an invoice
 * refers to (coupons, products, people, staff) is read in refs-repo.ts; items and adjustments are
 * in items-repo.ts. Writes run on the caller's connection (inside its transaction).
 */
const ById = Schema.Struct({ businessId: Schema.Number, id: Schema.Number })


const ListFilter = Schema.Struct({
  businessId: Schema.Number,
  states: Schema.NullOr(Schema.Array(Schema.Literals(INVOICE_STATES))),
  personIds: Schema.NullOr(Schema.Array(Schema.Number)),
  createdSince: Schema.NullOr(Schema.Date),
  updatedSince: Schema.NullOr(Schema.Date)
})
export type InvoiceListFilter = Omit<typeof ListFilter.Type, "businessId">


const Ids = Schema.Struct({ businessId: Schema.Number, ids: Schema.Array(Schema.Number) })


const Settings = Schema.Struct({
  businessId: Schema.Number,
  id: Schema.Number,
  locationId: Schema.NullOr(Schema.Number),
  couponId: Schema.NullOr(Schema.Number),
  commissionRecipientId: Schema.NullOr(Schema.Number),
  tipRecipientId: Schema.NullOr(Schema.Number),
  sendReceipt: Schema.Boolean,
  receiptEmail: Schema.NullOr(Schema.String),
  bookingId: Schema.NullOr(Schema.Number),
  now: Schema.Date
})
export type InvoiceSettings = Omit<typeof Settings.Type, "businessId" | "id" | "now">

const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  const where = (f: typeof ListFilter.Type) =>
    sql.and([
      sql`i.business_id = ${f.businessId}`,
      ...(f.states === null ? [] : [sql`i.state = any(${f.states}::text[])`]),
      ...(f.personIds === null ? [] : [sql`i.person_id = any(${bigintArray(f.personIds)}::bigint[])`]),
      ...(f.createdSince === null ? [] : [sql`i.created_at >= ${f.createdSince}`]),
      ...(f.updatedSince === null ? [] : [sql`i.updated_at >= ${f.updatedSince}`])
    ])

  const find = SqlSchema.findOneOption({
    Request: Schema.Struct({ ...ById.fields, lock: Schema.optional(Schema.Boolean) }),
    Result: InvoiceRow,
    execute: ({ businessId, id, lock }) =>
      sql`select ${sql.literal(INVOICE_COLUMNS)} from invoices i where i.business_id = ${businessId} and i.id = ${id}
          ${lock ? sql`for update` : sql``}`
  })
  // Reads that must see what an invoice lock's earlier holder wrote (a payment it inserted, an item) run
  // as statements of their own after the lock (`find` with `lock`, `lockOfBooking`): under READ COMMITTED
  // a statement reads the snapshot it started with, so sums in the locking statement itself would miss
  // what was committed while it waited (two payments at once would each see the whole amount outstanding).
  // A payment's view of the invoice, read after its lock: the row, what its settled payments and refunds add up
  // to (the money rule's inputs, payments-wire.ts) and what closing it would sell.
  const readToPay = SqlSchema.findOneOption({
    Request: ById,
    Result: Schema.Struct({
      ...InvoiceRow.fields,
      settled_payments_cents: Schema.Number,
      settled_refunds_cents: Schema.Number,
      sale_lines: Schema.Array(SaleLine),
      payment_configuration: Schema.NullOr(PaymentConfigurationRow)
    }),
    execute: ({ businessId, id }) =>
      sql`select ${sql.literal(INVOICE_COLUMNS)},
            (select coalesce(sum(p.amount_cents), 0)::int from payments p
             where p.business_id = i.business_id and p.invoice_id = i.id and p.state = 'settled') as settled_payments_cents,
            (select coalesce(sum(r.amount_cents), 0)::int from refunds r
             where r.business_id = i.business_id and r.invoice_id = i.id and r.state = 'settled') as settled_refunds_cents,
            (select coalesce(json_agg(s order by s.item_id, s.recipient_position), '[]')
             from (${saleLinesSql(sql, businessId, sql`i.id`)}) s) as sale_lines,
            (select row_to_json(c) from (${paymentConfigurationSql(sql, sql`i.business_id`)}) c) as payment_configuration
          from invoices i where i.business_id = ${businessId} and i.id = ${id}`
  })
  const listed = SqlSchema.findAll({
    Request: Schema.Struct({ ...ListFilter.fields, limit: Schema.Number, offset: Schema.Number }),
    Result: Schema.Struct({ ...InvoiceRow.fields, total_count: Schema.Number }),
    execute: (r) =>
      sql`select ${sql.literal(INVOICE_COLUMNS)}, count(*) over ()::int as total_count from invoices i
          where ${where(r)} order by i.created_at desc, i.id desc limit ${r.limit} offset ${r.offset}`
  })
  const counted = SqlSchema.findAll({
    Request: ListFilter,
    Result: Schema.Struct({ n: Schema.Number }),
    execute: (r) => sql`select count(*)::int as n from invoices i where ${where(r)}`
  })
  const setState = SqlSchema.void({
    Request: Schema.Struct({ ...ById.fields, state: Schema.Literals(INVOICE_STATES), now: Schema.Date }),
    execute: ({ businessId, id, state, now }) =>
      sql`update invoices set state = ${state}, updated_at = ${now},
            closed_at = case when ${state} = 'closed' then ${now} else closed_at end,
            canceled_at = case when ${state} = 'canceled' then ${now} else canceled_at end
          where business_id = ${businessId} and id = ${id}`
  })
  // Closing records, in the one statement that closes, the plan sold to each recipient of each item.
  const Sold = Schema.Array(Schema.Struct({ itemId: Schema.Number, personId: Schema.Number, planId: Schema.Number }))
  type Closing = { readonly businessId: number; readonly id: number; readonly sold: typeof Sold.Type; readonly now: Date }
  // Each sold plan tied to its item's recipient, and the invoice closed: CTEs of the closing statement. The
  // recipients are found by the sold items' keys (`= any`), so no plan can start from all of the business's recipients.
  const closingSql = ({ businessId, id, sold, now }: Closing) => {
    const itemIds = bigintArray(sold.map((s) => s.itemId))
    return sql`tied as (
          update invoice_item_recipients r set plan_id = t.plan_id
          from unnest(${itemIds}::bigint[], ${bigintArray(sold.map((s) => s.personId))}::bigint[], ${bigintArray(sold.map((s) => s.planId))}::bigint[])
            as t(item_id, person_id, plan_id)
          where r.business_id = ${businessId} and r.invoice_item_id = any(${itemIds}::bigint[])
            and r.invoice_item_id = t.item_id and r.person_id = t.person_id),
        closed as (
          update invoices set state = 'closed', updated_at = ${now}, closed_at = ${now}
          where business_id = ${businessId} and id = ${id})`
  }
  const closeSold = SqlSchema.void({
    Request: Schema.Struct({ ...ById.fields, sold: Sold, now: Schema.Date }),
    execute: (closing) => sql`with ${closingSql(closing)} select 1`
  })
  const closePaid = SqlSchema.findOne({
    Request: Schema.Struct({ ...ById.fields, sold: Sold, now: Schema.Date, payment: NewPayment }),
    Result: PaymentWithPayer,
    execute: ({ payment, ...closing }) =>
      sql`with p as (${paymentInsertSql(sql, payment)}), ${closingSql(closing)} ${paymentAnswerSql(sql, payment.businessId)}`
  })
  const setSettings = SqlSchema.void({
    Request: Settings,
    execute: (r) =>
      sql`update invoices set location_id = ${r.locationId}, coupon_id = ${r.couponId}, commission_recipient_id = ${r.commissionRecipientId},
            tip_recipient_id = ${r.tipRecipientId}, send_receipt = ${r.sendReceipt}, receipt_email = ${r.receiptEmail},
            booking_id = ${r.bookingId}, updated_at = ${r.now}
          where business_id = ${r.businessId} and id = ${r.id}`
  })
  const touch = SqlSchema.void({
    Request: Schema.Struct({ ...ById.fields, now: Schema.Date }),
    execute: ({ businessId, id, now }) => sql`update invoices set updated_at = ${now} where business_id = ${businessId} and id = ${id}`
  })
  const abandoned = SqlSchema.findAll({
    Request: Schema.Struct({ before: Schema.Date, now: Schema.Date, limit: Schema.Number }),
    Result: Schema.Struct({ business_id: Schema.Number, id: Schema.Number }),
    execute: ({ before, now, limit }) =>
      sql`update invoices set state = 'canceled', canceled_at = ${now}, updated_at = ${now}
          where (business_id, id) in (
            select business_id, id from invoices where state in ('cart', 'cart_hidden') and updated_at < ${before}
            order by updated_at limit ${limit} for update skip locked)
          returning business_id, id`
  })
  const lockOfBooking = SqlSchema.findAll({
    Request: Schema.Struct({ businessId: Schema.Number, bookingId: Schema.Number }),
    Result: Schema.Struct({ id: Schema.Number }),
    execute: ({ businessId, bookingId }) =>
      sql`select i.id from invoices i where i.business_id = ${businessId} and i.booking_id = ${bookingId} order by i.id for update of i`
  })
  // The invoices tied to a booking (read after their locks: payments lock the invoice row first), whether a
  // record of money or pay refers to them, and the plans their items sold.
  const readOfBooking = SqlSchema.findAll({
    Request: Schema.Struct({ businessId: Schema.Number, bookingId: Schema.Number }),
    Result: Schema.Struct({ id: Schema.Number, kept: Schema.Boolean, plan_ids: Schema.Array(Schema.Number) }),
    execute: ({ businessId, bookingId }) =>
      sql`select i.id,
                 exists (select 1 from payments p where p.business_id = i.business_id and p.invoice_id = i.id)
                   or exists (select 1 from pays y where y.business_id = i.business_id and y.invoice_id = i.id)
                   or exists (select 1 from membership_billing_periods m where m.business_id = i.business_id and m.invoice_id = i.id) as kept,
                 array(select distinct r.plan_id::int from invoice_items it
                       join invoice_item_recipients r on r.business_id = it.business_id and r.invoice_item_id = it.id
                       where it.business_id = i.business_id and it.invoice_id = i.id and r.plan_id is not null) as plan_ids
          from invoices i where i.business_id = ${businessId} and i.booking_id = ${bookingId}
          order by i.id`
  })

  const deleted = SqlSchema.void({
    Request: Ids,
    execute: ({ businessId, ids }) => sql`delete from invoices where business_id = ${businessId} and id = any(${bigintArray(ids)}::bigint[])`
  })
  /** Deletes invoices with their items, adjustments and recipients (cascade); none, no round trip. */
  const deleteMany = (request: typeof Ids.Type) => (request.ids.length === 0 ? Effect.void : deleted(request))
  /** The business's next invoice number: 1, 2, 3... (the counter row is locked until commit). */
  /** Newest first: one page and the total. */
  const list = ({ page, ...filter }: typeof ListFilter.Type & { readonly page: Page }) =>
    Effect.gen(function* () {
      const rows = yield* listed({ ...filter, limit: page.limit, offset: page.offset })
      const total = yield* totalCount(rows, page, counted(filter))
      return { rows: rows as ReadonlyArray<InvoiceRow>, total }
    })

  return {
    /** The invoices tied to a booking, locked, then each read with `kept` (money or pay refers to it) and the plans it sold. */
    ofBooking: orDie((request: { readonly businessId: number; readonly bookingId: number }) =>
      Effect.andThen(lockOfBooking(request), readOfBooking(request))),
    deleteMany: orDie(deleteMany),
    ...invoiceInserts(sql),
    ...createStatements(sql),
    /** `lock`: for update. */
    find: orUndefined(find),
    /** The invoice locked for a payment, then read with its settled payments and refunds summed and its sale lines. */
    findToPay: orUndefined((request: typeof ById.Type) => Effect.andThen(find({ ...request, lock: true }), readToPay(request))),
    list: orDie(list),
    setState: orDie(setState),
    setSettings: orDie(setSettings),
    /** Closes the invoice and ties each sold plan to its item's recipient. */
    closeSold: orDie(closeSold),
    /** `closeSold` with the payment that pays the invoice off, inserted by the same statement; answers the payment. */
    closePaid: orDie(closePaid),
    touch: orDie(touch),
    /** Cancels up to `limit` carts untouched since `before` (any business); answers which. */
    cancelAbandoned: orDie(abandoned)
  }
})

export class InvoicesRepo extends Context.Service<InvoicesRepo, Effect.Success<typeof make>>()("studio/InvoicesRepo") {
  static readonly layer = Layer.effect(InvoicesRepo)(make)
}
