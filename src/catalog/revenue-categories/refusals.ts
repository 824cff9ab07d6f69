import { NotFound } from "../../shared/errors.ts"
import { refusal } from "../../shared/refusals.ts"

/** Every refusal of the revenue categories endpoints. */
export const RevenueCategoryRefusals = {
  revenueCategoryNotFound: refusal(NotFound, "revenue_category_not_found")
}
