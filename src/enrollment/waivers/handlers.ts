import { HttpApiBuilder } from "effect/http-api"
import { apiOf } from "../../shared/http-api.ts"
import { WaiversDeskApi, WaiversFrontApi } from "./api.ts"
import { listDeskWaivers, listFrontWaivers } from "./service.ts"

export const WaiversFrontLive = HttpApiBuilder.group(apiOf(WaiversFrontApi), "waiversFront", (handlers) =>
  handlers.handle("list", ({ params, query }) => listFrontWaivers(params.person_id, query)))

export const WaiversDeskLive = HttpApiBuilder.group(apiOf(WaiversDeskApi), "waiversDesk", (handlers) =>
  handlers.handle("list", ({ params, query }) => listDeskWaivers(params.person_id, query)))
