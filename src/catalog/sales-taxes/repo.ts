import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { type Page, totalCount } from "../../shared/pagination.ts"
import { orDie, orUndefined } from "../../shared/statements.ts"
import { SalesTaxLocationRow, SalesTaxRow } from "./model.ts"

const OfBusiness = Schema.Struct({ businessId: Schema.Number })

/** The SQL of sales taxes. Rates are numeric(7,4) in PostgreSQL and read as float8. */
const COLUMNS = `t.id, t.name, t.tax_rate::float8 as tax_rate, t.inclusive`

const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const listed = SqlSchema.findAll({
    Request: Schema.Struct({ businessId: Schema.Number, limit: Schema.Number, offset: Schema.Number }),
    Result: Schema.Struct({ ...SalesTaxRow.fields, total_count: Schema.Number }),
    execute: ({ businessId, limit, offset }) =>
      sql`select ${sql.literal(COLUMNS)}, count(*) over ()::int as total_count from sales_taxes t
          where t.business_id = ${businessId} order by t.name, t.id limit ${limit} offset ${offset}`
  })
  const counted = SqlSchema.findAll({
    Request: OfBusiness,
    Result: Schema.Struct({ n: Schema.Number }),
    execute: ({ businessId }) => sql`select count(*)::int as n from sales_taxes where business_id = ${businessId}`
  })
  const find = SqlSchema.findOneOption({
    Request: Schema.Struct({ businessId: Schema.Number, id: Schema.Number }),
    Result: SalesTaxRow,
    execute: ({ businessId, id }) => sql`select ${sql.literal(COLUMNS)} from sales_taxes t where t.business_id = ${businessId} and t.id = ${id}`
  })
  const locations = SqlSchema.findAll({
    Request: Schema.Struct({ businessId: Schema.Number, id: Schema.Number }),
    Result: SalesTaxLocationRow,
    execute: ({ businessId, id }) =>
      sql`select l.id, l.name, coalesce(stl.tax_rate, t.tax_rate)::float8 as tax_rate
          from sales_tax_locations stl
          join sales_taxes t on t.business_id = stl.business_id and t.id = stl.sales_tax_id
          join locations l on l.business_id = stl.business_id and l.id = stl.location_id
          where stl.business_id = ${businessId} and stl.sales_tax_id = ${id} order by l.name, l.id`
  })

  /** A page of the business's taxes by name, and the total. */
  const list = ({ businessId, page }: typeof OfBusiness.Type & { readonly page: Page }) =>
    Effect.gen(function* () {
      const rows = yield* listed({ businessId, limit: page.limit, offset: page.offset })
      const total = yield* totalCount(rows, page, counted({ businessId }))
      return { rows: rows as ReadonlyArray<SalesTaxRow>, total }
    })

  return {
    list: orDie(list),
    find: orUndefined(find),
    /** The locations a tax applies at, with the rate at each. */
    locations: orDie(locations)
  }
})

export class SalesTaxesRepo extends Context.Service<SalesTaxesRepo, Effect.Success<typeof make>>()("studio/SalesTaxesRepo") {
  static readonly layer = Layer.effect(SalesTaxesRepo)(make)
}
