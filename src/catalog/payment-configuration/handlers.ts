import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { CurrentBusiness } from "../../access/tenant.ts"
import { apiOf } from "../../shared/http-api.ts"
import { PaymentConfigurationDeskApi, PaymentConfigurationFrontApi } from "./api.ts"
import { toPaymentConfigurationWire } from "./model.ts"
import { PaymentConfigurationRepo } from "./repo.ts"

/** The business's payment configuration, the same in both modes. */
export const currentPaymentConfiguration = Effect.gen(function* () {
  const business = yield* CurrentBusiness
  return yield* (yield* PaymentConfigurationRepo).find({ businessId: business.id })
})

const answer = Effect.map(currentPaymentConfiguration, (row) => ({ payment_configuration: toPaymentConfigurationWire(row) }))

export const PaymentConfigurationFrontLive = HttpApiBuilder.group(apiOf(PaymentConfigurationFrontApi), "paymentConfigurationFront", (handlers) =>
  handlers.handle("get", () => answer))

export const PaymentConfigurationDeskLive = HttpApiBuilder.group(apiOf(PaymentConfigurationDeskApi), "paymentConfigurationDesk", (handlers) =>
  handlers.handle("get", () => answer))
