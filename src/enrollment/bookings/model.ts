import { Schema } from "effect"
import { BooleanInput, IntInput, Timestamp, TimestampInput } from "../../shared/schemas.ts"

/**
 * Bookings and leases (spec: "Bookings and leases"). A booking is a cart of leases held until
 * `expires_at`; a lease holds places through `reserved` visits it owns (one per occurrence it
 * covers) and becomes a registration when the booking completes. Wire shapes are ours
 * (docs/decisions.md, "Bookings and leases").
 */
export const BOOKING_STATES = ["incomplete", "completed", "expired"] as const
export type BookingState = (typeof BOOKING_STATES)[number]
export const LEASE_STATES = ["reserved", "registered", "expired"] as const
export type LeaseState = (typeof LEASE_STATES)[number]
export const LEASE_KINDS = ["event_occurrence", "appointment", "recurring", "course"] as const
export type LeaseKind = (typeof LEASE_KINDS)[number]

/** Spec, limits: a booking holds its places 10 minutes by default, at most 20. */
export const DEFAULT_HOLD_MS = 10 * 60_000
export const MAX_HOLD_MS = 20 * 60_000

// ---------------------------------------------------------------------------------------------
// Requests

const Text = Schema.optionalKey(Schema.NullOr(Schema.String).annotate({ messageKey: "field_must_be_string" }))
const Id = Schema.optionalKey(Schema.NullOr(IntInput))

/** Client mode: the attendee, the token's person or one of their dependents. */
export const FrontLeasePerson = Schema.Struct({
  id: IntInput.annotate({ description: "The attendee: the token's person or one of their dependents" })
}).annotate({ identifier: "FrontLeasePerson" })

/** Staff mode: an existing person by id or e-mail, or a new one (first_name, last_name, email). */
export const DeskLeasePerson = Schema.Struct({
  id: Id.annotate({ description: "An existing person" }),
  email: Text.annotate({ description: "An existing person by e-mail; else the new person's e-mail" }),
  first_name: Text.annotate({ description: "New person" }),
  last_name: Text.annotate({ description: "New person" }),
  phone: Text.annotate({ description: "New person" }),
  source: Text.annotate({ description: "Internal use; accepted and ignored" }),
  send_invite: Schema.optionalKey(BooleanInput.annotate({ description: "Mail the new person an invitation; default false" })),
  skip_new_client_passes: Schema.optionalKey(
    BooleanInput.annotate({
      description: "New person: true gives them the complimentary passes the business offers new clients (the spec's words); default false"
    })
  )
}).annotate({ identifier: "DeskLeasePerson" })
export type DeskLeasePerson = typeof DeskLeasePerson.Type

const leaseShapeFields = {
  event_occurrence_id: Id.annotate({ description: "Event occurrence lease: a group class session" }),
  service_id: Id.annotate({ description: "Appointment lease: an Appointment service" }),
  staff_member_id: Id.annotate({ description: "Appointment lease: who gives it" }),
  location_id: Id.annotate({ description: "Appointment lease: where" }),
  event_id: Id.annotate({ description: "Recurring group class or course lease: the event" }),
  start_at: Schema.optionalKey(
    Schema.NullOr(TimestampInput).annotate({
      description:
        "Appointment: its start (a free slot). Group class: the first session to attend (required). Course: the first session (default: today)"
    })
  ),
  recurring: Schema.optionalKey(
    BooleanInput.annotate({ description: "Group class (event_id): every session from start_at on (true) or that one only (false, default)" })
  )
}

export const FrontLeaseInput = Schema.Struct({
  ...leaseShapeFields,
  person: Schema.optionalKey(Schema.NullOr(FrontLeasePerson))
}).annotate({ identifier: "FrontLeaseInput" })
export const DeskLeaseInput = Schema.Struct({
  ...leaseShapeFields,
  person: Schema.optionalKey(Schema.NullOr(DeskLeasePerson))
}).annotate({ identifier: "DeskLeaseInput" })
/** What both modes send; the person is one of the two shapes. */
export type LeaseInput = typeof DeskLeaseInput.Type

const bookingFields = {
  idempotency_token: Schema.optionalKey(
    Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(255)).annotate({
      messageKey: "field_must_be_string",
      description: "Your unique key for this request (1-255 characters); a repeat returns the booking it created"
    })
  ),
  expires_at: Schema.optionalKey(
    TimestampInput.annotate({ description: "Default now + 10 minutes; at most now + 20 minutes; not in the past" })
  ),
  complete_booking: Schema.optionalKey(BooleanInput.annotate({ description: "Complete at once (every lease needs a person)" }))
}

