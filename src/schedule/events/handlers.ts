import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { apiOf } from "../../shared/http-api.ts"
import { EventsFrontApi } from "./front.api.ts"
import { EventsDeskApi } from "./desk.api.ts"
import { clientAudience, staffAudience } from "../../catalog/services/service.ts"
import { getEvent, listEvents } from "./service.ts"

export const EventsFrontLive = HttpApiBuilder.group(apiOf(EventsFrontApi), "eventsFront", (handlers) =>
  handlers
    .handle("list", ({ query }) => Effect.flatMap(clientAudience, (audience) => listEvents(query, audience)))
    .handle("get", ({ params }) => Effect.flatMap(clientAudience, (audience) => getEvent(params.id, audience))))

export const EventsDeskLive = HttpApiBuilder.group(apiOf(EventsDeskApi), "eventsDesk", (handlers) =>
  handlers
    .handle("list", ({ query }) => listEvents(query, staffAudience))
    .handle("get", ({ params }) => getEvent(params.id, staffAudience)))
