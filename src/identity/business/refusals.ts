import { NotFound } from "../../shared/errors.ts"
import { refusal } from "../../shared/refusals.ts"

/** Every refusal of the business endpoints. */
export const BusinessRefusals = {
  businessNotFound: refusal(NotFound, "business_not_found")
}
