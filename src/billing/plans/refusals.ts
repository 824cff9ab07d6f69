import { NotFound, Unprocessable } from "../../shared/errors.ts"
import { refusal } from "../../shared/refusals.ts"

/** Every refusal of person plans, their holds and packs. */
export const PlanRefusals = {
  fieldIdNotFound: refusal(Unprocessable, "field_id_not_found"),
  fieldMustBeAtLeast: refusal(Unprocessable, "field_must_be_at_least"),
  fieldMustBeAtMost: refusal(Unprocessable, "field_must_be_at_most"),
  fieldMustBeDate: refusal(Unprocessable, "field_must_be_date"),
  fieldRequired: refusal(Unprocessable, "field_required"),
  packNotFound: refusal(NotFound, "pack_not_found"),
  packsProductNotFound: refusal(NotFound, "packs_product_not_found"),
  packsProductSuspended: refusal(Unprocessable, "packs_product_suspended"),
  planAlreadyCanceled: refusal(Unprocessable, "plan_already_canceled"),
  planAlreadyDeactivated: refusal(Unprocessable, "plan_already_deactivated"),
  planEndBeforeStart: refusal(Unprocessable, "plan_end_before_start"),
  planHoldNotFound: refusal(NotFound, "plan_hold_not_found"),
  planHoldOverlaps: refusal(Unprocessable, "plan_hold_overlaps"),
  planNotDeactivated: refusal(Unprocessable, "plan_not_deactivated"),
  planNotFound: refusal(NotFound, "plan_not_found"),
  /** A person's plans: the person first (identity's rule, the same answer). */
  personNotFound: refusal(NotFound, "person_not_found")
}
