import { BadRequest } from "../../shared/errors.ts"
import { refusal } from "../../shared/refusals.ts"

/**
 * Every refusal of the eligibility endpoints: unknown filters are a 400, like a malformed query.
 * The eligibility codes themselves are answers, not refusals (a visit refuses with them: src/enrollment/visits/refusals.ts).
 */
export const EligibilityRefusals = {
  fieldIdNotFound: refusal(BadRequest, "field_id_not_found"),
  eventNotOfService: refusal(BadRequest, "event_not_of_service")
}
