import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "effect/http-api"
import { FrontAccess } from "../../access/access.ts"
import { docs } from "../../shared/docs.ts"
import { NotFound, Unauthorized, Unprocessable } from "../../shared/errors.ts"
import { IdFromString } from "../../shared/schemas.ts"
import { BOOKING_RULES as RULES, BookingsResponse, FrontBookingInput, FrontLeaseInput, LeasesResponse } from "./model.ts"
import { bookingEndpointRefusals as REFUSALS } from "./refusals.ts"

export const BookingsFrontApi = HttpApiGroup.make("bookingsFront")
  .add(
    HttpApiEndpoint.post("create", "/api/v2/front/bookings", {
      payload: Schema.Struct({ booking: FrontBookingInput }),
      success: BookingsResponse.pipe(HttpApiSchema.status(201)),
      error: [NotFound, Unauthorized, Unprocessable]
    }).annotateMerge(
      docs(
        "Create a booking",
        RULES.create + " Client mode: `person.id` is the token's person or one of their dependents (another is a 404); " +
          "a lease may leave it out and get it later (PUT lease). Needs a token (a `client_id` alone is a 401).",
        REFUSALS.create
      )
    )
  )
  .add(
    HttpApiEndpoint.get("get", "/api/v2/front/bookings/:id", {
      params: { id: IdFromString },
      success: BookingsResponse,
      error: [NotFound, Unauthorized]
    }).annotateMerge(docs("Get a booking", "Only a booking the token's person made; any other is a 404.", REFUSALS.get))
  )
  .add(
    HttpApiEndpoint.put("complete", "/api/v2/front/bookings/:id", {
      params: { id: IdFromString },
      success: BookingsResponse,
      error: [NotFound, Unauthorized, Unprocessable]
    }).annotateMerge(docs("Complete a booking", RULES.complete, REFUSALS.complete))
  )
  .add(
    HttpApiEndpoint.delete("delete", "/api/v2/front/bookings/:id", {
      params: { id: IdFromString },
      error: [NotFound, Unauthorized]
    }).annotateMerge(docs("Delete a booking", RULES.delete, REFUSALS.delete))
  )
  .add(
    HttpApiEndpoint.post("addLease", "/api/v2/front/bookings/:booking_id/leases", {
      params: { booking_id: IdFromString },
      payload: Schema.Struct({ lease: FrontLeaseInput }),
      success: LeasesResponse.pipe(HttpApiSchema.status(201)),
      error: [NotFound, Unauthorized, Unprocessable]
    }).annotateMerge(docs("Add a lease", RULES.addLease, REFUSALS.addLease))
  )
  .add(
    HttpApiEndpoint.get("getLease", "/api/v2/front/bookings/:booking_id/leases/:id", {
      params: { booking_id: IdFromString, id: IdFromString },
      success: LeasesResponse,
      error: [NotFound, Unauthorized]
    }).annotateMerge(docs("Get a lease", "A lease of a booking the token's person made.", REFUSALS.getLease))
  )
  .add(
    HttpApiEndpoint.put("updateLease", "/api/v2/front/bookings/:booking_id/leases/:id", {
      params: { booking_id: IdFromString, id: IdFromString },
      payload: Schema.Struct({ lease: FrontLeaseInput }),
      success: LeasesResponse,
      error: [NotFound, Unauthorized, Unprocessable]
    }).annotateMerge(docs("Change the person on a lease", RULES.updateLease + " `person.id`: the token's person or a dependent.", REFUSALS.updateLease))
  )
  .add(
    HttpApiEndpoint.delete("deleteLease", "/api/v2/front/bookings/:booking_id/leases/:id", {
      params: { booking_id: IdFromString, id: IdFromString },
      error: [NotFound, Unauthorized, Unprocessable]
    }).annotateMerge(docs("Delete a lease", RULES.deleteLease, REFUSALS.deleteLease))
  )
  .middleware(FrontAccess)
  .annotateMerge(docs("Bookings and leases (client mode)"))
