import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../api.ts"
import { getLocation, listLocations } from "./service.ts"

export const LocationsFrontLive = HttpApiBuilder.group(Api, "locationsFront", (handlers) =>
  handlers
    .handle("list", ({ query }) => listLocations(query, { clientVisibleOnly: true }))
    .handle("get", ({ params }) => getLocation(params.id, { clientVisibleOnly: true })))

export const LocationsDeskLive = HttpApiBuilder.group(Api, "locationsDesk", (handlers) =>
  handlers
    .handle("list", ({ query }) => listLocations(query, { clientVisibleOnly: false }))
    .handle("get", ({ params }) => getLocation(params.id, { clientVisibleOnly: false })))
