import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { FrontAccess } from "../../access/access.ts"
import { docs } from "../../shared/docs.ts"
import { BadRequest, NotFound, Unauthorized } from "../../shared/errors.ts"
import { IdFromString } from "../../shared/schemas.ts"
import { EnrollmentEligibility, ServiceEligibilityQuery } from "./model.ts"
import { eligibilityEndpointRefusals as REFUSALS } from "./refusals.ts"

const success = Schema.Struct({ enrollment_eligibilities: Schema.Array(EnrollmentEligibility) })

export const EligibilityFrontApi = HttpApiGroup.make("eligibilityFront")
  .add(
    HttpApiEndpoint.get("occurrence", "/api/v2/front/event_occurrences/:event_occurrence_id/enrollment_eligibilities", {
      params: { event_occurrence_id: IdFromString },
      success,
      error: [NotFound, Unauthorized]
    }).annotateMerge(
      docs(
        "Can I enroll in this event occurrence?",
        "One record for the token's person, then one per dependent. Needs a token (a `client_id` alone is a 401).",
        REFUSALS.occurrence
      )
    )
  )
  .add(
    HttpApiEndpoint.get("service", "/api/v2/front/services/:service_id/enrollment_eligibilities", {
      params: { service_id: IdFromString },
      query: ServiceEligibilityQuery,
      success,
      error: [NotFound, Unauthorized, BadRequest]
    }).annotateMerge(
      docs(
        "Can I enroll in this service?",
        "One record for the token's person, then one per dependent. `event_id`, `location_id` and `staff_member_ids` that do " +
          "not exist (or clients cannot see) are a 400, as is an event of another service.",
        REFUSALS.service
      )
    )
  )
  .middleware(FrontAccess)
  .annotateMerge(docs("Enrollment eligibility (client mode)"))
