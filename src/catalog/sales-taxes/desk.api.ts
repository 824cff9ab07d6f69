import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { DeskAccess } from "../../access/access.ts"
import { docs } from "../../shared/docs.ts"
import { SalesTaxRefusals } from "./refusals.ts"
import { BadRequest, NotFound } from "../../shared/errors.ts"
import { IdFromString } from "../../shared/schemas.ts"
import { SalesTaxListQuery, SalesTaxOne, SalesTaxPage } from "./model.ts"

export const SalesTaxesDeskApi = HttpApiGroup.make("salesTaxesDesk")
  .add(
    HttpApiEndpoint.get("list", "/api/v2/desk/sales_taxes", {
      query: SalesTaxListQuery,
      success: SalesTaxPage,
      error: BadRequest
    }).annotateMerge(docs("List sales taxes", "By name, paginated (20 per page)."))
  )
  .add(
    HttpApiEndpoint.get("get", "/api/v2/desk/sales_taxes/:id", {
      params: { id: IdFromString },
      success: SalesTaxOne,
      error: NotFound
    }).annotateMerge(
      docs("Get a sales tax", "An object under `sales_taxes` (not a list), as the public API answers, with the `locations` it applies at and their rates.", [
        SalesTaxRefusals.salesTaxNotFound
      ])
    )
  )
  .middleware(DeskAccess)
  .annotateMerge(docs("Sales taxes (staff mode)"))
