import { Layer } from "effect"
import type { SqlClient } from "effect/sql"
import { AppConfig, type AppConfigShape } from "../config.ts"
import type { PaymentGateway } from "./gateway.ts"
import { SandboxGatewayLive } from "./sandbox.ts"
import type { SandboxGatewayStore } from "./sandbox-store.ts"

type GatewayLayer = Layer.Layer<PaymentGateway, never, AppConfig | SandboxGatewayStore | SqlClient.SqlClient>
const gateways: Record<NonNullable<AppConfigShape["paymentGateway"]>, GatewayLayer> = { sandbox: SandboxGatewayLive }

/**
 * The configured payment gateway (PAYMENT_GATEWAY): the built-in sandbox, the only one so far.
 * A real processor is one more implementation of PaymentGatewayShape (its hosted form or setup
 * intents, charges, refunds and voids over its API with the idempotency key passed through,
 * every transport failure mapped to GatewayUnavailable), chosen here by a new PAYMENT_GATEWAY
 * value with its credentials in AppConfig, as SIGNING_PROVIDER chooses the signing provider.
 */
export const PaymentGatewayLive = Layer.unwrap(AppConfig.useSync((config) => gateways[config.paymentGateway ?? "sandbox"]))
