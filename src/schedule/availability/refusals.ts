import { BadRequest, NotFound } from "../../shared/errors.ts"
import { type Refusal, refusal } from "../../shared/refusals.ts"

/** Every refusal of the availability endpoints. */
export const AvailabilityRefusals = {
  appointmentNotFound: refusal(NotFound, "appointment_not_found"),
  rangeEndBeforeStart: refusal(BadRequest, "range_end_before_start"),
  rangeTooLong: refusal(BadRequest, "range_too_long")
}

const R = AvailabilityRefusals
/** Each availability endpoint's refusals. */
export const availabilityEndpointRefusals = {
  slots: [R.appointmentNotFound],
  summary: [R.appointmentNotFound, R.rangeEndBeforeStart, R.rangeTooLong]
} satisfies Record<string, ReadonlyArray<Refusal>>
