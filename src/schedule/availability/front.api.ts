import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { FrontAccess } from "../../access/access.ts"
import { docs } from "../../shared/docs.ts"
import { BadRequest, NotFound } from "../../shared/errors.ts"
import { IdFromString } from "../../shared/schemas.ts"
import { SlotsQuery, SummaryQuery } from "./desk.api.ts"
import { AvailabilitySummary, AvailableSlot } from "./model.ts"
import { availabilityEndpointRefusals as REFUSALS } from "./refusals.ts"

export const AvailabilityFrontApi = HttpApiGroup.make("availabilityFront")
  .add(
    HttpApiEndpoint.get("slots", "/api/v2/front/appointments/:service_id/available_slots", {
      params: { service_id: IdFromString },
      query: SlotsQuery,
      success: Schema.Struct({ available_slots: Schema.Array(AvailableSlot) }),
      error: NotFound
    }).annotateMerge(
      docs(
        "Available appointment times of a date",
        "Every free start time of the date (default today), per staff member and location, by time. Past times, staff hidden " +
          "from clients, times inside the service's blackout window and times beyond its booking window are left out. " +
          "An appointment service the caller may not see is not found.",
        REFUSALS.slots
      )
    )
  )
  .add(
    HttpApiEndpoint.get("summary", "/api/v2/front/appointments/:service_id/available_slots/summary", {
      params: { service_id: IdFromString },
      query: SummaryQuery,
      success: AvailabilitySummary,
      error: [NotFound, BadRequest]
    }).annotateMerge(
      docs(
        "Appointment availability per day",
        "A bare object: date → score, the day's free times over the most any day of the range has (1). `from` defaults to today, " +
          "`to` to the end of `from`'s month; the range is inclusive and at most 90 days (400 beyond). No scores for past days.",
        REFUSALS.summary
      )
    )
  )
  .middleware(FrontAccess)
  .annotateMerge(docs("Appointment availability (client mode)"))
