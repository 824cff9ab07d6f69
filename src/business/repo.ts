import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { type Page, totalCount } from "../shared/pagination.ts"
import { BrandingRow, BusinessRow } from "./model.ts"

const decodeBusinesses = Schema.decodeUnknownEffect(Schema.Array(BusinessRow))
const decodeListed = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ ...BusinessRow.fields, total_count: Schema.Number })))
const decodeBranding = Schema.decodeUnknownEffect(Schema.Array(BrandingRow))

const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const columns = sql`b.id, b.name, b.subdomain, b.default_locale, b.currency_code, b.website, b.email_address,
    b.phone, b.time_zone,
    (b.franchise_parent_id is not null
      or exists (select 1 from businesses f where f.franchise_parent_id = b.id)) as is_franchise`

  return {
    find: (businessId: number) =>
      sql`select ${columns} from businesses b where b.id = ${businessId}`.pipe(
        Effect.flatMap(decodeBusinesses),
        Effect.map((rows) => rows[0]),
        Effect.orDie
      ),

    /** The franchisees of a franchise holding, by name. */
    franchisees: (businessId: number, page: Page) =>
      Effect.gen(function* () {
        const rows = yield* sql`
          select ${columns}, count(*) over () as total_count
          from businesses b where b.franchise_parent_id = ${businessId}
          order by b.name, b.id limit ${page.limit} offset ${page.offset}`.pipe(Effect.flatMap(decodeListed))
        const total = yield* totalCount(rows, page, sql<{ readonly n: number }>`
          select count(*) as n from businesses where franchise_parent_id = ${businessId}`)
        return { rows: rows as ReadonlyArray<BusinessRow>, total }
      }).pipe(Effect.orDie),

    branding: (businessId: number) =>
      sql`select brand_colors, logo_url, cover_photo_url from businesses where id = ${businessId}`.pipe(
        Effect.flatMap(decodeBranding),
        Effect.map((rows) => rows[0]),
        Effect.orDie
      )
  }
})

export class BusinessRepo extends Context.Service<BusinessRepo, Effect.Success<typeof make>>()("studio/BusinessRepo") {
  static readonly layer = Layer.effect(BusinessRepo)(make)
}
