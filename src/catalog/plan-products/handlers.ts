import { HttpApiBuilder } from "effect/http-api"
import { apiOf } from "../../shared/http-api.ts"
import { PlanProductsDeskApi } from "./desk.api.ts"
import { PlanProductsFrontApi } from "./front.api.ts"
import { getDeskPlanProduct, getFrontPlanProduct, listDeskPlanProducts, listFrontPlanProducts } from "./service.ts"

export const PlanProductsFrontLive = HttpApiBuilder.group(apiOf(PlanProductsFrontApi), "planProductsFront", (handlers) =>
  handlers
    .handle("list", ({ query }) => listFrontPlanProducts(query))
    .handle("get", ({ params }) => getFrontPlanProduct(params.id)))

export const PlanProductsDeskLive = HttpApiBuilder.group(apiOf(PlanProductsDeskApi), "planProductsDesk", (handlers) =>
  handlers
    .handle("list", ({ query }) => listDeskPlanProducts(query))
    .handle("get", ({ params }) => getDeskPlanProduct(params.id)))
