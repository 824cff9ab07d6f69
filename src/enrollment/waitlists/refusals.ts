import { BadRequest, NotFound, Unprocessable } from "../../shared/errors.ts"
import { refusal } from "../../shared/refusals.ts"

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
  waitlistUnavailable: refusal(Unprocessable, "waitlist_unavailable")
}
