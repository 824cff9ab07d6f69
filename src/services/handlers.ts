import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../api.ts"
import { getDeskService, getFrontService, listDeskServices, listFrontServices } from "./service.ts"

export const ServicesFrontLive = HttpApiBuilder.group(Api, "servicesFront", (handlers) =>
  handlers
    .handle("list", ({ query }) => listFrontServices(query))
    .handle("get", ({ params }) => getFrontService(params.id)))

export const ServicesDeskLive = HttpApiBuilder.group(Api, "servicesDesk", (handlers) =>
  handlers
    .handle("list", ({ query }) => listDeskServices(query))
    .handle("get", ({ params }) => getDeskService(params.id)))
