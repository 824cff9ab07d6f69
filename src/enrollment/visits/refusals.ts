import { BadRequest, NotFound, Unprocessable } from "../../shared/errors.ts"
import { type Refusal, refusal } from "../../shared/refusals.ts"
import { EventOccurrenceRefusals } from "../../schedule/event-occurrences/refusals.ts"

/**
 * Every refusal of the visits endpoints. The enrollment rules (`eligibility_*`) are named here
 * because a visit is where a place is taken: bookings and waitlists refuse through these too.
 */
export const VisitRefusals = {
  visitNotFound: refusal(NotFound, "visit_not_found"),
  /** A `from`..`to` filter with one bound missing. */
  rangeBoundRequired: refusal(BadRequest, "field_required"),
  rangeEndBeforeStart: refusal(BadRequest, "range_end_before_start"),
  personNotFound: refusal(NotFound, "person_not_found"),
  visitPersonRequired: refusal(Unprocessable, "visit_person_required"),
  visitTransitionInvalid: refusal(Unprocessable, "visit_transition_invalid"),
  visitRegisterNeedsPerson: refusal(Unprocessable, "visit_register_needs_person"),
  visitPersonUnchangeable: refusal(Unprocessable, "visit_person_unchangeable"),
  visitDeleteStarted: refusal(Unprocessable, "visit_delete_started"),
  visitDeleteState: refusal(Unprocessable, "visit_delete_state"),
  visitHeldByBooking: refusal(Unprocessable, "visit_held_by_booking"),
  eligibilityAlreadyEnrolled: refusal(Unprocessable, "eligibility_already_enrolled"),
  eligibilityCancelled: refusal(Unprocessable, "eligibility_cancelled"),
  eligibilityDeleted: refusal(Unprocessable, "eligibility_deleted"),
  eligibilityFull: refusal(Unprocessable, "eligibility_full"),
  eligibilityInThePast: refusal(Unprocessable, "eligibility_in_the_past"),
  eligibilityInsideBlackoutWindow: refusal(Unprocessable, "eligibility_inside_blackout_window"),
  eligibilityClientModeBookingNotAllowed: refusal(Unprocessable, "eligibility_client_mode_booking_not_allowed"),
  // Client mode also refuses with the description of each eligibility restriction.
  eligibilityClientPurchaseDisabled: refusal(Unprocessable, "eligibility_client_purchase_disabled"),
  eligibilityClientsNotAllowed: refusal(Unprocessable, "eligibility_clients_not_allowed"),
  eligibilityTooFarInAdvance: refusal(Unprocessable, "eligibility_too_far_in_advance"),
  eligibilityMembersNotAllowed: refusal(Unprocessable, "eligibility_members_not_allowed"),
  eligibilityPlanRequired: refusal(Unprocessable, "eligibility_plan_required")
}

const R = VisitRefusals
const ranges = [R.rangeBoundRequired, R.rangeEndBeforeStart]
const occurrenceNotFound = EventOccurrenceRefusals.eventOccurrenceNotFound
/** What admitting a visit refuses under the occurrence's lock (capacity.ts), whoever admits it. */
const admission = [R.eligibilityAlreadyEnrolled, R.eligibilityCancelled, R.eligibilityDeleted, R.eligibilityFull]

/** Each visits endpoint's refusals. */
export const visitEndpointRefusals = {
  get: [R.visitNotFound],
  personList: [R.personNotFound, ...ranges],
  summary: [R.personNotFound],
  occurrenceList: [occurrenceNotFound, ...ranges],
  frontCreate: [
    R.personNotFound, occurrenceNotFound, ...admission, R.eligibilityInThePast, R.eligibilityInsideBlackoutWindow,
    R.eligibilityClientModeBookingNotAllowed, R.eligibilityClientPurchaseDisabled, R.eligibilityClientsNotAllowed,
    R.eligibilityTooFarInAdvance, R.eligibilityMembersNotAllowed, R.eligibilityPlanRequired
  ],
  deskCreate: [
    R.visitPersonRequired, R.personNotFound, occurrenceNotFound, ...admission, R.eligibilityInThePast, R.eligibilityInsideBlackoutWindow
  ],
  update: [
    R.visitNotFound, R.personNotFound, R.visitPersonUnchangeable, R.eligibilityAlreadyEnrolled, R.visitTransitionInvalid,
    R.visitRegisterNeedsPerson
  ],
  frontDelete: [R.visitNotFound, R.visitHeldByBooking, R.visitDeleteState, R.visitDeleteStarted],
  deskDelete: [R.visitNotFound, R.visitHeldByBooking]
} satisfies Record<string, ReadonlyArray<Refusal>>
