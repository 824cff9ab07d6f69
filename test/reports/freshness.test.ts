import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createBusiness, createPerson, createToken } from "../support/factories.ts"
import { type TestServer, startTestServer } from "../support/server.ts"

/**
 * With the worker running, a change made through the Core API shows in reports within a
 * minute. The refresh interval is shortened here so the test takes seconds; the crontab's
 * minutely tick is stood in for by queueing the first refresh the way the cron does.
 */

let server: TestServer
const dataDir = path.resolve(`.data/test/reports-fresh-${process.pid}`)
let token: string
let person: Awaited<ReturnType<typeof createPerson>>

const firstName = async (): Promise<unknown> => {
  const response = await server.request("POST", `/desk/api/v3/reports/clients/queries`, {
    token,
    body: { data: { type: "queries", attributes: { fields: ["first_name"], filter: ["eq", "person_id", person.personId] } } }
  })
  return response.status === 200 ? response.json.data.attributes.rows[0]?.[0] : `status ${response.status}`
}

const eventually = async (predicate: () => Promise<boolean>, timeoutMs: number) => {
  const started = Date.now()
  while (Date.now() - started < timeoutMs) {
    if (await predicate()) return Date.now() - started
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  throw new Error(`not within ${timeoutMs} ms`)
}

beforeAll(async () => {
  fs.rmSync(dataDir, { recursive: true, force: true })
  server = await startTestServer({ worker: true, dataDir, reportRefreshSeconds: 1 })
  const business = await createBusiness(server.pool, { subdomain: "demo" })
  const owner = await createPerson(server.pool, business.id, { role: "owner" })
  token = await createToken(server.pool, owner.accountId, business.id)
  person = await createPerson(server.pool, business.id, { first_name: "Before", last_name: "Change" })
  await server.pool.query(`select graphile_worker.add_job('report_sync', '{"mode":"incremental"}'::json,
    queue_name => 'reports', job_key => 'report_sync_incremental')`)
})
afterAll(async () => {
  await server?.close()
  fs.rmSync(dataDir, { recursive: true, force: true })
})

describe("report freshness", () => {
  it("shows a change made through the Core API within 60 seconds", { timeout: 90_000 }, async () => {
    await eventually(async () => (await firstName()) === "Before", 30_000)
    const update = await server.request("PUT", `/api/v2/desk/people/${person.personId}`, {
      token,
      body: { person: { first_name: "After" } }
    })
    expect(update.status, update.text).toBe(200)
    const elapsed = await eventually(async () => (await firstName()) === "After", 60_000)
    expect(elapsed).toBeLessThan(60_000)
  })
})
