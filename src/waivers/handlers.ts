import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../api.ts"
import { listDeskWaivers, listFrontWaivers } from "./service.ts"

export const WaiversFrontLive = HttpApiBuilder.group(Api, "waiversFront", (handlers) =>
  handlers.handle("list", ({ params, query }) => listFrontWaivers(params.person_id, query)))

export const WaiversDeskLive = HttpApiBuilder.group(Api, "waiversDesk", (handlers) =>
  handlers.handle("list", ({ params, query }) => listDeskWaivers(params.person_id, query)))
