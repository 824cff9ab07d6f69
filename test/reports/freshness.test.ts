import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createBusiness, createPerson, createToken } from "../support/factories.ts"
import { type TestServer, startTestServer } from "../support/server.ts"
import { createService } from "../schedule/fixtures.ts"

/**
 * With the worker running, a change made through the Core API shows in reports within a
 * minute. The refresh interval is shortened here so the test takes seconds; the crontab's
 * minutely tick is stood in for by queueing the first refresh the way the cron does.
 */

let server: TestServer
const dataDir = path.resolve(`.data/test/reports-fresh-${process.pid}`)
let token: string
let person: Awaited<ReturnType<typeof createPerson>>
let occurrenceId: number

const query = (resource: string, attributes: unknown) =>
  server.request("POST", `/desk/api/v3/reports/${resource}/queries`, { token, body: { data: { type: "queries", attributes } } })

/** The states of the occurrence's enrollments in the report, and its completed count. */
const enrollmentStates = async (): Promise<unknown> => {
  const rows = await query("enrollments", { fields: ["state"], filter: ["eq", "event_occurrence_id", occurrenceId] })
  const counts = await query("event_occurrences", { fields: ["completed_enrollment_count"], filter: ["eq", "event_occurrence_id", occurrenceId] })
  if (rows.status !== 200 || counts.status !== 200) return `status ${rows.status}/${counts.status}`
  return { states: rows.json.data.attributes.rows.map((row: Array<unknown>) => row[0]), completed: counts.json.data.attributes.rows[0]?.[0] }
}

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
  const service = await createService(server.pool, business.id, { type: "GroupClass", name: "Flow", maximum_clients: 10 })
  const occurrence = await server.pool.query(
    `insert into event_occurrences (business_id, service_id, name, start_at, end_at, time_zone, capacity)
     values ($1, $2, 'Flow', now() - interval '2 hours', now() - interval '1 hour', 'UTC', 10) returning id`,
    [business.id, service]
  )
  occurrenceId = Number(occurrence.rows[0].id)
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

  it("shows a visit created, completed and deleted through the Core API within 60 seconds", { timeout: 120_000 }, async () => {
    const created = await server.request("POST", "/api/v2/desk/visits", {
      token,
      body: { visit: { person_id: person.personId, event_occurrence_id: occurrenceId, notify_client: false } }
    })
    expect(created.status, created.text).toBe(201)
    const visitId = created.json.visits[0].id
    expect(await eventually(async () => JSON.stringify(await enrollmentStates()) === JSON.stringify({ states: ["registered"], completed: 0 }), 60_000)).toBeLessThan(60_000)

    const completed = await server.request("PUT", `/api/v2/desk/visits/${visitId}`, { token, body: { visit: { state_event: "complete" } } })
    expect(completed.status, completed.text).toBe(200)
    expect(await eventually(async () => JSON.stringify(await enrollmentStates()) === JSON.stringify({ states: ["completed"], completed: 1 }), 60_000)).toBeLessThan(60_000)

    // A deleted visit leaves no row behind to carry a timestamp: the refresh still removes it.
    const deleted = await server.request("DELETE", `/api/v2/desk/visits/${visitId}`, { token })
    expect(deleted.status, deleted.text).toBe(204)
    expect(await eventually(async () => JSON.stringify(await enrollmentStates()) === JSON.stringify({ states: [], completed: 0 }), 60_000)).toBeLessThan(60_000)
  })
})
