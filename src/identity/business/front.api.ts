import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { FrontAccess } from "../../access/access.ts"
import { docs } from "../../shared/docs.ts"
import { NotFound } from "../../shared/errors.ts"
import { PageFields, PageQuery } from "../../shared/pagination.ts"
import { Branding, BusinessFront } from "./model.ts"
import { BusinessRefusals } from "./refusals.ts"

export const BusinessFrontApi = HttpApiGroup.make("businessFront")
  .add(
    HttpApiEndpoint.get("get", "/api/v2/front/business", {
      success: Schema.Struct({ businesses: Schema.Array(BusinessFront) }),
      error: NotFound
    }).annotateMerge(docs("Business details", "Basic details of the business of the host. No token needed with client_id.", [BusinessRefusals.businessNotFound]))
  )
  .add(
    HttpApiEndpoint.get("franchisees", "/api/v2/front/business/franchisees", {
      query: PageQuery,
      success: Schema.Struct({ franchisees: Schema.Array(BusinessFront), ...PageFields })
    }).annotateMerge(docs("Franchisees", "Basic details of the franchisees of a franchise holding, by name."))
  )
  .middleware(FrontAccess)
  .annotateMerge(docs("Business (client mode)"))

export const BrandingApi = HttpApiGroup.make("branding")
  .add(
    HttpApiEndpoint.get("get", "/api/v2/front/branding", {
      success: Branding,
      error: NotFound
    }).annotateMerge(
      docs("Branding", "Colors, logos and cover photo. No token needed with client_id. A bare object without a root key.", [BusinessRefusals.businessNotFound])
    )
  )
  .middleware(FrontAccess)
  .annotateMerge(docs("Branding"))
