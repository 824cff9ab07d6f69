import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createBusiness, createPerson, createToken } from "../support/factories.ts"
import { type TestServer, startTestServer } from "../support/server.ts"

/**
 * The shared rate limit's leases under concurrency: requests that arrive together while a
 * process holds nothing for a key wait for one lease, and none of them takes a second slice.
 */
let server: TestServer
let token: string

beforeAll(async () => {
  // One process: slices of a quarter of the limit, 100 of 400.
  server = await startTestServer({ rateLimitPerToken: 400, rateLimitPerIp: 100_000 })
  const business = await createBusiness(server.pool, { subdomain: "demo" })
  const owner = await createPerson(server.pool, business.id, { role: "owner" })
  token = await createToken(server.pool, owner.accountId, business.id)
})
afterAll(async () => server?.close())

describe("rate-limit leases", () => {
  it("take one slice for 40 requests arriving at once on a new key", async () => {
    const responses = await Promise.all(
      Array.from({ length: 40 }, () => server.request("GET", "/api/v2/desk/business", { token }))
    )
    expect(responses.map((response) => response.status)).toEqual(Array.from({ length: 40 }, () => 200))
    const { rows } = await server.pool.query<{ leased: number }>("select leased from rate_limit_budgets where max_requests = 400")
    expect(rows.map((row) => Number(row.leased))).toEqual([100])
  })
})
