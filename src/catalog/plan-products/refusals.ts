import { NotFound } from "../../shared/errors.ts"
import { refusal } from "../../shared/refusals.ts"

/** Every refusal of the plan products endpoints. */
export const PlanProductRefusals = {
  planProductNotFound: refusal(NotFound, "plan_product_not_found")
}
