import { HttpApiBuilder } from "effect/http-api"
import { apiOf } from "../../shared/http-api.ts"
import { ServicesFrontApi } from "./front.api.ts"
import { ServicesDeskApi } from "./desk.api.ts"
import { getDeskService, getFrontService, listDeskServices, listFrontServices } from "./service.ts"

export const ServicesFrontLive = HttpApiBuilder.group(apiOf(ServicesFrontApi), "servicesFront", (handlers) =>
  handlers
    .handle("list", ({ query }) => listFrontServices(query))
    .handle("get", ({ params }) => getFrontService(params.id)))

export const ServicesDeskLive = HttpApiBuilder.group(apiOf(ServicesDeskApi), "servicesDesk", (handlers) =>
  handlers
    .handle("list", ({ query }) => listDeskServices(query))
    .handle("get", ({ params }) => getDeskService(params.id)))
