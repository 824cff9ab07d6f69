import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { DeskAccess, FrontAccess } from "../../access/access.ts"
import { docs } from "../../shared/docs.ts"
import { Unauthorized } from "../../shared/errors.ts"
import { PaymentConfigurationResponse } from "./model.ts"

const description =
  "What the business accepts (`accepted_types`; external methods by their name) and what its card form requires " +
  "(`creditcard.required_fields`, used by vaulting step two). Answers `payment_configuration` as a bare object, as the spec says."

export const PaymentConfigurationFrontApi = HttpApiGroup.make("paymentConfigurationFront")
  .add(
    HttpApiEndpoint.get("get", "/api/v2/front/payments/configuration", {
      success: PaymentConfigurationResponse,
      error: Unauthorized
    }).annotateMerge(docs("Payment configuration", `${description} No token needed with client_id.`))
  )
  .middleware(FrontAccess)
  .annotateMerge(docs("Payment configuration (client mode)"))

export const PaymentConfigurationDeskApi = HttpApiGroup.make("paymentConfigurationDesk")
  .add(
    HttpApiEndpoint.get("get", "/api/v2/desk/payments/configuration", {
      success: PaymentConfigurationResponse,
    }).annotateMerge(docs("Payment configuration", description))
  )
  .middleware(DeskAccess)
  .annotateMerge(docs("Payment configuration (staff mode)"))
