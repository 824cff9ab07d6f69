import { BadRequest, NotFound } from "../../shared/errors.ts"
import { type Refusal, refusal } from "../../shared/refusals.ts"
import { EventOccurrenceRefusals } from "../../schedule/event-occurrences/refusals.ts"

/**
 * Every refusal of the eligibility endpoints: unknown filters are a 400, like a malformed query.
 * The eligibility codes themselves are answers, not refusals (a visit refuses with them: src/enrollment/visits/refusals.ts).
 */
export const EligibilityRefusals = {
  fieldIdNotFound: refusal(BadRequest, "field_id_not_found"),
  eventNotOfService: refusal(BadRequest, "event_not_of_service"),
  serviceNotFound: refusal(NotFound, "service_not_found"),
  personNotFound: refusal(NotFound, "person_not_found")
}

const R = EligibilityRefusals
/** Each eligibility endpoint's refusals. */
export const eligibilityEndpointRefusals = {
  occurrence: [EventOccurrenceRefusals.eventOccurrenceNotFound, R.personNotFound],
  service: [R.serviceNotFound, R.personNotFound, R.fieldIdNotFound, R.eventNotOfService]
} satisfies Record<string, ReadonlyArray<Refusal>>
