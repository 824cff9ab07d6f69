import { Context, Effect, Layer, Option, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { type Page, totalCount } from "../../shared/pagination.ts"
import { RevenueCategoryRow } from "./model.ts"

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
    Request: Schema.Number,
    Result: Schema.Struct({ n: Schema.Number }),
    execute: (businessId) => sql`select count(*)::int as n from revenue_categories where business_id = ${businessId}`
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

  return {
    /** A page of the business's categories by name, and the total. */
    list: (businessId: number, page: Page) =>
      Effect.gen(function* () {
        const rows = yield* listed({ businessId, limit: page.limit, offset: page.offset })
        const total = yield* totalCount(rows, page, counted(businessId))
        return { rows: rows as ReadonlyArray<RevenueCategoryRow>, total }
      }).pipe(Effect.orDie),

    find: (businessId: number, id: number) => find({ businessId, id }).pipe(Effect.map(Option.getOrUndefined), Effect.orDie),

    findByName: (businessId: number, name: string) =>
      findByName({ businessId, name }).pipe(Effect.map(Option.getOrUndefined), Effect.orDie),

    rename: (businessId: number, id: number, name: string, now: Date) => rename({ businessId, id, name, now }).pipe(Effect.orDie)
  }
})

export class RevenueCategoriesRepo extends Context.Service<RevenueCategoriesRepo, Effect.Success<typeof make>>()("studio/RevenueCategoriesRepo") {
  static readonly layer = Layer.effect(RevenueCategoriesRepo)(make)
}
