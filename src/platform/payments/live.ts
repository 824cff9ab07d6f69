import type { Layer } from "effect"
import type { PaymentGateway } from "./gateway.ts"
import { SandboxGatewayLive, type SandboxGatewayStore } from "./sandbox.ts"

/**
 * The configured payment gateway. Only the built-in sandbox exists so far; a real processor is
 * one more implementation of PaymentGatewayShape (its hosted form or setup intents, charges and
 * refunds over its API, failures mapped to GatewayUnavailable) chosen here by a PAYMENT_GATEWAY
 * setting with its credentials in AppConfig, as SIGNING_PROVIDER chooses the signing provider.
 */
export const PaymentGatewayLive: Layer.Layer<PaymentGateway, never, SandboxGatewayStore | import("effect/sql").SqlClient.SqlClient> =
  SandboxGatewayLive
