import { NotFound, Unprocessable } from "../../shared/errors.ts"
import { refusal } from "../../shared/refusals.ts"

/** Every refusal of the make-ups endpoint. */
export const MakeUpRefusals = {
  visitNotFound: refusal(NotFound, "visit_not_found"),
  fieldRequired: refusal(Unprocessable, "field_required"),
  fieldIdNotFound: refusal(Unprocessable, "field_id_not_found"),
  fieldTooLong: refusal(Unprocessable, "field_too_long"),
  makeUpVisitNotLateCanceled: refusal(Unprocessable, "make_up_visit_not_late_canceled"),
  makeUpExists: refusal(Unprocessable, "make_up_exists")
}
