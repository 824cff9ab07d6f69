import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { apiOf } from "../../shared/http-api.ts"
import { EventOccurrencesFrontApi } from "./front.api.ts"
import { EventOccurrencesDeskApi } from "./desk.api.ts"
import { clientAudience, staffAudience } from "../../catalog/services/service.ts"
import { completeAttendance } from "./attendance.ts"
import { getDeskOccurrence, getFrontOccurrence, listOccurrences, summarizeOccurrences } from "./service.ts"

export const EventOccurrencesFrontLive = HttpApiBuilder.group(apiOf(EventOccurrencesFrontApi), "eventOccurrencesFront", (handlers) =>
  handlers
    .handle("list", ({ query }) => Effect.flatMap(clientAudience, (audience) => listOccurrences(query, audience)))
    .handle("summary", ({ query }) => Effect.flatMap(clientAudience, (audience) => summarizeOccurrences(query, audience)))
    .handle("get", ({ params }) => Effect.flatMap(clientAudience, (audience) => getFrontOccurrence(params.id, audience))))

export const EventOccurrencesDeskLive = HttpApiBuilder.group(apiOf(EventOccurrencesDeskApi), "eventOccurrencesDesk", (handlers) =>
  handlers
    .handle("list", ({ query }) => listOccurrences(query, staffAudience))
    .handle("summary", ({ query }) => summarizeOccurrences(query, staffAudience))
    .handle("get", ({ params }) => getDeskOccurrence(params.id))
    .handle("update", ({ params }) => completeAttendance(params.id)))
