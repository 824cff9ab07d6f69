import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { DeskAccess } from "../../access/access.ts"
import { docs } from "../../shared/docs.ts"
import { BadRequest, NotFound } from "../../shared/errors.ts"
import { IdFromString } from "../../shared/schemas.ts"
import { EnrollmentEligibility, OccurrenceEligibilityQueryDesk, ServiceEligibilityQueryDesk } from "./model.ts"
import { eligibilityEndpointRefusals as REFUSALS } from "./refusals.ts"

const success = Schema.Struct({ enrollment_eligibilities: Schema.Array(EnrollmentEligibility) })

export const EligibilityDeskApi = HttpApiGroup.make("eligibilityDesk")
  .add(
    HttpApiEndpoint.get("occurrence", "/api/v2/desk/event_occurrences/:event_occurrence_id/enrollment_eligibilities", {
      params: { event_occurrence_id: IdFromString },
      query: OccurrenceEligibilityQueryDesk,
      success,
      error: NotFound
    }).annotateMerge(docs("Can these people enroll in this event occurrence?", "One record per person of `person_ids`, in that order; no dependents.", REFUSALS.occurrence))
  )
  .add(
    HttpApiEndpoint.get("service", "/api/v2/desk/services/:service_id/enrollment_eligibilities", {
      params: { service_id: IdFromString },
      query: ServiceEligibilityQueryDesk,
      success,
      error: [NotFound, BadRequest]
    }).annotateMerge(
      docs(
        "Can these people enroll in this service?",
        "One record per person of `person_ids`, in that order; no dependents. `event_id`, `location_id` and `staff_member_ids` that do not exist are a 400.",
        REFUSALS.service
      )
    )
  )
  .middleware(DeskAccess)
  .annotateMerge(docs("Enrollment eligibility (staff mode)"))
