import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { DeskAccess } from "../../access/access.ts"
import { docs } from "../../shared/docs.ts"
import { RevenueCategoryRefusals } from "./refusals.ts"
import { BadRequest, NotFound } from "../../shared/errors.ts"
import { IdFromString } from "../../shared/schemas.ts"
import { RevenueCategoryListQuery, RevenueCategoryOne, RevenueCategoryPage } from "./model.ts"

export const RevenueCategoriesDeskApi = HttpApiGroup.make("revenueCategoriesDesk")
  .add(
    HttpApiEndpoint.get("list", "/api/v2/desk/revenue_categories", {
      query: RevenueCategoryListQuery,
      success: RevenueCategoryPage,
      error: BadRequest
    }).annotateMerge(docs("List revenue categories", "By name, paginated (20 per page). Categories are never deleted."))
  )
  .add(
    HttpApiEndpoint.get("get", "/api/v2/desk/revenue_categories/:id", {
      params: { id: IdFromString },
      success: RevenueCategoryOne,
      error: NotFound
    }).annotateMerge(docs("Get a revenue category", "An object under `revenue_categories` (not a list), as the public API answers.", [
      RevenueCategoryRefusals.revenueCategoryNotFound
    ]))
  )
  .middleware(DeskAccess)
  .annotateMerge(docs("Revenue categories (staff mode)"))
