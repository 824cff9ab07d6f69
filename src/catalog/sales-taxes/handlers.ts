import { HttpApiBuilder } from "effect/http-api"
import { apiOf } from "../../shared/http-api.ts"
import { SalesTaxesDeskApi } from "./desk.api.ts"
import { getSalesTax, listSalesTaxes } from "./service.ts"

export const SalesTaxesDeskLive = HttpApiBuilder.group(apiOf(SalesTaxesDeskApi), "salesTaxesDesk", (handlers) =>
  handlers
    .handle("list", ({ query }) => listSalesTaxes(query))
    .handle("get", ({ params }) => getSalesTax(params.id)))
