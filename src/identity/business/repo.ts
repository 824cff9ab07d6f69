import { Context, Effect, Layer, Option, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { type Page, totalCount } from "../../shared/pagination.ts"
import { BrandingRow, BusinessRow } from "./model.ts"

const Listed = Schema.Struct({ ...BusinessRow.fields, total_count: Schema.Number })

const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const columns = sql`b.id, b.name, b.subdomain, b.default_locale, b.currency_code, b.website, b.email_address,
    b.phone, b.time_zone,
    (b.franchise_parent_id is not null
      or exists (select 1 from businesses f where f.franchise_parent_id = b.id)) as is_franchise`

  const find = SqlSchema.findOneOption({
    Request: Schema.Number,
    Result: BusinessRow,
    execute: (businessId) => sql`select ${columns} from businesses b where b.id = ${businessId}`
  })

  const franchisees = SqlSchema.findAll({
    Request: Schema.Struct({ businessId: Schema.Number, limit: Schema.Number, offset: Schema.Number }),
    Result: Listed,
    execute: ({ businessId, limit, offset }) =>
      sql`select ${columns}, count(*) over () as total_count
          from businesses b where b.franchise_parent_id = ${businessId}
          order by b.name, b.id limit ${limit} offset ${offset}`
  })

  const branding = SqlSchema.findOneOption({
    Request: Schema.Number,
    Result: BrandingRow,
    execute: (businessId) => sql`select brand_colors, logo_url, cover_photo_url from businesses where id = ${businessId}`
  })

  return {
    find: (businessId: number) => find(businessId).pipe(Effect.map(Option.getOrUndefined), Effect.orDie),

    /** The franchisees of a franchise holding, by name. */
    franchisees: (businessId: number, page: Page) =>
      Effect.gen(function* () {
        const rows = yield* franchisees({ businessId, limit: page.limit, offset: page.offset })
        const total = yield* totalCount(rows, page, sql<{ readonly n: number }>`
          select count(*) as n from businesses where franchise_parent_id = ${businessId}`)
        return { rows: rows as ReadonlyArray<BusinessRow>, total }
      }).pipe(Effect.orDie),

    branding: (businessId: number) => branding(businessId).pipe(Effect.map(Option.getOrUndefined), Effect.orDie)
  }
})

export class BusinessRepo extends Context.Service<BusinessRepo, Effect.Success<typeof make>>()("studio/BusinessRepo") {
  static readonly layer = Layer.effect(BusinessRepo)(make)
}
