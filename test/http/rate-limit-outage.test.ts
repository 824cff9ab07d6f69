import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createBusiness, createPerson, createToken } from "../support/factories.ts"
import { type TestServer, startTestServer } from "../support/server.ts"

/**
 * The shared rate limits when PostgreSQL cannot lease (here: the budgets table is gone for a
 * moment): the process counts alone, its share of the limit, rather than failing every request.
 */
let server: TestServer
let token: string

beforeAll(async () => {
  server = await startTestServer({ rateLimitPerToken: 3, rateLimitPerIp: 100 })
  const business = await createBusiness(server.pool, { subdomain: "demo" })
  const owner = await createPerson(server.pool, business.id, { role: "owner" })
  token = await createToken(server.pool, owner.accountId, business.id)
})
afterAll(async () => {
  await server.pool.query("alter table if exists rate_limit_budgets_away rename to rate_limit_budgets").catch(() => {})
  await server?.close()
})

describe("rate limits without their table", () => {
  it("still answer, and still refuse past the limit", async () => {
    await server.pool.query("alter table rate_limit_budgets rename to rate_limit_budgets_away")
    try {
      const statuses: Array<number> = []
      for (let i = 0; i < 4; i++) statuses.push((await server.request("GET", "/api/v2/desk/business", { token })).status)
      expect(statuses).toEqual([200, 200, 200, 429])
      expect((await server.request("GET", "/healthz")).status).toBe(200)
    } finally {
      await server.pool.query("alter table rate_limit_budgets_away rename to rate_limit_budgets")
    }
  })
})
