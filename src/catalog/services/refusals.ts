import { NotFound } from "../../shared/errors.ts"
import { refusal } from "../../shared/refusals.ts"

/** Every refusal of the services endpoints. */
export const ServiceRefusals = {
  serviceNotFound: refusal(NotFound, "service_not_found")
}
