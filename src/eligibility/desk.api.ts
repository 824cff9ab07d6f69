import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { DeskAccess } from "../auth/access.ts"
import { docs } from "../shared/docs.ts"
import { BadRequest, NotFound } from "../shared/errors.ts"
import { IdFromString, IdListFromString, TimestampInput, positiveIntParam } from "../shared/schemas.ts"
import { EnrollmentEligibility } from "./model.ts"

const success = Schema.Struct({ enrollment_eligibilities: Schema.Array(EnrollmentEligibility) })

export const ServiceEligibilityQuery = {
  event_id: Schema.optional(positiveIntParam("An event of the service: used for full and already_enrolled on courses, and for the time, plan and card checks")),
  location_id: Schema.optional(positiveIntParam("Location of the visit (plan checks)")),
  staff_member_ids: Schema.optional(IdListFromString.annotate({ description: "Staff members of the visit (plan checks)" })),
  start_at: Schema.optional(TimestampInput.annotate({ description: "When the visit would start: plan, blackout window and past checks" }))
}

const personIds = IdListFromString.annotate({ description: "The people to check (required); people who do not exist are skipped" })

export const EligibilityDeskApi = HttpApiGroup.make("eligibilityDesk")
  .add(
    HttpApiEndpoint.get("occurrence", "/api/v2/desk/event_occurrences/:event_occurrence_id/enrollment_eligibilities", {
      params: { event_occurrence_id: IdFromString },
      query: { person_ids: personIds },
      success,
      error: NotFound
    }).annotateMerge(docs("Can these people enroll in this event occurrence?", "One record per person of `person_ids`, in that order; no dependents."))
  )
  .add(
    HttpApiEndpoint.get("service", "/api/v2/desk/services/:service_id/enrollment_eligibilities", {
      params: { service_id: IdFromString },
      query: { person_ids: personIds, ...ServiceEligibilityQuery },
      success,
      error: [NotFound, BadRequest]
    }).annotateMerge(
      docs(
        "Can these people enroll in this service?",
        "One record per person of `person_ids`, in that order; no dependents. `event_id`, `location_id` and `staff_member_ids` that do not exist are a 400."
      )
    )
  )
  .middleware(DeskAccess)
  .annotateMerge(docs("Enrollment eligibility (staff mode)"))
