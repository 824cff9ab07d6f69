import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import type { Page } from "../shared/pagination.ts"
import { WaiverRow } from "./model.ts"

const decodeListRows = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ ...WaiverRow.fields, total_count: Schema.Number })))
const decodeCount = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ n: Schema.Number })))

const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  return {
    /** A page of the person's waivers, by id, and the total. */
    list: (businessId: number, personId: number, page: Page) =>
      Effect.gen(function* () {
        const rows = yield* sql`select id, name, type, signer_id, signing_url, accepted, count(*) over ()::int as total_count
          from waivers where business_id = ${businessId} and person_id = ${personId}
          order by id limit ${page.limit} offset ${page.offset}`.pipe(Effect.flatMap(decodeListRows))
        const total = rows.length > 0
          ? rows[0]!.total_count
          : page.offset === 0
            ? 0
            : ((yield* sql`select count(*)::int as n from waivers where business_id = ${businessId} and person_id = ${personId}`.pipe(
              Effect.flatMap(decodeCount)
            ))[0]?.n ?? 0)
        return { rows: rows.map(({ total_count: _, ...row }) => row), total }
      }).pipe(Effect.orDie)
  }
})

export class WaiversRepo extends Context.Service<WaiversRepo, Effect.Success<typeof make>>()("studio/WaiversRepo") {
  static readonly layer = Layer.effect(WaiversRepo)(make)
}
