import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { apiOf } from "../../shared/http-api.ts"
import { EventsFrontApi } from "./front.api.ts"
import { EventsDeskApi } from "./desk.api.ts"
import { staffCaller } from "../../access/caller.ts"
import { frontCaller } from "../../catalog/services/callers.ts"
import { getEvent, listEvents } from "./service.ts"

export const EventsFrontLive = HttpApiBuilder.group(apiOf(EventsFrontApi), "eventsFront", (handlers) =>
  handlers
    .handle("list", ({ query }) => Effect.flatMap(frontCaller, (caller) => listEvents(query, caller)))
    .handle("get", ({ params }) => Effect.flatMap(frontCaller, (caller) => getEvent(params.id, caller))))

export const EventsDeskLive = HttpApiBuilder.group(apiOf(EventsDeskApi), "eventsDesk", (handlers) =>
  handlers
    .handle("list", ({ query }) => Effect.flatMap(staffCaller, (caller) => listEvents(query, caller)))
    .handle("get", ({ params }) => Effect.flatMap(staffCaller, (caller) => getEvent(params.id, caller))))
