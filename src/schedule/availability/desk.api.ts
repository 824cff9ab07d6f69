import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { DeskAccess } from "../../access/access.ts"
import { docs } from "../../shared/docs.ts"
import { BadRequest, NotFound } from "../../shared/errors.ts"
import { IdFromString, IdListFromString } from "../../shared/schemas.ts"
import { AvailabilitySummary, AvailableSlot, CalendarDate } from "./model.ts"
import { availabilityEndpointRefusals as REFUSALS } from "./refusals.ts"

const filters = {
  staff_member_ids: Schema.optional(IdListFromString.annotate({ description: "Only these staff members" })),
  location_ids: Schema.optional(IdListFromString.annotate({ description: "Only these locations" }))
}

export const SlotsQuery = {
  date: Schema.optional(CalendarDate.annotate({ description: "Default: today in the business's time zone" })),
  ...filters
}

export const SummaryQuery = {
  from: Schema.optional(CalendarDate.annotate({ description: "Default: today" })),
  to: Schema.optional(CalendarDate.annotate({ description: "Default: the last day of `from`'s month; at most 90 days with `from`, inclusive" })),
  ...filters
}

export const AvailabilityDeskApi = HttpApiGroup.make("availabilityDesk")
  .add(
    HttpApiEndpoint.get("slots", "/api/v2/desk/appointments/:service_id/available_slots", {
      params: { service_id: IdFromString },
      query: SlotsQuery,
      success: Schema.Struct({ available_slots: Schema.Array(AvailableSlot) }),
      error: NotFound
    }).annotateMerge(
      docs("Available appointment times of a date", "Every free start time of the date (default today), per staff member and location. Past times are left out.", REFUSALS.slots)
    )
  )
  .add(
    HttpApiEndpoint.get("summary", "/api/v2/desk/appointments/:service_id/available_slots/summary", {
      params: { service_id: IdFromString },
      query: SummaryQuery,
      success: AvailabilitySummary,
      error: [NotFound, BadRequest]
    }).annotateMerge(
      docs("Appointment availability per day", "As in client mode, without the client-mode rules. At most 90 days (400 beyond).", REFUSALS.summary)
    )
  )
  .middleware(DeskAccess)
  .annotateMerge(docs("Appointment availability (staff mode)"))
