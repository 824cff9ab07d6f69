import { BadRequest, NotFound, Unprocessable } from "../../shared/errors.ts"
import { type Refusal, refusal } from "../../shared/refusals.ts"
import { EventOccurrenceRefusals } from "../../schedule/event-occurrences/refusals.ts"

/** Every refusal of the waitlist endpoints; the restriction codes' descriptions are refusals of a join. */
export const WaitlistRefusals = {
  waitlistEntryNotFound: refusal(NotFound, "waitlist_entry_not_found"),
  waitlistRangeIncomplete: refusal(BadRequest, "waitlist_range_incomplete"),
  rangeEndBeforeStart: refusal(BadRequest, "range_end_before_start"),
  waitlistEnrollRemoved: refusal(Unprocessable, "waitlist_enroll_removed"),
  waitlistEventCancelled: refusal(Unprocessable, "waitlist_event_cancelled"),
  waitlistEventDeleted: refusal(Unprocessable, "waitlist_event_deleted"),
  waitlistEventInPast: refusal(Unprocessable, "waitlist_event_in_past"),
  waitlistPersonAlreadyWaitlisted: refusal(Unprocessable, "waitlist_person_already_waitlisted"),
  waitlistPersonAlreadyEnrolled: refusal(Unprocessable, "waitlist_person_already_enrolled"),
  waitlistFull: refusal(Unprocessable, "waitlist_full"),
  waitlistDisabled: refusal(Unprocessable, "waitlist_disabled"),
  waitlistUnavailable: refusal(Unprocessable, "waitlist_unavailable"),
  personNotFound: refusal(NotFound, "person_not_found")
}

const R = WaitlistRefusals
const occurrenceNotFound = EventOccurrenceRefusals.eventOccurrenceNotFound
const ranges = [R.waitlistRangeIncomplete, R.rangeEndBeforeStart]
/** A join refuses with the description of each restriction that applies. */
const joining = [
  R.waitlistEventCancelled, R.waitlistEventDeleted, R.waitlistEventInPast, R.waitlistPersonAlreadyWaitlisted,
  R.waitlistPersonAlreadyEnrolled, R.waitlistFull, R.waitlistDisabled, R.waitlistUnavailable
]

/** Each waitlist endpoint's refusals. */
export const waitlistEndpointRefusals = {
  eligibilities: [occurrenceNotFound],
  get: [R.waitlistEntryNotFound],
  personList: [R.personNotFound, ...ranges],
  occurrenceList: [occurrenceNotFound, ...ranges],
  create: [R.personNotFound, occurrenceNotFound, ...joining],
  update: [R.waitlistEntryNotFound, R.waitlistPersonAlreadyWaitlisted, R.waitlistEnrollRemoved],
  delete: [R.waitlistEntryNotFound]
} satisfies Record<string, ReadonlyArray<Refusal>>
