import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../api.ts"
import { deskOccurrenceEligibilities, deskServiceEligibilities, frontOccurrenceEligibilities, frontServiceEligibilities } from "./service.ts"

export const EligibilityFrontLive = HttpApiBuilder.group(Api, "eligibilityFront", (handlers) =>
  handlers
    .handle("occurrence", ({ params }) => frontOccurrenceEligibilities(params.event_occurrence_id))
    .handle("service", ({ params, query }) => frontServiceEligibilities(params.service_id, query)))

export const EligibilityDeskLive = HttpApiBuilder.group(Api, "eligibilityDesk", (handlers) =>
  handlers
    .handle("occurrence", ({ params, query }) => deskOccurrenceEligibilities(params.event_occurrence_id, query.person_ids))
    .handle("service", ({ params, query }) => deskServiceEligibilities(params.service_id, query)))
