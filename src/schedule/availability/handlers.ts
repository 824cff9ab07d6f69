import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { apiOf } from "../../shared/http-api.ts"
import { AvailabilityFrontApi } from "./front.api.ts"
import { AvailabilityDeskApi } from "./desk.api.ts"
import { staffCaller } from "../../access/caller.ts"
import { frontCaller } from "../../catalog/services/callers.ts"
import { availabilitySummary, availableSlots } from "./service.ts"

export const AvailabilityFrontLive = HttpApiBuilder.group(apiOf(AvailabilityFrontApi), "availabilityFront", (handlers) =>
  handlers
    .handle("slots", ({ params, query }) => Effect.flatMap(frontCaller, (caller) => availableSlots(params.service_id, query, caller)))
    .handle("summary", ({ params, query }) =>
      Effect.flatMap(frontCaller, (caller) => availabilitySummary(params.service_id, query, caller))))

export const AvailabilityDeskLive = HttpApiBuilder.group(apiOf(AvailabilityDeskApi), "availabilityDesk", (handlers) =>
  handlers
    .handle("slots", ({ params, query }) => Effect.flatMap(staffCaller, (caller) => availableSlots(params.service_id, query, caller)))
    .handle("summary", ({ params, query }) => Effect.flatMap(staffCaller, (caller) => availabilitySummary(params.service_id, query, caller))))
