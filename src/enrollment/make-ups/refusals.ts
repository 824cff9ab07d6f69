import { NotFound, Unprocessable } from "../../shared/errors.ts"
import { type Refusal, refusal } from "../../shared/refusals.ts"

/** Every refusal of the make-ups endpoint. */
export const MakeUpRefusals = {
  visitNotFound: refusal(NotFound, "visit_not_found"),
  fieldRequired: refusal(Unprocessable, "field_required"),
  fieldIdNotFound: refusal(Unprocessable, "field_id_not_found"),
  fieldTooLong: refusal(Unprocessable, "field_too_long"),
  makeUpVisitNotLateCanceled: refusal(Unprocessable, "make_up_visit_not_late_canceled"),
  makeUpExists: refusal(Unprocessable, "make_up_exists")
}

const R = MakeUpRefusals
/** Each make-ups endpoint's refusals. */
export const makeUpEndpointRefusals = {
  generate: [R.visitNotFound, R.fieldRequired, R.fieldIdNotFound, R.fieldTooLong, R.makeUpVisitNotLateCanceled, R.makeUpExists]
} satisfies Record<string, ReadonlyArray<Refusal>>
