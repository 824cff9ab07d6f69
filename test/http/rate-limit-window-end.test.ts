import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createBusiness, createPerson, createToken } from "../support/factories.ts"
import { type TestServer, startTestServer } from "../support/server.ts"

/**
 * The shared rate limit at a window's end (src/platform/rate-limit-postgres.ts): a process whose
 * lease finds the ending window all leased (by other processes, here by the test) waits for the
 * next window when the end is near, rather than refusing a request the next window has room for;
 * far from the end it refuses at once.
 */
let server: TestServer
let token: string

const business = () => server.request("GET", "/api/v2/desk/business", { token })
/** The token's window as other processes would leave it: every slice leased, ending in `ms`. */
const leasedUntil = (ms: number) =>
  server.pool.query(
    `update rate_limit_budgets set leased = max_requests, window_ends_at = now() + make_interval(secs => $1::float8 / 1000) where max_requests = 8`,
    [ms]
  )

beforeAll(async () => {
  // One process: slices of a quarter of the limit, 2 of 8.
  server = await startTestServer({ rateLimitPerToken: 8, rateLimitPerIp: 100_000 })
  const created = await createBusiness(server.pool, { subdomain: "demo" })
  const owner = await createPerson(server.pool, created.id, { role: "owner" })
  token = await createToken(server.pool, owner.accountId, created.id)
})
afterAll(async () => server?.close())

describe("a rate-limit window's end", () => {
  it("a request finding the ending window all leased waits for the next one; far from the end it is refused", async () => {
    // This process's slice (2) spent.
    expect([(await business()).status, (await business()).status]).toEqual([200, 200])
    // Everything else leased, the window ending in 60 ms: the next window has room.
    await leasedUntil(60)
    const nearTheEnd = await business()
    expect(nearTheEnd.status, nearTheEnd.text).toBe(200)
    // Its new slice spent too, and the window all leased for 10 s more: refused now.
    expect((await business()).status).toBe(200)
    await leasedUntil(10_000)
    const refused = await business()
    expect(refused.status).toBe(429)
    expect(Number(refused.headers["retry-after"])).toBeGreaterThanOrEqual(1)
  })
})
