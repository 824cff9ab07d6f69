import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient, SqlSchema, type Statement } from "effect/sql"
import { memberOn } from "../../shared/plan-rules.ts"
import { type Page, totalCount } from "../../shared/pagination.ts"
import { orDie } from "../../shared/statements.ts"
import { bigintArray } from "../../shared/sql-rows.ts"
import {
  type CatalogScope,
  PLAN_PRODUCT_KINDS,
  type PlanProductKind,
  type PlanProductRecord,
  PlanProductRow,
  ProductSalesTaxRow,
  ProductServiceRow,
  ProductStaffPriceRow
} from "./model.ts"

/**
 * The catalog's reads. Every statement names `business_id`. What a client may see is one rule
 * (`visibleSql`): not deleted, not suspended, for Everyone; Members only for a member
 * (`memberOn`, the plan rules); New clients only for a person who never held a plan; never Staff.
 */
const COLUMNS = `p.id, p.kind, p.name, p.description, p.description_long, p.price_cents, p.visibility, p.suspended, p.count,
  p.limit_period, p.commitment_length, p.commitment_unit, p.invoice_interval_count, p.invoice_interval_unit,
  p.stop_renewing_after_commitment, p.cancellation_fee_cents, p.signup_fee_cents, p.rollover_limit, p.staff_specific_pricing,
  p.location_id, p.consider_member, p.revenue_category_id, rc.name as revenue_category_name, p.terms, p.terms_acceptance_required,
  p.terms_acceptance_type, p.terms_acceptance_at_checkout, p.send_expiration_notifications, p.created_at, p.updated_at`

const FROM = `plan_products p left join revenue_categories rc on rc.business_id = p.business_id and rc.id = p.revenue_category_id`

export interface CatalogFilter {
  readonly scope: CatalogScope
  readonly kinds?: ReadonlyArray<PlanProductKind>
  readonly locationIds?: ReadonlyArray<number>
  readonly serviceIds?: ReadonlyArray<number>
}

const Scope = Schema.Union([
  Schema.TaggedStruct("Staff", {}),
  Schema.TaggedStruct("Client", { personId: Schema.NullOr(Schema.Number), today: Schema.String })
])
const Filter = Schema.Struct({
  businessId: Schema.Number,
  scope: Scope,
  kinds: Schema.optional(Schema.Array(Schema.Literals(PLAN_PRODUCT_KINDS))),
  locationIds: Schema.optional(Schema.Array(Schema.Number)),
  serviceIds: Schema.optional(Schema.Array(Schema.Number))
})
/** The business and what the caller may see of its catalog. */
type CatalogRequest = CatalogFilter & { readonly businessId: number }
const IdsRequest = Schema.Struct({ businessId: Schema.Number, ids: Schema.Array(Schema.Number) })

/** The rows with their services, sales taxes and staff prices: three queries for a whole page. */
const recordsOf = (sql: SqlClient.SqlClient) => {
  const services = SqlSchema.findAll({
    Request: IdsRequest,
    Result: ProductServiceRow,
    execute: ({ businessId, ids }) =>
      sql`select ps.plan_product_id, s.id, s.name from plan_product_services ps
          join services s on s.business_id = ps.business_id and s.id = ps.service_id
          where ps.business_id = ${businessId} and ps.plan_product_id = any(${bigintArray(ids)}) order by s.name, s.id`
  })
  const salesTaxes = SqlSchema.findAll({
    Request: IdsRequest,
    Result: ProductSalesTaxRow,
    execute: ({ businessId, ids }) =>
      sql`select pt.plan_product_id, t.id, t.name, t.tax_rate::float8 as tax_rate, t.inclusive from plan_product_sales_taxes pt
          join sales_taxes t on t.business_id = pt.business_id and t.id = pt.sales_tax_id
          where pt.business_id = ${businessId} and pt.plan_product_id = any(${bigintArray(ids)}) order by t.name, t.id`
  })
  const staffPrices = SqlSchema.findAll({
    Request: IdsRequest,
    Result: ProductStaffPriceRow,
    execute: ({ businessId, ids }) =>
      sql`select plan_product_id, staff_member_id, price_cents from plan_product_staff_prices
          where business_id = ${businessId} and plan_product_id = any(${bigintArray(ids)}) order by staff_member_id`
  })

  return (businessId: number, rows: ReadonlyArray<PlanProductRow>) =>
    Effect.gen(function* () {
      if (rows.length === 0) return [] as ReadonlyArray<PlanProductRecord>
      const ids = rows.map((row) => row.id)
      const [serviceRows, taxRows, priceRows] = yield* Effect.all([
        services({ businessId, ids }),
        salesTaxes({ businessId, ids }),
        staffPrices({ businessId, ids })
      ])
      const byProduct = <A extends { readonly plan_product_id: number }>(all: ReadonlyArray<A>, id: number) =>
        all.filter((row) => row.plan_product_id === id)
      return rows.map((row): PlanProductRecord => ({
        row,
        services: byProduct(serviceRows, row.id).map(({ id, name }) => ({ id, name })),
        salesTaxes: byProduct(taxRows, row.id),
        staffPrices: byProduct(priceRows, row.id)
      }))
    })
}

