import { BadRequest, NotFound } from "../../shared/errors.ts"
import { type Refusal, refusal } from "../../shared/refusals.ts"

/** Every refusal of the events endpoints. */
export const EventRefusals = {
  eventNotFound: refusal(NotFound, "event_not_found"),
  rangeEndBeforeStart: refusal(BadRequest, "range_end_before_start"),
  rangeTooLong: refusal(BadRequest, "range_too_long")
}

const R = EventRefusals
/** Each events endpoint's refusals. */
export const eventEndpointRefusals = {
  list: [R.rangeEndBeforeStart, R.rangeTooLong],
  get: [R.eventNotFound]
} satisfies Record<string, ReadonlyArray<Refusal>>
