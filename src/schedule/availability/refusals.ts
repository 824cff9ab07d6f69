import { BadRequest, NotFound } from "../../shared/errors.ts"
import { refusal } from "../../shared/refusals.ts"

/** Every refusal of the availability endpoints. */
export const AvailabilityRefusals = {
  appointmentNotFound: refusal(NotFound, "appointment_not_found"),
  rangeEndBeforeStart: refusal(BadRequest, "range_end_before_start"),
  rangeTooLong: refusal(BadRequest, "range_too_long")
}
