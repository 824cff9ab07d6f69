import { Effect } from "effect"
import { CurrentBusiness } from "../auth/tenant.ts"
import { pageLinks, pageOf } from "../shared/pagination.ts"
import type { CustomField } from "./model.ts"
import { CustomFieldsRepo } from "./repo.ts"

export const CUSTOM_FIELDS_PER_PAGE = 100

export const listCustomFields = Effect.fn("CustomFields.list")(function* (query: {
  readonly page?: number | undefined
  readonly per_page?: number | undefined
}) {
  const business = yield* CurrentBusiness
  const page = pageOf(query, CUSTOM_FIELDS_PER_PAGE)
  const { rows, total } = yield* (yield* CustomFieldsRepo).list(business.id, page)
  const custom_fields = rows.map(
    (row): CustomField => ({
      id: row.id,
      name: row.name,
      why: row.why,
      data_type: row.data_type,
      multi_select: row.multi_select,
      custom_field_options: row.options,
      custom_field_settings: [
        { name: "hidden_in_client_mode", value: row.hidden_in_client_mode },
        { name: "required", value: row.required }
      ]
    })
  )
  return { custom_fields, ...(yield* pageLinks(page, total)) }
})
