import { BadRequest, NotFound, Unprocessable } from "../../shared/errors.ts"
import { refusal } from "../../shared/refusals.ts"

/** Every refusal of the event occurrence endpoints (unknown filter ids are a 400, like a malformed query). */
export const EventOccurrenceRefusals = {
  eventOccurrenceNotFound: refusal(NotFound, "event_occurrence_not_found"),
  rangeEndBeforeStart: refusal(BadRequest, "range_end_before_start"),
  fieldIdNotFound: refusal(BadRequest, "field_id_not_found"),
  attendanceNotActive: refusal(Unprocessable, "attendance_not_active")
}
