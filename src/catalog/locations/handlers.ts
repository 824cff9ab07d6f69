import { HttpApiBuilder } from "effect/http-api"
import { apiOf } from "../../shared/http-api.ts"
import { LocationsFrontApi } from "./front.api.ts"
import { LocationsDeskApi } from "./desk.api.ts"
import { getLocation, listLocations } from "./service.ts"

export const LocationsFrontLive = HttpApiBuilder.group(apiOf(LocationsFrontApi), "locationsFront", (handlers) =>
  handlers
    .handle("list", ({ query }) => listLocations(query, { clientVisibleOnly: true }))
    .handle("get", ({ params }) => getLocation(params.id, { clientVisibleOnly: true })))

export const LocationsDeskLive = HttpApiBuilder.group(apiOf(LocationsDeskApi), "locationsDesk", (handlers) =>
  handlers
    .handle("list", ({ query }) => listLocations(query, { clientVisibleOnly: false }))
    .handle("get", ({ params }) => getLocation(params.id, { clientVisibleOnly: false })))
