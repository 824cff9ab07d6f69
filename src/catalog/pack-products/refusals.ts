import { NotFound, Unprocessable } from "../../shared/errors.ts"
import { refusal } from "../../shared/refusals.ts"

/** Every refusal of the pack products endpoints. */
export const PackProductRefusals = {
  packProductNotFound: refusal(NotFound, "pack_product_not_found"),
  fieldRequired: refusal(Unprocessable, "field_required"),
  fieldTooLong: refusal(Unprocessable, "field_too_long"),
  fieldMustBeAtLeast: refusal(Unprocessable, "field_must_be_at_least"),
  fieldMustBeAtMost: refusal(Unprocessable, "field_must_be_at_most"),
  fieldMustBeOneOf: refusal(Unprocessable, "field_must_be_one_of"),
  fieldIdNotFound: refusal(Unprocessable, "field_id_not_found")
}
