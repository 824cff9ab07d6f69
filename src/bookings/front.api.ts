import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "effect/http-api"
import { FrontAccess } from "../auth/access.ts"
import { docs } from "../shared/docs.ts"
import { NotFound, Unauthorized, Unprocessable } from "../shared/errors.ts"
import { IdFromString } from "../shared/schemas.ts"
import { BookingWire, FrontBookingInput, FrontLeaseInput, LeaseWire } from "./model.ts"

export const bookingsResponse = Schema.Struct({ bookings: Schema.Array(BookingWire) })
export const leasesResponse = Schema.Struct({ leases: Schema.Array(LeaseWire) })

/** What a client reads from the rules; the desk descriptions say the same for staff. */
export const RULES = {
  create:
    "Leases are one of four shapes: `event_occurrence_id` (a group class session); `service_id`, `staff_member_id`, " +
    "`location_id`, `start_at` (an appointment in a free slot); `event_id` of a group class with `start_at` (the first " +
    "session, an exact session start) and `recurring` (every session from there on, else that one only); `event_id` of a " +
    "course with optional `start_at` (the run's sessions from then on, default those not started yet). Fields of another " +
    "shape are a 422. Each lease holds its places (all or nothing) until `expires_at`: default now + 10 minutes, at most " +
    "now + 20 minutes, not in the past. `complete_booking: true` registers at once (every lease needs a person). " +
    "`idempotency_token`: a repeat with the same body answers 201 with the booking it created, as it is now; the same " +
    "token with another body is a 422. 422 lists every failed rule (full, already enrolled, slot taken, ended...).",
  complete:
    "Registers every lease (their visits reserved → registered). Every lease needs a person: a 422 names each one without. " +
    "An expired booking is a 422; completing a completed one changes nothing (200). The body is ignored: leases are " +
    "added with POST leases.",
  delete:
    "Completed booking: only the booking goes, its visits stay. Otherwise its leases, their visits and appointments go " +
    "too, freeing their places. 204.",
  addLease: "One lease shape (see POST bookings). Only on an incomplete booking that has not expired (422).",
  updateLease:
    "Changes the person attending, only while the booking is incomplete. The leased service cannot change: shape fields " +
    "may be repeated unchanged, a different value is a 422 (delete the lease and create another). A person already on one " +
    "of the lease's occurrences is a 422.",
  deleteLease: "Only while the booking is not completed (422); what the lease held is released. 204."
}

export const BookingsFrontApi = HttpApiGroup.make("bookingsFront")
  .add(
    HttpApiEndpoint.post("create", "/api/v2/front/bookings", {
      payload: Schema.Struct({ booking: FrontBookingInput }),
      success: bookingsResponse.pipe(HttpApiSchema.status(201)),
      error: [NotFound, Unauthorized, Unprocessable]
    }).annotateMerge(
      docs(
        "Create a booking",
        RULES.create + " Client mode: `person.id` is the token's person or one of their dependents (another is a 404); " +
          "a lease may leave it out and get it later (PUT lease). Needs a token (a `client_id` alone is a 401)."
      )
    )
  )
  .add(
    HttpApiEndpoint.get("get", "/api/v2/front/bookings/:id", {
      params: { id: IdFromString },
      success: bookingsResponse,
      error: [NotFound, Unauthorized]
    }).annotateMerge(docs("Get a booking", "Only a booking the token's person made; any other is a 404."))
  )
  .add(
    HttpApiEndpoint.put("complete", "/api/v2/front/bookings/:id", {
      params: { id: IdFromString },
      success: bookingsResponse,
      error: [NotFound, Unauthorized, Unprocessable]
    }).annotateMerge(docs("Complete a booking", RULES.complete))
  )
  .add(
    HttpApiEndpoint.delete("delete", "/api/v2/front/bookings/:id", {
      params: { id: IdFromString },
      error: [NotFound, Unauthorized]
    }).annotateMerge(docs("Delete a booking", RULES.delete))
  )
  .add(
    HttpApiEndpoint.post("addLease", "/api/v2/front/bookings/:booking_id/leases", {
      params: { booking_id: IdFromString },
      payload: Schema.Struct({ lease: FrontLeaseInput }),
      success: leasesResponse.pipe(HttpApiSchema.status(201)),
      error: [NotFound, Unauthorized, Unprocessable]
    }).annotateMerge(docs("Add a lease", RULES.addLease))
  )
  .add(
    HttpApiEndpoint.get("getLease", "/api/v2/front/bookings/:booking_id/leases/:id", {
      params: { booking_id: IdFromString, id: IdFromString },
      success: leasesResponse,
      error: [NotFound, Unauthorized]
    }).annotateMerge(docs("Get a lease", "A lease of a booking the token's person made."))
  )
  .add(
    HttpApiEndpoint.put("updateLease", "/api/v2/front/bookings/:booking_id/leases/:id", {
      params: { booking_id: IdFromString, id: IdFromString },
      payload: Schema.Struct({ lease: FrontLeaseInput }),
      success: leasesResponse,
      error: [NotFound, Unauthorized, Unprocessable]
    }).annotateMerge(docs("Change the person on a lease", RULES.updateLease + " `person.id`: the token's person or a dependent."))
  )
  .add(
    HttpApiEndpoint.delete("deleteLease", "/api/v2/front/bookings/:booking_id/leases/:id", {
      params: { booking_id: IdFromString, id: IdFromString },
      error: [NotFound, Unauthorized, Unprocessable]
    }).annotateMerge(docs("Delete a lease", RULES.deleteLease))
  )
  .middleware(FrontAccess)
  .annotateMerge(docs("Bookings and leases (client mode)"))
