import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { DeskAccess } from "../../access/access.ts"
import { docs } from "../../shared/docs.ts"
import { ServiceRefusals } from "./refusals.ts"
import { NotFound } from "../../shared/errors.ts"
import { PageFields, PageQuery } from "../../shared/pagination.ts"
import { BooleanInput, IdFromString } from "../../shared/schemas.ts"
import { ServiceCategory, ServiceDesk } from "./model.ts"

export const ServicesDeskApi = HttpApiGroup.make("servicesDesk")
  .add(
    HttpApiEndpoint.get("list", "/api/v2/desk/services", {
      query: {
        ...PageQuery,
        include_hidden: Schema.optional(BooleanInput.annotate({ description: "Also list hidden services (default false)" }))
      },
      success: Schema.Struct({ services: Schema.Array(ServiceDesk), categories: Schema.Array(ServiceCategory), ...PageFields })
    }).annotateMerge(docs("List services", "By position. Paginated (default 100 per page)."))
  )
  .add(
    HttpApiEndpoint.get("get", "/api/v2/desk/services/:id", {
      params: { id: IdFromString },
      success: Schema.Struct({ services: Schema.Array(ServiceDesk) }),
      error: NotFound
    }).annotateMerge(docs("Get a service", "Hidden services too.", [ServiceRefusals.serviceNotFound]))
  )
  .middleware(DeskAccess)
  .annotateMerge(docs("Services (staff mode)"))
