import { Effect, Layer, ManagedRuntime } from "effect"
import { HttpServer } from "effect/http"
import { HttpServerLive } from "../../src/http.ts"
import { BaseLive } from "../../src/layers.ts"
import { AppConfig } from "../../src/platform/config.ts"
import { makeRequester } from "../support/http.ts"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { GatewayUnavailable, PaymentGateway } from "../../src/platform/payments/gateway.ts"
import { createBusiness, createPerson, createToken } from "../support/factories.ts"
import { type TestServer, startTestServer } from "../support/server.ts"

/** A gateway that cannot be reached: every call asks to try later (422), never a 500, and writes nothing. */
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

let server: TestServer
/** The same service on the same database, its handlers given the unreachable gateway. */
let down: { runtime: ManagedRuntime.ManagedRuntime<unknown, unknown>; request: ReturnType<typeof makeRequester> }
let personId: number
let staffToken: string

beforeAll(async () => {
  server = await startTestServer()
  const app = HttpServerLive.pipe(Layer.provide(UnreachableGateway), Layer.provideMerge(BaseLive(Layer.succeed(AppConfig)(server.config))))
  const runtime = ManagedRuntime.make(app) as unknown as ManagedRuntime.ManagedRuntime<unknown, unknown>
  const address = (await runtime.runPromise(HttpServer.HttpServer.use((http) => Effect.succeed(http.address)) as Effect.Effect<unknown>)) as object
  down = { runtime, request: makeRequester("port" in address ? (address.port as number) : 0, server.config.baseDomain.replace(/^/, "demo.")) }
  const businessId = (await createBusiness(server.pool, { subdomain: "demo" })).id
  personId = (await createPerson(server.pool, businessId)).personId
  const staff = await createPerson(server.pool, businessId, { role: "owner" })
  staffToken = await createToken(server.pool, staff.accountId, businessId)
}, 120_000)

afterAll(async () => {
  await down?.runtime.dispose()
  await server?.close()
})

describe("an unreachable gateway", () => {
  it("answers 422 asking to try later, and writes no vaulting session", async () => {
    const expected = { errors: ["The payment gateway is unavailable right now; please try again later"] }
    const started = await down.request("POST", `/api/v2/desk/people/${personId}/form_of_payments`, {
      token: staffToken,
      body: { form_of_payment: { type: "creditcard" } }
    })
    expect(started.status, started.text).toBe(422)
    expect(started.json).toEqual(expected)
    expect((await server.pool.query(`select count(*)::int as n from form_of_payment_vaultings`)).rows[0].n).toBe(0)
    for (const path of ["/api/v2/desk/processor_connect/payment_methods/new", "/api/v2/desk/processor_connect/payment_methods?payment_method_id=seti_x"]) {
      const response = await down.request("GET", path, { token: staffToken })
      expect(response.status, path).toBe(422)
      expect(response.json).toEqual(expected)
    }
  })
})