export const FrontBookingInput = Schema.Struct({
  ...bookingFields,
  leases: Schema.optionalKey(Schema.Array(FrontLeaseInput))
}).annotate({ identifier: "FrontBookingInput" })
export const DeskBookingInput = Schema.Struct({
  ...bookingFields,
  leases: Schema.optionalKey(Schema.Array(DeskLeaseInput))
}).annotate({ identifier: "DeskBookingInput" })
export type BookingInput = typeof DeskBookingInput.Type

// ---------------------------------------------------------------------------------------------
// Responses

export const LeaseWire = Schema.Struct({
  id: Schema.Int,
  booking_id: Schema.Int,
  state: Schema.Literals(LEASE_STATES),
  kind: Schema.Literals(LEASE_KINDS),
  event_occurrence_id: Schema.NullOr(Schema.Int).annotate({
    description: "The occurrence leased (appointment: the one created for it; course and recurring: the first session)"
  }),
  event_occurrence_ids: Schema.Array(Schema.Int).annotate({
    description: "Every occurrence the lease holds or registered, by start; empty once expired"
  }),
  event_id: Schema.NullOr(Schema.Int),
  service_id: Schema.Int,
  staff_member_id: Schema.NullOr(Schema.Int),
  location_id: Schema.NullOr(Schema.Int),
  start_at: Schema.NullOr(Timestamp),
  recurring: Schema.Boolean,
  person: Schema.NullOr(Schema.Struct({ id: Schema.Int, name: Schema.String })),
  created_at: Timestamp,
  updated_at: Timestamp
}).annotate({ identifier: "Lease" })
export type LeaseWire = typeof LeaseWire.Type

export const BookingWire = Schema.Struct({
  id: Schema.Int,
  state: Schema.Literals(BOOKING_STATES),
  expires_at: Timestamp,
  completed_at: Schema.NullOr(Timestamp),
  idempotency_token: Schema.NullOr(Schema.String),
  person_id: Schema.NullOr(Schema.Int).annotate({ description: "Who booked in client mode; null for staff bookings" }),
  created_at: Timestamp,
  updated_at: Timestamp,
  leases: Schema.Array(LeaseWire)
}).annotate({ identifier: "Booking" })
export type BookingWire = typeof BookingWire.Type

// ---------------------------------------------------------------------------------------------
// Rows

export const BookingRow = Schema.Struct({
  id: Schema.Number,
  state: Schema.Literals(BOOKING_STATES),
  person_id: Schema.NullOr(Schema.Number),
  created_by_staff_member_id: Schema.NullOr(Schema.Number),
  idempotency_token: Schema.NullOr(Schema.String),
  request_digest: Schema.NullOr(Schema.String),
  expires_at: Schema.Date,
  completed_at: Schema.NullOr(Schema.Date),
  created_at: Schema.Date,
  updated_at: Schema.Date
})
export type BookingRow = typeof BookingRow.Type

export const LeaseRow = Schema.Struct({
  id: Schema.Number,
  booking_id: Schema.Number,
  kind: Schema.Literals(LEASE_KINDS),
  state: Schema.Literals(LEASE_STATES),
  person_id: Schema.NullOr(Schema.Number),
  person_name: Schema.NullOr(Schema.String),
  event_occurrence_id: Schema.NullOr(Schema.Number),
  event_id: Schema.NullOr(Schema.Number),
  service_id: Schema.Number,
  staff_member_id: Schema.NullOr(Schema.Number),
  location_id: Schema.NullOr(Schema.Number),
  start_at: Schema.NullOr(Schema.Date),
  recurring: Schema.Boolean,
  occurrence_ids: Schema.Array(Schema.Number),
  created_at: Schema.Date,
  updated_at: Schema.Date
})
export type LeaseRow = typeof LeaseRow.Type

export interface LeaseInsert {
  readonly kind: LeaseKind
  readonly state: LeaseState
  readonly person_id: number | null
  readonly event_occurrence_id: number | null
  readonly event_id: number | null
  readonly service_id: number
  readonly staff_member_id: number | null
  readonly location_id: number | null
  readonly start_at: Date | null
  readonly recurring: boolean
  readonly created_at: Date
  readonly updated_at: Date
}

// ---------------------------------------------------------------------------------------------
// Answers of the booking endpoints (both modes)

export const BookingsResponse = Schema.Struct({ bookings: Schema.Array(BookingWire) })
export const LeasesResponse = Schema.Struct({ leases: Schema.Array(LeaseWire) })

/** What a client reads from the rules; the desk descriptions say the same for staff. */
export const BOOKING_RULES = {
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
