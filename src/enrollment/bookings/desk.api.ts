import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "effect/http-api"
import { DeskAccess } from "../../access/access.ts"
import { docs } from "../../shared/docs.ts"
import { NotFound, Unprocessable } from "../../shared/errors.ts"
import { IdFromString } from "../../shared/schemas.ts"
import { BOOKING_RULES as RULES, BookingsResponse, DeskBookingInput, DeskLeaseInput, LeasesResponse } from "./model.ts"
import { bookingEndpointRefusals as REFUSALS } from "./refusals.ts"

const PERSON =
  " Staff mode `person`: `id` (existing), else `email` (an existing person of that address, else a new person with " +
  "`first_name`, `last_name`, `email`, optional `phone` and `send_invite`)."

export const BookingsDeskApi = HttpApiGroup.make("bookingsDesk")
  .add(
    HttpApiEndpoint.post("create", "/api/v2/desk/bookings", {
      payload: Schema.Struct({ booking: DeskBookingInput }),
      success: BookingsResponse.pipe(HttpApiSchema.status(201)),
      error: [NotFound, Unprocessable]
    }).annotateMerge(docs("Create a booking", RULES.create + PERSON, REFUSALS.create))
  )
  .add(
    HttpApiEndpoint.get("get", "/api/v2/desk/bookings/:id", {
      params: { id: IdFromString },
      success: BookingsResponse,
      error: NotFound
    }).annotateMerge(docs("Get a booking", "Any booking of the business.", REFUSALS.get))
  )
  .add(
    HttpApiEndpoint.put("complete", "/api/v2/desk/bookings/:id", {
      params: { id: IdFromString },
      success: BookingsResponse,
      error: [NotFound, Unprocessable]
    }).annotateMerge(docs("Complete a booking", RULES.complete, REFUSALS.complete))
  )
  .add(
    HttpApiEndpoint.delete("delete", "/api/v2/desk/bookings/:id", {
      params: { id: IdFromString },
      error: NotFound
    }).annotateMerge(docs("Delete a booking", RULES.delete, REFUSALS.delete))
  )
  .add(
    HttpApiEndpoint.post("addLease", "/api/v2/desk/bookings/:booking_id/leases", {
      params: { booking_id: IdFromString },
      payload: Schema.Struct({ lease: DeskLeaseInput }),
      success: LeasesResponse.pipe(HttpApiSchema.status(201)),
      error: [NotFound, Unprocessable]
    }).annotateMerge(docs("Add a lease", RULES.addLease + PERSON, REFUSALS.addLease))
  )
  .add(
    HttpApiEndpoint.get("getLease", "/api/v2/desk/bookings/:booking_id/leases/:id", {
      params: { booking_id: IdFromString, id: IdFromString },
      success: LeasesResponse,
      error: NotFound
    }).annotateMerge(docs("Get a lease", undefined, REFUSALS.getLease))
  )
  .add(
    HttpApiEndpoint.put("updateLease", "/api/v2/desk/bookings/:booking_id/leases/:id", {
      params: { booking_id: IdFromString, id: IdFromString },
      payload: Schema.Struct({ lease: DeskLeaseInput }),
      success: LeasesResponse,
      error: [NotFound, Unprocessable]
    }).annotateMerge(docs("Change the person on a lease", RULES.updateLease + PERSON, REFUSALS.updateLease))
  )
  .add(
    HttpApiEndpoint.delete("deleteLease", "/api/v2/desk/bookings/:booking_id/leases/:id", {
      params: { booking_id: IdFromString, id: IdFromString },
      error: [NotFound, Unprocessable]
    }).annotateMerge(docs("Delete a lease", RULES.deleteLease, REFUSALS.deleteLease))
  )
  .middleware(DeskAccess)
  .annotateMerge(docs("Bookings and leases (staff mode)"))
