import { NotFound, Unprocessable } from "../../shared/errors.ts"
import { type Refusal, refusal } from "../../shared/refusals.ts"
import { VisitRefusals } from "../visits/refusals.ts"

/** Every refusal of the bookings and leases endpoints (the enrollment rules a lease meets are the visits'). */
export const BookingRefusals = {
  bookingNotFound: refusal(NotFound, "booking_not_found"),
  leaseNotFound: refusal(NotFound, "lease_not_found"),
  personNotFound: refusal(NotFound, "person_not_found"),
  bookingCompleted: refusal(Unprocessable, "booking_completed"),
  bookingExpired: refusal(Unprocessable, "booking_expired"),
  bookingIdempotencyMismatch: refusal(Unprocessable, "booking_idempotency_mismatch"),
  bookingExpiresAtPast: refusal(Unprocessable, "booking_expires_at_past"),
  bookingExpiresAtTooFar: refusal(Unprocessable, "booking_expires_at_too_far"),
  leasePersonMissing: refusal(Unprocessable, "lease_person_missing"),
  leaseKindRequired: refusal(Unprocessable, "lease_kind_required"),
  leaseFieldConflict: refusal(Unprocessable, "lease_field_conflict"),
  leaseFieldNotAllowed: refusal(Unprocessable, "lease_field_not_allowed"),
  leaseWrongServiceType: refusal(Unprocessable, "lease_wrong_service_type"),
  leaseSessionNotFound: refusal(Unprocessable, "lease_session_not_found"),
  leaseNoSessions: refusal(Unprocessable, "lease_no_sessions"),
  leaseSlotUnavailable: refusal(Unprocessable, "lease_slot_unavailable"),
  leaseServiceUnchangeable: refusal(Unprocessable, "lease_service_unchangeable"),
  fieldRequired: refusal(Unprocessable, "field_required"),
  fieldIdNotFound: refusal(Unprocessable, "field_id_not_found")
}

const R = BookingRefusals
const V = VisitRefusals

/** What resolving and writing a lease body can refuse (POST bookings, POST leases). */
export const leaseShapeRefusals: ReadonlyArray<Refusal> = [
  R.personNotFound, R.fieldRequired, R.fieldIdNotFound, R.leaseKindRequired, R.leaseFieldConflict, R.leaseFieldNotAllowed,
  R.leaseWrongServiceType, R.leaseSessionNotFound, R.leaseNoSessions, R.leaseSlotUnavailable,
  V.eligibilityAlreadyEnrolled, V.eligibilityCancelled, V.eligibilityDeleted, V.eligibilityFull, V.eligibilityInThePast,
  V.eligibilityInsideBlackoutWindow, V.eligibilityClientModeBookingNotAllowed
]

/** Each bookings endpoint's refusals, both modes. */
export const bookingEndpointRefusals = {
  create: [R.bookingIdempotencyMismatch, R.bookingExpiresAtPast, R.bookingExpiresAtTooFar, ...leaseShapeRefusals],
  get: [R.bookingNotFound],
  complete: [R.bookingNotFound, R.bookingExpired, R.leasePersonMissing],
  delete: [R.bookingNotFound],
  addLease: [R.bookingNotFound, R.bookingCompleted, R.bookingExpired, ...leaseShapeRefusals],
  getLease: [R.bookingNotFound, R.leaseNotFound],
  updateLease: [
    R.bookingNotFound, R.leaseNotFound, R.bookingCompleted, R.bookingExpired, R.leaseServiceUnchangeable,
    R.personNotFound, R.fieldRequired, R.fieldIdNotFound, V.eligibilityAlreadyEnrolled
  ],
  deleteLease: [R.bookingNotFound, R.leaseNotFound, R.bookingCompleted]
} satisfies Record<string, ReadonlyArray<Refusal>>
