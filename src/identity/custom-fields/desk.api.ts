import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { DeskAccess } from "../../access/access.ts"
import { docs } from "../../shared/docs.ts"
import { PageFields, PageQuery } from "../../shared/pagination.ts"
import { CustomField } from "./model.ts"

export const CustomFieldsDeskApi = HttpApiGroup.make("customFieldsDesk")
  .add(
    HttpApiEndpoint.get("list", "/api/v2/desk/custom_fields", {
      query: PageQuery,
      success: Schema.Struct({ custom_fields: Schema.Array(CustomField), ...PageFields })
    }).annotateMerge(
      docs("List custom fields", "Custom fields that can be attached to people, hidden ones included. Paginated (100 per page by default).")
    )
  )
  .middleware(DeskAccess)
  .annotateMerge(docs("Custom fields (staff mode)"))
