import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { apiOf } from "../../shared/http-api.ts"
import { EventOccurrencesFrontApi } from "./front.api.ts"
import { EventOccurrencesDeskApi } from "./desk.api.ts"
import { staffCaller } from "../../access/caller.ts"
import { frontCaller } from "../../catalog/services/callers.ts"
import { completeAttendance } from "./attendance.ts"
import { getDeskOccurrence, getFrontOccurrence, listOccurrences, summarizeOccurrences } from "./service.ts"

export const EventOccurrencesFrontLive = HttpApiBuilder.group(apiOf(EventOccurrencesFrontApi), "eventOccurrencesFront", (handlers) =>
  handlers
    .handle("list", ({ query }) => Effect.flatMap(frontCaller, (caller) => listOccurrences(query, caller)))
    .handle("summary", ({ query }) => Effect.flatMap(frontCaller, (caller) => summarizeOccurrences(query, caller)))
    .handle("get", ({ params }) => Effect.flatMap(frontCaller, (caller) => getFrontOccurrence(params.id, caller))))

export const EventOccurrencesDeskLive = HttpApiBuilder.group(apiOf(EventOccurrencesDeskApi), "eventOccurrencesDesk", (handlers) =>
  handlers
    .handle("list", ({ query }) => Effect.flatMap(staffCaller, (caller) => listOccurrences(query, caller)))
    .handle("summary", ({ query }) => Effect.flatMap(staffCaller, (caller) => summarizeOccurrences(query, caller)))
    .handle("get", ({ params }) => getDeskOccurrence(params.id))
    .handle("update", ({ params }) => completeAttendance(params.id)))
