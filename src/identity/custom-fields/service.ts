import { Effect } from "effect"
import { CurrentBusiness } from "../../access/tenant.ts"
import { pageLinks, pageOf } from "../../shared/pagination.ts"
import type { CustomField, CustomFieldRow, CustomFieldSetting } from "./model.ts"
import { CustomFieldsRepo } from "./repo.ts"

export const CUSTOM_FIELDS_PER_PAGE = 100

/**
 * A field hidden from clients is not asked at client sign-up and shows to staff only; a
 * required one must be answered at client sign-up. Staff are never forced to answer.
 */
const settingsOf = (row: typeof CustomFieldRow.Type): Array<CustomFieldSetting> => {
  const clientSignUp = row.hidden_in_client_mode ? "hidden" : row.required ? "required" : "optional"
  return [
    {
      custom_field_context_type: "ClientRegistrationSettings",
      client_managers: clientSignUp,
      non_client_managers: clientSignUp,
      dependents: clientSignUp
    },
    { custom_field_context_type: "ClientProfileSettings", visibility: row.hidden_in_client_mode ? "staff" : "everyone" },
    { custom_field_context_type: "StaffRegistrationSettings", staff_registration: "optional" }
  ]
}

export const listCustomFields = Effect.fn("CustomFields.list")(function* (query: {
  readonly page?: number | undefined
  readonly per_page?: number | undefined
}) {
  const business = yield* CurrentBusiness
  const page = pageOf(query, CUSTOM_FIELDS_PER_PAGE)
  const { rows, total } = yield* (yield* CustomFieldsRepo).list({ businessId: business.id, page })
  const custom_fields = rows.map(
    (row): CustomField => ({
      id: row.id,
      name: row.name,
      why: row.why,
      data_type: row.data_type,
      multi_select: row.multi_select,
      custom_field_options: row.options,
      custom_field_settings: settingsOf(row)
    })
  )
  return { custom_fields, ...(yield* pageLinks(page, total)) }
})
