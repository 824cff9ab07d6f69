import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { type Page, totalCount } from "../../shared/pagination.ts"
import { orDie } from "../../shared/statements.ts"
import { WaiverRow } from "./model.ts"

const PersonPage = Schema.Struct({ businessId: Schema.Number, personId: Schema.Number, limit: Schema.Number, offset: Schema.Number })

const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  const listed = SqlSchema.findAll({
    Request: PersonPage,
    Result: Schema.Struct({ ...WaiverRow.fields, total_count: Schema.Number }),
    execute: ({ businessId, personId, limit, offset }) =>
      sql`select id, name, type, signer_id, signing_url, accepted, count(*) over ()::int as total_count
          from waivers where business_id = ${businessId} and person_id = ${personId}
          order by id limit ${limit} offset ${offset}`
  })
  const counted = SqlSchema.findAll({
    Request: Schema.Struct({ businessId: Schema.Number, personId: Schema.Number }),
    Result: Schema.Struct({ n: Schema.Number }),
    execute: ({ businessId, personId }) => sql`select count(*)::int as n from waivers where business_id = ${businessId} and person_id = ${personId}`
  })

  return {
    /** A page of the person's waivers, by id, and the total. */
    list: orDie(({ businessId, personId, page }: { readonly businessId: number; readonly personId: number; readonly page: Page }) =>
      Effect.gen(function* () {
        const rows = yield* listed({ businessId, personId, limit: page.limit, offset: page.offset })
        const total = yield* totalCount(rows, page, counted({ businessId, personId }))
        return { rows: rows.map(({ total_count: _, ...row }) => row), total }
      })
    )
  }
})

export class WaiversRepo extends Context.Service<WaiversRepo, Effect.Success<typeof make>>()("studio/WaiversRepo") {
  static readonly layer = Layer.effect(WaiversRepo)(make)
}
