import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createBusiness, createLocation, createPerson, createToken } from "../support/factories.ts"
import { sample, samples, scrape } from "../support/metrics.ts"
import { type TestServer, startTestServer } from "../support/server.ts"
import { until } from "../support/waiting.ts"

/**
 * The API's SQL pool (20 connections) seen from /metrics: callers waiting for one of its
 * connections. A test transaction holds an exclusive lock on `locations`, so 30 list requests
 * each keep a connection blocked on it (or wait for one), then the lock goes and all answer.
 */
let server: TestServer
let token: string

const waitingNow = async () => sample(samples((await scrape(server.metricsPort!)).body), "studio_db_pool_waiting_clients", {})


beforeAll(async () => {
  server = await startTestServer({ metrics: true })
  const business = await createBusiness(server.pool, { subdomain: "demo" })
  const owner = await createPerson(server.pool, business.id, { role: "owner" })
  token = await createToken(server.pool, owner.accountId, business.id)
  await createLocation(server.pool, business.id)
})
afterAll(async () => server?.close())

describe("the SQL pool's waiting callers", () => {
  it("are none at rest, those beyond the pool's connections while they are all held, none again after", async () => {
    expect((await scrape(server.metricsPort!)).body).toMatch(/^# TYPE studio_db_pool_waiting_clients gauge$/m)
    expect(await waitingNow()).toBe(0)
    const locker = await server.pool.connect()
    let answers: Array<Promise<{ status: number }>> = []
    try {
      await locker.query("begin")
      await locker.query("lock table locations in access exclusive mode")
      answers = Array.from({ length: 30 }, () => server.request("GET", "/api/v2/desk/locations", { token }))
      let waiting = 0
      await until(async () => (waiting = await waitingNow()) >= 10, "10 callers waiting for a connection", { everyMs: 100, attempts: 300 })
      expect(waiting).toBeGreaterThanOrEqual(10)
    } finally {
      await locker.query("rollback")
      locker.release()
    }
    for (const answer of await Promise.all(answers)) expect(answer.status).toBe(200)
    await until(async () => (await waitingNow()) === 0, "no caller waiting", { everyMs: 100, attempts: 300 })
    expect(await waitingNow()).toBe(0)
  }, 120_000)
})
