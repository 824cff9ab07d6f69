import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { orDie } from "../../shared/statements.ts"
import { AdjustmentRow, ItemRow } from "./rows.ts"
import { ITEM_COLUMNS, ItemInsert, itemWrites } from "./items-writes.ts"
import { SaleLine, saleLinesSql } from "./sale-lines.ts"
import { TaxRow, taxLinesSql } from "./tax-lines.ts"
import { bigintArray } from "../../shared/sql-rows.ts"

export { computedAdjustments, type ItemInsert } from "./items-writes.ts"

/**
 * The SQL of invoice items, their recipients and adjustments (the writes of computed amounts are
 * in items-writes.ts, spread in here). Runs on the caller's connection (inside its transaction).
 */
const Id = Schema.Struct({ id: Schema.Number })
const ItemIds = Schema.Struct({ businessId: Schema.Number, ids: Schema.Array(Schema.Number) })

export const STAFF_ADJUSTMENTS = ["Discount", "ProrateAdjustment", "PriceOverride"] as const
export type StaffAdjustment = (typeof STAFF_ADJUSTMENTS)[number]



const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const writes = itemWrites(sql)

  const items = SqlSchema.findAll({
    Request: Schema.Struct({ businessId: Schema.Number, invoiceIds: Schema.Array(Schema.Number) }),
    Result: ItemRow,
    execute: ({ businessId, invoiceIds }) =>
      sql`select ${sql.literal(ITEM_COLUMNS)}
          from invoice_items it join plan_products pp on pp.business_id = it.business_id and pp.id = it.plan_product_id
          where it.business_id = ${businessId} and it.invoice_id = any(${bigintArray(invoiceIds)}::bigint[]) and it.canceled_at is null
          order by it.invoice_id, it.id`
  })
  const recipients = SqlSchema.findAll({
    Request: ItemIds,
    Result: Schema.Struct({
      invoice_item_id: Schema.Number,
      id: Schema.Number,
      name: Schema.String,
      email: Schema.NullOr(Schema.String),
      plan_id: Schema.NullOr(Schema.Number)
    }),
    execute: ({ businessId, ids }) =>
      sql`select r.invoice_item_id, p.id, concat_ws(' ', p.first_name, p.last_name) as name, p.email::text as email, r.plan_id
          from invoice_item_recipients r join people p on p.business_id = r.business_id and p.id = r.person_id
          where r.business_id = ${businessId} and r.invoice_item_id = any(${bigintArray(ids)}::bigint[]) order by r.invoice_item_id, r.position`
  })
  const adjustments = SqlSchema.findAll({
    Request: ItemIds,
    Result: AdjustmentRow,
    execute: ({ businessId, ids }) =>
      sql`select id, invoice_item_id, type, name, requested_cents, amount_cents, percent::float8 as percent, inclusive, source_type,
                 source_id, initial_punchcard_count, created_at
          from invoice_item_adjustments where business_id = ${businessId} and invoice_item_id = any(${bigintArray(ids)}::bigint[])
          order by invoice_item_id, id`
  })
  const taxes = SqlSchema.findAll({
    Request: Schema.Struct({ businessId: Schema.Number, productIds: Schema.Array(Schema.Number), locationId: Schema.NullOr(Schema.Number) }),
    Result: TaxRow,
    execute: ({ businessId, productIds, locationId }) =>
      taxLinesSql(sql, businessId, sql`pt.plan_product_id = any(${bigintArray(productIds)}::bigint[])`, locationId)
  })
  const insertItem = SqlSchema.findOne({
    Request: ItemInsert,
    Result: Id,
    execute: (r) =>
      sql`insert into invoice_items (business_id, invoice_id, kind, parent_item_id, plan_product_id, name, description, staff_member_id,
            event_id, start_date, price_cents, total_cents, created_at, updated_at)
          values (${r.businessId}, ${r.invoiceId}, ${r.kind}, ${r.parentItemId}, ${r.planProductId}, ${r.name}, ${r.description},
            ${r.staffMemberId}, ${r.eventId}, ${r.startDate}::date, ${r.priceCents}, ${r.priceCents}, ${r.now}, ${r.now})
          returning id`
  })
  const insertRecipients = SqlSchema.void({
    Request: Schema.Struct({ businessId: Schema.Number, itemId: Schema.Number, personIds: Schema.Array(Schema.Number) }),
    execute: ({ businessId, itemId, personIds }) =>
      sql`insert into invoice_item_recipients (business_id, invoice_item_id, person_id, position)
          select ${businessId}, ${itemId}, person_id, ord from unnest(${bigintArray(personIds)}::bigint[]) with ordinality as u(person_id, ord)`
  })
  const deleteItem = SqlSchema.void({
    Request: Schema.Struct({ businessId: Schema.Number, id: Schema.Number }),
    execute: ({ businessId, id }) => sql`delete from invoice_items where business_id = ${businessId} and id = ${id}`
  })
  const upsertAdjustment = SqlSchema.void({
    Request: Schema.Struct({
      businessId: Schema.Number,
      itemId: Schema.Number,
      type: Schema.Literals(STAFF_ADJUSTMENTS),
      name: Schema.String,
      requestedCents: Schema.NullOr(Schema.Number),
      percent: Schema.NullOr(Schema.Number),
      initialPunchcardCount: Schema.NullOr(Schema.Number),
      now: Schema.Date
    }),
    execute: (r) =>
      sql`insert into invoice_item_adjustments (business_id, invoice_item_id, type, name, requested_cents, percent, initial_punchcard_count,
            created_at, updated_at)
          values (${r.businessId}, ${r.itemId}, ${r.type}, ${r.name}, ${r.requestedCents}, ${r.percent}, ${r.initialPunchcardCount}, ${r.now}, ${r.now})
          on conflict (business_id, invoice_item_id, type) where source_type is null and type in ('Discount', 'ProrateAdjustment', 'PriceOverride')
          do update set name = excluded.name, requested_cents = excluded.requested_cents, percent = excluded.percent,
            initial_punchcard_count = excluded.initial_punchcard_count, updated_at = excluded.updated_at`
  })
  const deleteAdjustment = SqlSchema.findAll({
    Request: Schema.Struct({ businessId: Schema.Number, itemId: Schema.Number, type: Schema.Literals(STAFF_ADJUSTMENTS) }),
    Result: Id,
    execute: ({ businessId, itemId, type }) =>
      sql`delete from invoice_item_adjustments
          where business_id = ${businessId} and invoice_item_id = ${itemId} and type = ${type} and source_type is null returning id`
  })
  // What closing sells, in one read: per live plan item of a live product and per recipient (in
  // order), the product, the item's terms, the plan a renewal names and the prorate's first count.
  const saleLines = SqlSchema.findAll({
    Request: Schema.Struct({ businessId: Schema.Number, invoiceId: Schema.Number }),
    Result: SaleLine,
    execute: ({ businessId, invoiceId }) => saleLinesSql(sql, businessId, sql`${invoiceId}`)
  })
  const setRecipientPlan = SqlSchema.void({
    Request: Schema.Struct({ businessId: Schema.Number, itemId: Schema.Number, personId: Schema.Number, planId: Schema.Number }),
    execute: ({ businessId, itemId, personId, planId }) =>
      sql`update invoice_item_recipients set plan_id = ${planId}
          where business_id = ${businessId} and invoice_item_id = ${itemId} and person_id = ${personId}`
  })

  const none = Effect.succeed([])
  const itemsOf = (request: Parameters<typeof items>[0]) => (request.invoiceIds.length === 0 ? none : items(request))
  const recipientsOf = (request: typeof ItemIds.Type) => (request.ids.length === 0 ? none : recipients(request))
  const adjustmentsOf = (request: typeof ItemIds.Type) => (request.ids.length === 0 ? none : adjustments(request))
  const taxesOf = (request: Parameters<typeof taxes>[0]) => (request.productIds.length === 0 ? none : taxes(request))
  /** The item and its recipients, one unit; answers the item's id. */
  const insertWithRecipients = ({ personIds, ...item }: typeof ItemInsert.Type & { readonly personIds: ReadonlyArray<number> }) =>
    Effect.gen(function* () {
      const { id } = yield* insertItem(item)
      if (personIds.length > 0) yield* insertRecipients({ businessId: item.businessId, itemId: id, personIds })
      return id
    })
  const deleteOneAdjustment = (request: Parameters<typeof deleteAdjustment>[0]) =>
    Effect.map(deleteAdjustment(request), (rows) => rows.length > 0)

  return {
    /** Live items, oldest first (no invoices, no round trip). */
    items: orDie(itemsOf),
    recipients: orDie(recipientsOf),
    adjustments: orDie(adjustmentsOf),
    /** The sales taxes of products, at the location's rate where it has one. */
    taxes: orDie(taxesOf),
    insertItem: orDie(insertWithRecipients),
    /** Its signup-fee item and adjustments go with it. */
    deleteItem: orDie(deleteItem),
    upsertAdjustment: orDie(upsertAdjustment),
    /** Whether there was one. */
    deleteAdjustment: orDie(deleteOneAdjustment),
    setRecipientPlan: orDie(setRecipientPlan),
    /** Per plan item and recipient, what closing the invoice sells (items of deleted products sell nothing). */
    saleLines: orDie(saleLines),
    /** Computed rows: coupon shares and tax lines are rewritten; staff adjustments get their signed amounts. */
    writeAmounts: orDie(writes.writeAmounts)
  }
})

export class InvoiceItemsRepo extends Context.Service<InvoiceItemsRepo, Effect.Success<typeof make>>()("studio/InvoiceItemsRepo") {
  static readonly layer = Layer.effect(InvoiceItemsRepo)(make)
}
