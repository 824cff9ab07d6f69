import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { type Page, totalCount } from "../../shared/pagination.ts"
import { orDie, orUndefined } from "../../shared/statements.ts"
import { BrandingRow, BusinessRow } from "./model.ts"

const OfBusiness = Schema.Struct({ businessId: Schema.Number })
const Listed = Schema.Struct({ ...BusinessRow.fields, total_count: Schema.Number })

const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const columns = sql`b.id, b.name, b.subdomain, b.default_locale, b.currency_code, b.website, b.email_address,
    b.phone, b.time_zone,
    (b.franchise_parent_id is not null
      or exists (select 1 from businesses f where f.franchise_parent_id = b.id)) as is_franchise`

  const find = SqlSchema.findOneOption({
    Request: OfBusiness,
    Result: BusinessRow,
    execute: ({ businessId }) => sql`select ${columns} from businesses b where b.id = ${businessId}`
  })

  const franchisees = SqlSchema.findAll({
    Request: Schema.Struct({ businessId: Schema.Number, limit: Schema.Number, offset: Schema.Number }),
    Result: Listed,
    execute: ({ businessId, limit, offset }) =>
      sql`select ${columns}, count(*) over () as total_count
          from businesses b where b.franchise_parent_id = ${businessId}
          order by b.name, b.id limit ${limit} offset ${offset}`
  })

  const franchiseeCount = SqlSchema.findAll({
    Request: OfBusiness,
    Result: Schema.Struct({ n: Schema.Number }),
    execute: ({ businessId }) => sql`select count(*) as n from businesses where franchise_parent_id = ${businessId}`
  })

  const branding = SqlSchema.findOneOption({
    Request: OfBusiness,
    Result: BrandingRow,
    execute: ({ businessId }) => sql`select brand_colors, logo_url, cover_photo_url from businesses where id = ${businessId}`
  })

  /** The franchisees of a franchise holding, by name. */
  const franchiseesOf = ({ businessId, page }: typeof OfBusiness.Type & { readonly page: Page }) =>
    Effect.gen(function* () {
      const rows = yield* franchisees({ businessId, limit: page.limit, offset: page.offset })
      const total = yield* totalCount(rows, page, franchiseeCount({ businessId }))
      return { rows: rows as ReadonlyArray<BusinessRow>, total }
    })

  return { find: orUndefined(find), franchisees: orDie(franchiseesOf), branding: orUndefined(branding) }
})

export class BusinessRepo extends Context.Service<BusinessRepo, Effect.Success<typeof make>>()("studio/BusinessRepo") {
  static readonly layer = Layer.effect(BusinessRepo)(make)
}
