import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { type Page, totalCount } from "../shared/pagination.ts"
import { LocationRow } from "./model.ts"

const ListedRow = Schema.Struct({ ...LocationRow.fields, total_count: Schema.Number })
const decodeListed = Schema.decodeUnknownEffect(Schema.Array(ListedRow))
const decodeRows = Schema.decodeUnknownEffect(Schema.Array(LocationRow))

const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const columns = sql`id, name, slug, address, latitude, longitude, phone, description, time_zone, show_in_client_mode`

  return {
    /** One page, ordered by position then id; `clientVisibleOnly` hides locations staff keep from clients. */
    list: (businessId: number, page: Page, options: { readonly clientVisibleOnly: boolean }) =>
      Effect.gen(function* () {
        const visible = options.clientVisibleOnly ? sql`and show_in_client_mode` : sql``
        const rows = yield* sql`
          select ${columns}, count(*) over () as total_count
          from locations
          where business_id = ${businessId} ${visible}
          order by position, id
          limit ${page.limit} offset ${page.offset}`.pipe(Effect.flatMap(decodeListed))
        const total = yield* totalCount(rows, page, sql<{ readonly n: number }>`
          select count(*) as n from locations where business_id = ${businessId} ${visible}`)
        return { rows: rows as ReadonlyArray<LocationRow>, total }
      }).pipe(Effect.orDie),

    find: (businessId: number, id: number, options: { readonly clientVisibleOnly: boolean }) =>
      sql`select ${columns} from locations
          where business_id = ${businessId} and id = ${id}
          ${options.clientVisibleOnly ? sql`and show_in_client_mode` : sql``}`.pipe(
        Effect.flatMap(decodeRows),
        Effect.map((rows) => rows[0]),
        Effect.orDie
      )
  }
})

export class LocationsRepo extends Context.Service<LocationsRepo, Effect.Success<typeof make>>()("studio/LocationsRepo") {
  static readonly layer = Layer.effect(LocationsRepo)(make)
}
