import { HttpApiBuilder } from "effect/http-api"
import { apiOf } from "../../shared/http-api.ts"
import { EligibilityFrontApi } from "./front.api.ts"
import { EligibilityDeskApi } from "./desk.api.ts"
import { deskOccurrenceEligibilities, deskServiceEligibilities, frontOccurrenceEligibilities, frontServiceEligibilities } from "./service.ts"

export const EligibilityFrontLive = HttpApiBuilder.group(apiOf(EligibilityFrontApi), "eligibilityFront", (handlers) =>
  handlers
    .handle("occurrence", ({ params }) => frontOccurrenceEligibilities(params.event_occurrence_id))
    .handle("service", ({ params, query }) => frontServiceEligibilities(params.service_id, query)))

export const EligibilityDeskLive = HttpApiBuilder.group(apiOf(EligibilityDeskApi), "eligibilityDesk", (handlers) =>
  handlers
    .handle("occurrence", ({ params, query }) => deskOccurrenceEligibilities(params.event_occurrence_id, query.person_ids))
    .handle("service", ({ params, query }) => deskServiceEligibilities(params.service_id, query)))
