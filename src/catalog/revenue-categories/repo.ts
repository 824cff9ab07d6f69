import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { type Page, totalCount } from "../../shared/pagination.ts"
import { orDie, orUndefined } from "../../shared/statements.ts"
import { RevenueCategoryRow } from "./model.ts"

const OfBusiness = Schema.Struct({ businessId: Schema.Number })

/** The SQL of revenue categories. Categories are never deleted; only their name changes. */
const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const listed = SqlSchema.findAll({
    Request: Schema.Struct({ businessId: Schema.Number, limit: Schema.Number, offset: Schema.Number }),
    Result: Schema.Struct({ ...RevenueCategoryRow.fields, total_count: Schema.Number }),
    execute: ({ businessId, limit, offset }) =>
      sql`select id, name, count(*) over ()::int as total_count from revenue_categories
          where business_id = ${businessId} order by name, id limit ${limit} offset ${offset}`
  })
  const counted = SqlSchema.findAll({
    Request: OfBusiness,
    Result: Schema.Struct({ n: Schema.Number }),
    execute: ({ businessId }) => sql`select count(*)::int as n from revenue_categories where business_id = ${businessId}`
  })
  const find = SqlSchema.findOneOption({
    Request: Schema.Struct({ businessId: Schema.Number, id: Schema.Number }),
    Result: RevenueCategoryRow,
    execute: ({ businessId, id }) => sql`select id, name from revenue_categories where business_id = ${businessId} and id = ${id}`
  })
  const findByName = SqlSchema.findOneOption({
    Request: Schema.Struct({ businessId: Schema.Number, name: Schema.String }),
    Result: RevenueCategoryRow,
    execute: ({ businessId, name }) => sql`select id, name from revenue_categories where business_id = ${businessId} and name = ${name}`
  })
  const rename = SqlSchema.void({
    Request: Schema.Struct({ businessId: Schema.Number, id: Schema.Number, name: Schema.String, now: Schema.Date }),
    execute: ({ businessId, id, name, now }) =>
      sql`update revenue_categories set name = ${name}, updated_at = ${now} where business_id = ${businessId} and id = ${id}`
  })

  /** A page of the business's categories by name, and the total. */
  const list = ({ businessId, page }: typeof OfBusiness.Type & { readonly page: Page }) =>
    Effect.gen(function* () {
      const rows = yield* listed({ businessId, limit: page.limit, offset: page.offset })
      const total = yield* totalCount(rows, page, counted({ businessId }))
      return { rows: rows as ReadonlyArray<RevenueCategoryRow>, total }
    })

  return { list: orDie(list), find: orUndefined(find), findByName: orUndefined(findByName), rename: orDie(rename) }
})

export class RevenueCategoriesRepo extends Context.Service<RevenueCategoriesRepo, Effect.Success<typeof make>>()("studio/RevenueCategoriesRepo") {
  static readonly layer = Layer.effect(RevenueCategoriesRepo)(make)
}
