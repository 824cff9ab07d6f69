import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { FrontAccess } from "../../access/access.ts"
import { docs } from "../../shared/docs.ts"
import { NotFound } from "../../shared/errors.ts"
import { PageFields, PageQuery } from "../../shared/pagination.ts"
import { IdFromString } from "../../shared/schemas.ts"
import { LocationFront } from "./model.ts"
import { LocationRefusals } from "./refusals.ts"

export const LocationsFrontApi = HttpApiGroup.make("locationsFront")
  .add(
    HttpApiEndpoint.get("list", "/api/v2/front/locations", {
      query: PageQuery,
      success: Schema.Struct({ locations: Schema.Array(LocationFront), ...PageFields })
    }).annotateMerge(docs("List locations", "Locations shown in client mode, by position. Paginated (default and maximum 100 per page)."))
  )
  .add(
    HttpApiEndpoint.get("get", "/api/v2/front/locations/:id", {
      params: { id: IdFromString },
      success: Schema.Struct({ locations: Schema.Array(LocationFront) }),
      error: NotFound
    }).annotateMerge(docs("Get a location", "A location hidden from client mode is not found.", [LocationRefusals.locationNotFound]))
  )
  .middleware(FrontAccess)
  .annotateMerge(docs("Locations (client mode)"))
