import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { DeskAccess } from "../../access/access.ts"
import { docs } from "../../shared/docs.ts"
import { NotFound } from "../../shared/errors.ts"
import { PageFields, PageQuery } from "../../shared/pagination.ts"
import { IdFromString } from "../../shared/schemas.ts"
import { LocationDesk } from "./model.ts"
import { LocationRefusals } from "./refusals.ts"

export const LocationsDeskApi = HttpApiGroup.make("locationsDesk")
  .add(
    HttpApiEndpoint.get("list", "/api/v2/desk/locations", {
      query: PageQuery,
      success: Schema.Struct({ locations: Schema.Array(LocationDesk), ...PageFields })
    }).annotateMerge(docs("List locations", "Every location of the business, by position. Paginated (default and maximum 100 per page)."))
  )
  .add(
    HttpApiEndpoint.get("get", "/api/v2/desk/locations/:id", {
      params: { id: IdFromString },
      success: Schema.Struct({ locations: Schema.Array(LocationDesk) }),
      error: NotFound
    }).annotateMerge(docs("Get a location", undefined, [LocationRefusals.locationNotFound]))
  )
  .middleware(DeskAccess)
  .annotateMerge(docs("Locations (staff mode)"))
