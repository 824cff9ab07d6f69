import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { DeskAccess } from "../../access/access.ts"
import { docs } from "../../shared/docs.ts"
import { PlanProductRefusals } from "./refusals.ts"
import { BadRequest, NotFound } from "../../shared/errors.ts"
import { IdFromString } from "../../shared/schemas.ts"
import { PlanProductDeskOne, PlanProductDeskPage, PlanProductListQuery } from "./model.ts"

export const PlanProductsDeskApi = HttpApiGroup.make("planProductsDesk")
  .add(
    HttpApiEndpoint.get("list", "/api/v2/desk/plan_products", {
      query: PlanProductListQuery,
      success: PlanProductDeskPage,
      error: BadRequest
    }).annotateMerge(
      docs(
        "List plan products",
        "Memberships, prepaid plans, packs and single-visit passes: every product not deleted, suspended included, by name, " +
          "paginated (20 per page). `location_ids`: products with no location or one of these; `service_ids`: products usable " +
          "with every service or with one of these."
      )
    )
  )
  .add(
    HttpApiEndpoint.get("get", "/api/v2/desk/plan_products/:id", {
      params: { id: IdFromString },
      success: PlanProductDeskOne,
      error: NotFound
    }).annotateMerge(docs("Get a plan product", "A deleted product is not found (the plans sold from it keep working).", [
        PlanProductRefusals.planProductNotFound
      ]))
  )
  .middleware(DeskAccess)
  .annotateMerge(docs("Plan products (staff mode)"))
