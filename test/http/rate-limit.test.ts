import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createApplication, createBusiness, createPerson, createToken } from "../support/factories.ts"
import { type TestServer, startTestServer } from "../support/server.ts"

let server: TestServer
let tokenA: string
let tokenB: string

beforeAll(async () => {
  server = await startTestServer({ rateLimitPerToken: 3, rateLimitPerIp: 8 })
  const business = await createBusiness(server.pool, { subdomain: "demo" })
  await createApplication(server.pool, "test-app")
  const a = await createPerson(server.pool, business.id, { role: "owner" })
  const b = await createPerson(server.pool, business.id, { role: "manager" })
  tokenA = await createToken(server.pool, a.accountId, business.id)
  tokenB = await createToken(server.pool, b.accountId, business.id)
})
afterAll(async () => server?.close())

describe("rate limits", () => {
  it("allow the per-token limit, then answer 429 with the headers and a translated message", async () => {
    const statuses: Array<number> = []
    let last
    for (let i = 0; i < 4; i++) {
      last = await server.request("GET", "/api/v2/desk/business", { token: tokenA, headers: { "x-fd-locale": "fr" } })
      statuses.push(last.status)
    }
    expect(statuses).toEqual([200, 200, 200, 429])
    expect(last!.headers["ratelimit-limit"]).toBe("3")
    expect(last!.headers["ratelimit-remaining"]).toBe("0")
    const reset = Number(last!.headers["ratelimit-reset"])
    expect(reset).toBeGreaterThan(Date.now() / 1000 - 1)
    expect(reset).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 60)
    expect(Number(last!.headers["retry-after"])).toBeGreaterThan(0)
    expect(last!.json.errors[0]).toMatch(/secondes/)
  })

  it("count each token separately", async () => {
    const response = await server.request("GET", "/api/v2/desk/business", { token: tokenB })
    expect(response.status).toBe(200)
    expect(response.headers["ratelimit-limit"]).toBe("3")
    expect(response.headers["ratelimit-remaining"]).toBe("2")
  })

  it("also limit every call per IP address, authenticated or not", async () => {
    // 5 calls so far from this IP; the IP limit is 8.
    const statuses: Array<number> = []
    for (let i = 0; i < 4; i++) {
      const response = await server.request("GET", "/api/v2/front/business?client_id=test-app")
      statuses.push(response.status)
      if (response.status === 200) expect(response.headers["ratelimit-limit"]).toBe("8")
    }
    expect(statuses).toEqual([200, 200, 200, 429])
    const withToken = await server.request("GET", "/api/v2/desk/business", { token: tokenB })
    expect(withToken.status).toBe(429)
  })
})
