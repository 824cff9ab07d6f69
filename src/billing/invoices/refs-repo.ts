import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient, SqlSchema, type Statement } from "effect/sql"
import { orDie, orUndefined } from "../../shared/statements.ts"
import { CouponRow, ProductRow } from "./rows.ts"
import { TaxRow, taxLinesSql } from "./tax-lines.ts"
import { bigintArray } from "../../shared/sql-rows.ts"

/**
 * The reads of what an invoice refers to or names: coupons, plan products and staff prices, the
 * people and staff members it shows, its location and booking, and whether an id it is given exists.
 */
const ById = Schema.Struct({ businessId: Schema.Number, id: Schema.Number })
const Ids = Schema.Struct({ businessId: Schema.Number, ids: Schema.Array(Schema.Number) })
const Ref = Schema.Struct({ id: Schema.Number, name: Schema.String, email: Schema.NullOr(Schema.String) })
const NamedPerson = Schema.Struct({ ...Ref.fields, live: Schema.Boolean })
export const SoldProduct = Schema.Struct({ ...ProductRow.fields, taxes: Schema.Array(TaxRow) })
export type SoldProduct = typeof SoldProduct.Type

export const LOOKUP_TABLES = ["staff_members", "locations", "events", "bookings"] as const

const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const couponByCode = SqlSchema.findOneOption({
    Request: Schema.Struct({ businessId: Schema.Number, code: Schema.String }),
    Result: CouponRow,
    execute: ({ businessId, code }) =>
      sql`select id, code, name, description, discount_percent, discount_amount_cents, active from coupons
          where business_id = ${businessId} and lower(code) = lower(${code})`
  })
  const couponById = SqlSchema.findOneOption({
    Request: ById,
    Result: CouponRow,
    execute: ({ businessId, id }) =>
      sql`select id, code, name, description, discount_percent, discount_amount_cents, active from coupons
          where business_id = ${businessId} and id = ${id}`
  })
  // A live plan product with its sales taxes (at no location): the product an invoice sells, as `productSql` reads it.
  const productSql = (businessId: number, which: Statement.Fragment) =>
    sql`select pp.id, pp.kind, pp.name, pp.description, pp.price_cents, pp.signup_fee_cents, pp.staff_specific_pricing, pp.suspended,
               pp.count, pp.limit_period, pp.commitment_length, pp.commitment_unit, pp.consider_member, pp.terms,
               pp.terms_acceptance_required, pp.terms_acceptance_type,
               (select coalesce(json_agg(tax order by tax.sales_tax_id), '[]') from (${taxLinesSql(sql, businessId, sql`pt.plan_product_id = pp.id`, null)}) tax) as taxes
        from plan_products pp where pp.business_id = ${businessId} and ${which} and pp.deleted_at is null`
  const namedPeopleSql = (businessId: number, ids: ReadonlyArray<number>) =>
    sql`select id, concat_ws(' ', first_name, last_name) as name, email::text as email, deleted_at is null as live from people
        where business_id = ${businessId} and id = any(${bigintArray(ids)}::bigint[])`
  const product = SqlSchema.findOneOption({
    Request: ById,
    Result: SoldProduct,
    execute: ({ businessId, id }) => productSql(businessId, sql`pp.id = ${id}`)
  })
  const peopleAndProducts = SqlSchema.findOne({
    Request: Schema.Struct({ businessId: Schema.Number, personIds: Schema.Array(Schema.Number), productIds: Schema.Array(Schema.Number) }),
    Result: Schema.Struct({ people: Schema.Array(NamedPerson), products: Schema.Array(SoldProduct) }),
    execute: ({ businessId, personIds, productIds }) =>
      sql`select (select coalesce(json_agg(x), '[]') from (${namedPeopleSql(businessId, personIds)}) x) as people,
                 (select coalesce(json_agg(x), '[]') from (${productSql(businessId, sql`pp.id = any(${bigintArray(productIds)}::bigint[])`)}) x) as products`
  })
  const staffPrice = SqlSchema.findOneOption({
    Request: Schema.Struct({ businessId: Schema.Number, productId: Schema.Number, staffMemberId: Schema.Number }),
    Result: Schema.Struct({ price_cents: Schema.Number }),
    execute: ({ businessId, productId, staffMemberId }) =>
      sql`select price_cents from plan_product_staff_prices
          where business_id = ${businessId} and plan_product_id = ${productId} and staff_member_id = ${staffMemberId}`
  })
  const exists = SqlSchema.findOne({
    Request: Schema.Struct({ businessId: Schema.Number, table: Schema.Literals(LOOKUP_TABLES), id: Schema.Number }),
    Result: Schema.Struct({ found: Schema.Boolean }),
    execute: ({ businessId, table, id }) =>
      sql`select exists (select 1 from ${sql.literal(table)} where business_id = ${businessId} and id = ${id}) as found`
  })
  const people = SqlSchema.findAll({
    Request: Ids,
    Result: Ref,
    execute: ({ businessId, ids }) =>
      sql`select id, concat_ws(' ', first_name, last_name) as name, email::text as email from people
          where business_id = ${businessId} and id = any(${bigintArray(ids)}::bigint[])`
  })
  const staff = SqlSchema.findAll({
    Request: Ids,
    Result: Ref,
    execute: ({ businessId, ids }) =>
      sql`select s.id, concat_ws(' ', p.first_name, p.last_name) as name, p.email::text as email
          from staff_members s join people p on p.business_id = s.business_id and p.id = s.person_id
          where s.business_id = ${businessId} and s.id = any(${bigintArray(ids)}::bigint[])`
  })
  const location = SqlSchema.findOneOption({
    Request: ById,
    Result: Schema.Struct({ id: Schema.Number, name: Schema.String, slug: Schema.String }),
    execute: ({ businessId, id }) => sql`select id, name, slug from locations where business_id = ${businessId} and id = ${id}`
  })
  const bookingOwner = SqlSchema.findOneOption({
    Request: ById,
    Result: Schema.Struct({ person_id: Schema.NullOr(Schema.Number) }),
    execute: ({ businessId, id }) => sql`select person_id from bookings where business_id = ${businessId} and id = ${id}`
  })
  const peopleOf = (request: typeof Ids.Type) => (request.ids.length === 0 ? Effect.succeed([]) : people(request))
  const staffOf = (request: typeof Ids.Type) => (request.ids.length === 0 ? Effect.succeed([]) : staff(request))

  return {
    /** Case-insensitive. */
    couponByCode: orUndefined(couponByCode),
    couponById: orUndefined(couponById),
    /** A live (not deleted) plan product of the business. */
    product: orUndefined(product),
    /** The staff member's own price of a staff-priced product, if set. */
    staffPrice: orUndefined(staffPrice),
    /** `{ found }`: whether the business has that row in one of the LOOKUP_TABLES. */
    exists: orDie(exists),
    /** People by id (an empty list asks nothing). */
    people: orDie(peopleOf),
    /**
     * People by id with whether each is live (not deleted), and the live products among `productIds` (as `product`
     * reads one), in one round trip: what a new invoice refers to, checked and named by one read.
     */
    peopleAndProducts: orDie(peopleAndProducts),
    /** Staff members by id, named as their people (an empty list asks nothing). */
    staff: orDie(staffOf),
    location: orUndefined(location),
    /** A booking's client (`person_id` null: made by staff); undefined when there is no such booking. */
    bookingOwner: orUndefined(bookingOwner)
  }
})

export class InvoiceRefsRepo extends Context.Service<InvoiceRefsRepo, Effect.Success<typeof make>>()("studio/InvoiceRefsRepo") {
  static readonly layer = Layer.effect(InvoiceRefsRepo)(make)
}
