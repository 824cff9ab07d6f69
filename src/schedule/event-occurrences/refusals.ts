import { BadRequest, NotFound, Unprocessable } from "../../shared/errors.ts"
import { type Refusal, refusal } from "../../shared/refusals.ts"

/** Every refusal of the event occurrence endpoints (unknown filter ids are a 400, like a malformed query). */
export const EventOccurrenceRefusals = {
  eventOccurrenceNotFound: refusal(NotFound, "event_occurrence_not_found"),
  rangeEndBeforeStart: refusal(BadRequest, "range_end_before_start"),
  fieldIdNotFound: refusal(BadRequest, "field_id_not_found"),
  attendanceNotActive: refusal(Unprocessable, "attendance_not_active")
}

const R = EventOccurrenceRefusals
/** Each event occurrence endpoint's refusals. */
export const eventOccurrenceEndpointRefusals = {
  list: [R.rangeEndBeforeStart, R.fieldIdNotFound],
  get: [R.eventOccurrenceNotFound],
  update: [R.eventOccurrenceNotFound, R.attendanceNotActive]
} satisfies Record<string, ReadonlyArray<Refusal>>
