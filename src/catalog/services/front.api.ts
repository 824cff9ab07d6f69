import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { FrontAccess } from "../../access/access.ts"
import { docs } from "../../shared/docs.ts"
import { ServiceRefusals } from "./refusals.ts"
import { NotFound } from "../../shared/errors.ts"
import { PageFields, PageQuery } from "../../shared/pagination.ts"
import { IdFromString } from "../../shared/schemas.ts"
import { ServiceCategory, ServiceFront } from "./model.ts"

export const ServicesFrontApi = HttpApiGroup.make("servicesFront")
  .add(
    HttpApiEndpoint.get("list", "/api/v2/front/services", {
      query: PageQuery,
      success: Schema.Struct({ services: Schema.Array(ServiceFront), categories: Schema.Array(ServiceCategory), ...PageFields })
    }).annotateMerge(
      docs(
        "List services",
        "Services the caller may see: not hidden, for everyone, and members-only ones when the token's person is a member. " +
          "`categories` lists the categories of the services on the page. Not cacheable across people. Paginated (default 100 per page)."
      )
    )
  )
  .add(
    HttpApiEndpoint.get("get", "/api/v2/front/services/:id", {
      params: { id: IdFromString },
      success: Schema.Struct({ services: ServiceFront }),
      error: NotFound
    }).annotateMerge(
      docs("Get a service", "An object under `services` (not a list), as the public API answers. A service the caller may not see is not found.", [
        ServiceRefusals.serviceNotFound
      ])
    )
  )
  .middleware(FrontAccess)
  .annotateMerge(docs("Services (client mode)"))