const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  const visibleSql = (businessId: number, scope: CatalogScope): Statement.Fragment => {
    if (scope._tag === "Staff") return sql`p.deleted_at is null`
    const { personId, today } = scope
    if (personId === null) return sql`(p.deleted_at is null and not p.suspended and p.visibility = 'Everyone')`
    return sql`(p.deleted_at is null and not p.suspended and (
      p.visibility = 'Everyone'
      or (p.visibility = 'Members' and ${memberOn(sql, businessId, personId, today)})
      or (p.visibility = 'New clients' and not exists (
            select 1 from plan_people pp where pp.business_id = ${businessId} and pp.person_id = ${personId}))))`
  }

  const whereSql = (filter: typeof Filter.Type) =>
    sql.and([
      sql`p.business_id = ${filter.businessId}`,
      visibleSql(filter.businessId, filter.scope),
      ...(filter.kinds === undefined ? [] : [sql`p.kind = any(${filter.kinds})`]),
      // No location: usable anywhere; no services: usable with every service.
      ...(filter.locationIds === undefined ? [] : [sql`(p.location_id is null or p.location_id = any(${bigintArray(filter.locationIds)}))`]),
      ...(filter.serviceIds === undefined
        ? []
        : [
          sql`(not exists (select 1 from plan_product_services s where s.business_id = p.business_id and s.plan_product_id = p.id)
               or exists (select 1 from plan_product_services s where s.business_id = p.business_id and s.plan_product_id = p.id
                          and s.service_id = any(${bigintArray(filter.serviceIds)})))`
        ])
    ])

  const listed = SqlSchema.findAll({
    Request: Schema.Struct({ ...Filter.fields, limit: Schema.Number, offset: Schema.Number }),
    Result: Schema.Struct({ ...PlanProductRow.fields, total_count: Schema.Number }),
    execute: (request) =>
      sql`select ${sql.literal(COLUMNS)}, count(*) over ()::int as total_count from ${sql.literal(FROM)}
          where ${whereSql(request)} order by p.name, p.id limit ${request.limit} offset ${request.offset}`
  })
  const counted = SqlSchema.findAll({
    Request: Filter,
    Result: Schema.Struct({ n: Schema.Number }),
    execute: (request) => sql`select count(*)::int as n from ${sql.literal(FROM)} where ${whereSql(request)}`
  })
  const found = SqlSchema.findAll({
    Request: Schema.Struct({ ...Filter.fields, id: Schema.Number }),
    Result: PlanProductRow,
    execute: (request) => sql`select ${sql.literal(COLUMNS)} from ${sql.literal(FROM)} where ${whereSql(request)} and p.id = ${request.id}`
  })
  const records = recordsOf(sql)

  /** A page of the catalog as the filter sees it, by name, and the total. */
  const list = ({ page, ...request }: CatalogRequest & { readonly page: Page }) =>
    Effect.gen(function* () {
      const rows = yield* listed({ ...request, limit: page.limit, offset: page.offset })
      const total = yield* totalCount(rows, page, counted(request))
      return { records: yield* records(request.businessId, rows), total }
    })
  /** One product as the filter sees it (undefined: not found, deleted, or not visible). */
  const find = (request: CatalogRequest & { readonly id: number }) =>
    Effect.gen(function* () {
      const rows = yield* found(request)
      return (yield* records(request.businessId, rows))[0]
    })

  return { list: orDie(list), find: orDie(find) }
})

export class PlanProductsRepo extends Context.Service<PlanProductsRepo, Effect.Success<typeof make>>()("studio/PlanProductsRepo") {
  static readonly layer = Layer.effect(PlanProductsRepo)(make)
}
