import { HttpApiBuilder } from "effect/http-api"
import { apiOf } from "../../shared/http-api.ts"
import { RevenueCategoriesDeskApi } from "./desk.api.ts"
import { getRevenueCategory, listRevenueCategories } from "./service.ts"

export const RevenueCategoriesDeskLive = HttpApiBuilder.group(apiOf(RevenueCategoriesDeskApi), "revenueCategoriesDesk", (handlers) =>
  handlers
    .handle("list", ({ query }) => listRevenueCategories(query))
    .handle("get", ({ params }) => getRevenueCategory(params.id)))
