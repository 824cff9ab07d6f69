import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { type Page, totalCount } from "../../shared/pagination.ts"
import { orDie } from "../../shared/statements.ts"
import { CustomFieldRow } from "./model.ts"

const OfBusiness = Schema.Struct({ businessId: Schema.Number })

/** The SQL of custom fields (read-only: the import writes them). */
const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  const list = SqlSchema.findAll({
    Request: Schema.Struct({ businessId: Schema.Number, limit: Schema.Number, offset: Schema.Number }),
    Result: CustomFieldRow,
    execute: ({ businessId, limit, offset }) =>
      sql`select f.id, f.name, f.why, f.data_type, f.multi_select, f.hidden_in_client_mode, f.required,
                 coalesce((select json_agg(json_build_object('id', o.id, 'value', o.value, 'position', o.position)
                                           order by o.position, o.id)
                           from custom_field_options o
                           where o.business_id = f.business_id and o.custom_field_id = f.id), '[]') as options,
                 count(*) over () as total_count
          from custom_fields f
          where f.business_id = ${businessId}
          order by f.position, f.id
          limit ${limit} offset ${offset}`
  })

  const counted = SqlSchema.findAll({
    Request: OfBusiness,
    Result: Schema.Struct({ n: Schema.Number }),
    execute: ({ businessId }) => sql`select count(*) as n from custom_fields where business_id = ${businessId}`
  })
  /** One page of custom fields by position, each with its options (one query, no N+1). */
  const page = ({ businessId, page }: typeof OfBusiness.Type & { readonly page: Page }) =>
    Effect.gen(function* () {
      const rows = yield* list({ businessId, limit: page.limit, offset: page.offset })
      const total = yield* totalCount(rows, page, counted({ businessId }))
      return { rows, total }
    })

  return { list: orDie(page) }
})

export class CustomFieldsRepo extends Context.Service<CustomFieldsRepo, Effect.Success<typeof make>>()(
  "studio/CustomFieldsRepo"
) {
  static readonly layer = Layer.effect(CustomFieldsRepo)(make)
}
