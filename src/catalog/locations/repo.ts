import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { type Page, totalCount } from "../../shared/pagination.ts"
import { orDie, orUndefined } from "../../shared/statements.ts"
import { LocationRow } from "./model.ts"

/** `clientVisibleOnly` hides the locations staff keep from clients. */
const Scope = Schema.Struct({ businessId: Schema.Number, clientVisibleOnly: Schema.Boolean })

const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const columns = sql`id, name, slug, address, latitude, longitude, phone, description, time_zone, show_in_client_mode`
  const visible = (clientVisibleOnly: boolean) => (clientVisibleOnly ? sql`and show_in_client_mode` : sql``)

  const listed = SqlSchema.findAll({
    Request: Schema.Struct({ ...Scope.fields, limit: Schema.Number, offset: Schema.Number }),
    Result: Schema.Struct({ ...LocationRow.fields, total_count: Schema.Number }),
    execute: ({ businessId, clientVisibleOnly, limit, offset }) =>
      sql`select ${columns}, count(*) over () as total_count
          from locations
          where business_id = ${businessId} ${visible(clientVisibleOnly)}
          order by position, id
          limit ${limit} offset ${offset}`
  })
  const counted = SqlSchema.findAll({
    Request: Scope,
    Result: Schema.Struct({ n: Schema.Number }),
    execute: ({ businessId, clientVisibleOnly }) =>
      sql`select count(*) as n from locations where business_id = ${businessId} ${visible(clientVisibleOnly)}`
  })
  const find = SqlSchema.findOneOption({
    Request: Schema.Struct({ ...Scope.fields, id: Schema.Number }),
    Result: LocationRow,
    execute: ({ businessId, clientVisibleOnly, id }) =>
      sql`select ${columns} from locations where business_id = ${businessId} and id = ${id} ${visible(clientVisibleOnly)}`
  })
  /** One page, ordered by position then id, and the total. */
  const list = ({ page, ...scope }: typeof Scope.Type & { readonly page: Page }) =>
    Effect.gen(function* () {
      const rows = yield* listed({ ...scope, limit: page.limit, offset: page.offset })
      const total = yield* totalCount(rows, page, counted(scope))
      return { rows: rows as ReadonlyArray<LocationRow>, total }
    })

  return { list: orDie(list), find: orUndefined(find) }
})

export class LocationsRepo extends Context.Service<LocationsRepo, Effect.Success<typeof make>>()("studio/LocationsRepo") {
  static readonly layer = Layer.effect(LocationsRepo)(make)
}
