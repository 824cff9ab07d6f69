import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { DeskAccess } from "../../access/access.ts"
import { docs } from "../../shared/docs.ts"
import { NotFound } from "../../shared/errors.ts"
import { PageFields, PageQuery } from "../../shared/pagination.ts"
import { BusinessDesk } from "./model.ts"
import { BusinessRefusals } from "./refusals.ts"

export const BusinessDeskApi = HttpApiGroup.make("businessDesk")
  .add(
    HttpApiEndpoint.get("get", "/api/v2/desk/business", {
      success: Schema.Struct({ businesses: Schema.Array(BusinessDesk) }),
      error: NotFound
    }).annotateMerge(docs("Business details", undefined, [BusinessRefusals.businessNotFound]))
  )
  .add(
    HttpApiEndpoint.get("franchisees", "/api/v2/desk/business/franchisees", {
      query: PageQuery,
      success: Schema.Struct({ franchisees: Schema.Array(BusinessDesk), ...PageFields })
    }).annotateMerge(docs("Franchisees"))
  )
  .middleware(DeskAccess)
  .annotateMerge(docs("Business (staff mode)"))
