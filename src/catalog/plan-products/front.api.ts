import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { FrontAccess } from "../../access/access.ts"
import { docs } from "../../shared/docs.ts"
import { PlanProductRefusals } from "./refusals.ts"
import { BadRequest, NotFound, Unauthorized } from "../../shared/errors.ts"
import { IdFromString } from "../../shared/schemas.ts"
import { PlanProductFrontOne, PlanProductFrontPage, PlanProductListQuery } from "./model.ts"

const visibility =
  "What the caller may buy: not suspended, for Everyone; Members products when the token's person is a member " +
  "(a current consider_member plan not on hold); New clients products when the person never held a plan; never Staff products. " +
  "Without a token (`client_id`): Everyone products only. Not cacheable across people."

export const PlanProductsFrontApi = HttpApiGroup.make("planProductsFront")
  .add(
    HttpApiEndpoint.get("list", "/api/v2/front/plan_products", {
      query: PlanProductListQuery,
      success: PlanProductFrontPage,
      error: [BadRequest, Unauthorized]
    }).annotateMerge(
      docs(
        "List plan products",
        `${visibility} By name, paginated (20 per page). \`location_ids\`: products with no location or one of these; ` +
          "`service_ids`: products usable with every service or with one of these."
      )
    )
  )
  .add(
    HttpApiEndpoint.get("get", "/api/v2/front/plan_products/:id", {
      params: { id: IdFromString },
      success: PlanProductFrontOne,
      error: [NotFound, Unauthorized]
    }).annotateMerge(docs("Get a plan product", "A product the caller may not buy is not found.", [PlanProductRefusals.planProductNotFound]))
  )
  .middleware(FrontAccess)
  .annotateMerge(docs("Plan products (client mode)"))
