import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type UnreachableGatewayServer, startUnreachableGateway } from "./unreachable-gateway.ts"
import { createBusiness, createPerson, createToken } from "../support/factories.ts"
import { type TestServer, startTestServer } from "../support/server.ts"

/** A gateway that cannot be reached: every call asks to try later (422), never a 500, and writes nothing. */

let server: TestServer
/** The same service on the same database, its handlers given the unreachable gateway. */
let down: UnreachableGatewayServer
let personId: number
let staffToken: string

beforeAll(async () => {
  server = await startTestServer()
  down = await startUnreachableGateway(server)
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
