import { Effect, Layer, ManagedRuntime } from "effect"
import { HttpServer } from "effect/http"
import { HttpServerLive } from "../../src/app/http.ts"
import { BaseLive } from "../../src/app/layers.ts"
import { AppConfig } from "../../src/platform/config.ts"
import { GatewayUnavailable, PaymentGateway } from "../../src/platform/payments/gateway.ts"
import { makeRequester } from "../support/http.ts"
import type { TestServer } from "../support/server.ts"

/** A payment gateway that cannot be reached: every call asks to try later. */
const unavailable = Effect.fail(new GatewayUnavailable({ reason: "connection refused" }))
const UnreachableGateway = Layer.succeed(PaymentGateway)(
  PaymentGateway.of({
    startVaulting: () => unavailable,
    vaultResult: () => unavailable,
    charge: () => unavailable,
    refund: () => unavailable,
    void: () => unavailable,
    createSetupIntent: () => unavailable,
    setupIntentCard: () => unavailable
  })
)

/** The same service on the test server's database, its handlers given the unreachable gateway. */
export const startUnreachableGateway = async (server: TestServer) => {
  const app = HttpServerLive.pipe(Layer.provide(UnreachableGateway), Layer.provideMerge(BaseLive(Layer.succeed(AppConfig)(server.config))))
  const runtime = ManagedRuntime.make(app) as unknown as ManagedRuntime.ManagedRuntime<unknown, unknown>
  const address = (await runtime.runPromise(HttpServer.HttpServer.use((http) => Effect.succeed(http.address)) as Effect.Effect<unknown>)) as object
  return { runtime, request: makeRequester("port" in address ? (address.port as number) : 0, server.config.baseDomain.replace(/^/, "demo.")) }
}
export type UnreachableGatewayServer = Awaited<ReturnType<typeof startUnreachableGateway>>
