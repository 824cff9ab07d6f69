import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { apiOf } from "../../shared/http-api.ts"
import { AvailabilityFrontApi } from "./front.api.ts"
import { AvailabilityDeskApi } from "./desk.api.ts"
import { clientAudience, staffAudience } from "../../catalog/services/service.ts"
import { availabilitySummary, availableSlots } from "./service.ts"

export const AvailabilityFrontLive = HttpApiBuilder.group(apiOf(AvailabilityFrontApi), "availabilityFront", (handlers) =>
  handlers
    .handle("slots", ({ params, query }) => Effect.flatMap(clientAudience, (audience) => availableSlots(params.service_id, query, audience)))
    .handle("summary", ({ params, query }) =>
      Effect.flatMap(clientAudience, (audience) => availabilitySummary(params.service_id, query, audience))))

export const AvailabilityDeskLive = HttpApiBuilder.group(apiOf(AvailabilityDeskApi), "availabilityDesk", (handlers) =>
  handlers
    .handle("slots", ({ params, query }) => availableSlots(params.service_id, query, staffAudience))
    .handle("summary", ({ params, query }) => availabilitySummary(params.service_id, query, staffAudience)))
