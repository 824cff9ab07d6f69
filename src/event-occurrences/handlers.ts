import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../api.ts"
import { clientAudience, staffAudience } from "../services/service.ts"
import { getDeskOccurrence, getFrontOccurrence, listOccurrences, summarizeOccurrences } from "./service.ts"

export const EventOccurrencesFrontLive = HttpApiBuilder.group(Api, "eventOccurrencesFront", (handlers) =>
  handlers
    .handle("list", ({ query }) => Effect.flatMap(clientAudience, (audience) => listOccurrences(query, audience)))
    .handle("summary", ({ query }) => Effect.flatMap(clientAudience, (audience) => summarizeOccurrences(query, audience)))
    .handle("get", ({ params }) => Effect.flatMap(clientAudience, (audience) => getFrontOccurrence(params.id, audience))))

export const EventOccurrencesDeskLive = HttpApiBuilder.group(Api, "eventOccurrencesDesk", (handlers) =>
  handlers
    .handle("list", ({ query }) => listOccurrences(query, staffAudience))
    .handle("summary", ({ query }) => summarizeOccurrences(query, staffAudience))
    .handle("get", ({ params }) => getDeskOccurrence(params.id)))
