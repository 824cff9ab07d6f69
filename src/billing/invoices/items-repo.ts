import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { orDie } from "../../shared/statements.ts"
import { AdjustmentRow, ItemRow } from "./rows.ts"
import type { InvoiceAmounts, ItemAmounts } from "./totals.ts"

/**
 * The SQL of invoice items, their recipients and adjustments, and the one writer of computed
 * amounts (`writeAmounts`, called only by the invoices' recompute). Runs on the caller's
 * connection (inside its transaction).
 */
const Id = Schema.Struct({ id: Schema.Number })
const ItemIds = Schema.Struct({ businessId: Schema.Number, ids: Schema.Array(Schema.Number) })

export const STAFF_ADJUSTMENTS = ["Discount", "ProrateAdjustment", "PriceOverride"] as const
export type StaffAdjustment = (typeof STAFF_ADJUSTMENTS)[number]

const ItemInsert = Schema.Struct({
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

const ITEM_COLUMNS = `it.id, it.invoice_id, it.kind, it.parent_item_id, it.plan_product_id, pp.kind as product_kind,
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

export const TaxRow = Schema.Struct({
  plan_product_id: Schema.Number,
  sales_tax_id: Schema.Number,
  name: Schema.String,
  rate: Schema.Number,
  inclusive: Schema.Boolean
})

export type TaxRow = typeof TaxRow.Type

const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  const items = SqlSchema.findAll({
    Request: Schema.Struct({ businessId: Schema.Number, invoiceIds: Schema.Array(Schema.Number) }),
    Result: ItemRow,
    execute: ({ businessId, invoiceIds }) =>
      sql`select ${sql.literal(ITEM_COLUMNS)}
          from invoice_items it join plan_products pp on pp.business_id = it.business_id and pp.id = it.plan_product_id
          where it.business_id = ${businessId} and it.invoice_id = any(${invoiceIds}::bigint[]) and it.canceled_at is null
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
          where r.business_id = ${businessId} and r.invoice_item_id = any(${ids}::bigint[]) order by r.invoice_item_id, r.position`
  })
  const adjustments = SqlSchema.findAll({
    Request: ItemIds,
    Result: AdjustmentRow,
    execute: ({ businessId, ids }) =>
      sql`select id, invoice_item_id, type, name, requested_cents, amount_cents, percent::float8 as percent, inclusive, source_type,
                 source_id, initial_punchcard_count, created_at
          from invoice_item_adjustments where business_id = ${businessId} and invoice_item_id = any(${ids}::bigint[])
          order by invoice_item_id, id`
  })
  const taxes = SqlSchema.findAll({
    Request: Schema.Struct({ businessId: Schema.Number, productIds: Schema.Array(Schema.Number), locationId: Schema.NullOr(Schema.Number) }),
    Result: TaxRow,
    execute: ({ businessId, productIds, locationId }) =>
      sql`select pt.plan_product_id, t.id as sales_tax_id, t.name, coalesce(tl.tax_rate, t.tax_rate)::float8 as rate, t.inclusive
          from plan_product_sales_taxes pt
          join sales_taxes t on t.business_id = pt.business_id and t.id = pt.sales_tax_id
          left join sales_tax_locations tl on tl.business_id = t.business_id and tl.sales_tax_id = t.id and tl.location_id = ${locationId}
          where pt.business_id = ${businessId} and pt.plan_product_id = any(${productIds}::bigint[])
          order by pt.plan_product_id, t.id`
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
  const insertRecipients = SqlSchema.void({
    Request: Schema.Struct({ businessId: Schema.Number, itemId: Schema.Number, personIds: Schema.Array(Schema.Number) }),
    execute: ({ businessId, itemId, personIds }) =>
      sql`insert into invoice_item_recipients (business_id, invoice_item_id, person_id, position)
          select ${businessId}, ${itemId}, person_id, ord from unnest(${personIds}::bigint[]) with ordinality as u(person_id, ord)`
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
  const setRecipientPlan = SqlSchema.void({
    Request: Schema.Struct({ businessId: Schema.Number, itemId: Schema.Number, personId: Schema.Number, planId: Schema.Number }),
    execute: ({ businessId, itemId, personId, planId }) =>
      sql`update invoice_item_recipients set plan_id = ${planId}
          where business_id = ${businessId} and invoice_item_id = ${itemId} and person_id = ${personId}`
  })

  /** Computed rows: coupon shares and tax lines are rewritten; staff adjustments get their signed amounts. */
  const writeAmounts = ({ businessId, invoiceId, amounts, couponId, couponName, now }: {
    readonly businessId: number
    readonly invoiceId: number
    readonly amounts: InvoiceAmounts
    readonly couponId: number | null
    readonly couponName: string
    readonly now: Date
  }) =>
    Effect.gen(function* () {
      const ids = amounts.items.map((item) => item.id)
      if (ids.length > 0) {
        yield* sql`delete from invoice_item_adjustments where business_id = ${businessId} and invoice_item_id = any(${ids}::bigint[])
                     and source_type is not null`
      }
      for (const item of amounts.items) {
        for (const [type, cents] of [["PriceOverride", item.overrideCents], ["ProrateAdjustment", item.prorateCents], ["Discount", item.discountCents]] as const) {
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
    /** A new item with its amounts, recipients and computed adjustments, in one statement. */
    insertComputed: orDie(insertComputed),
    /** Its signup-fee item and adjustments go with it. */
    deleteItem: orDie(deleteItem),
    upsertAdjustment: orDie(upsertAdjustment),
    /** Whether there was one. */
    deleteAdjustment: orDie(deleteOneAdjustment),
    setRecipientPlan: orDie(setRecipientPlan),
    /** Computed rows: coupon shares and tax lines are rewritten; staff adjustments get their signed amounts. */
    writeAmounts: orDie(writeAmounts)
  }
})

export class InvoiceItemsRepo extends Context.Service<InvoiceItemsRepo, Effect.Success<typeof make>>()("studio/InvoiceItemsRepo") {
  static readonly layer = Layer.effect(InvoiceItemsRepo)(make)
}
