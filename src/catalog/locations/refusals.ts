import { NotFound } from "../../shared/errors.ts"
import { refusal } from "../../shared/refusals.ts"

/** Every refusal of the locations endpoints. */
export const LocationRefusals = {
  locationNotFound: refusal(NotFound, "location_not_found")
}
