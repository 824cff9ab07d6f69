import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { syncReports } from "../../reports/sync/sync.ts"
import type { StaffRole } from "../../src/access/tokens.ts"
import { createBusiness, createPerson, createToken } from "../support/factories.ts"
import { type TestServer, startTestServer } from "../support/server.ts"

/**
 * Freshness, said: every query reply carries `meta.data_as_of` and the
 * generation; an owner's refresh (202, owners only, one per business per interval) makes the
 * worker refresh now, and the next replies' `data_as_of` moves with the change in the rows.
 * The refresh interval is long here, so nothing but the owner's request refreshes the store.
 */

let server: TestServer
const dataDir = path.resolve(`.data/test/reports-freshness-said-${process.pid}`)
const tokens: Record<string, string> = {}
let personId: number

const REFRESHES = "/desk/api/v3/reports/refreshes"
const ISO_WITH_OFFSET = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}(Z|[+-]\d\d:\d\d)$/

const firstName = async (path = "/desk/api/v3/reports/clients/queries") => {
  const response = await server.request("POST", path, {
    token: tokens.owner!,
    body: { data: { type: "queries", attributes: { fields: ["first_name"], filter: ["eq", "person_id", personId] } } }
  })
  expect(response.status, response.text).toBe(200)
  return { name: response.json.data.attributes.rows[0]?.[0], meta: response.json.meta as { data_as_of: string; generation: number } }
}

const eventually = async (predicate: () => Promise<boolean>) => {
  // Generous: a refresh waits for the worker's poll and a sync; nothing here asserts how long.
  for (let attempt = 0; attempt < 300; attempt++) {
    if (await predicate()) return
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  throw new Error("never")
}

beforeAll(async () => {
  fs.rmSync(dataDir, { recursive: true, force: true })
  server = await startTestServer({ worker: true, dataDir, reportRefreshSeconds: 600 })
  const business = await createBusiness(server.pool, { subdomain: "demo", time_zone: "America/Los_Angeles" })
  const staff = async (name: string, role: StaffRole) => {
    const person = await createPerson(server.pool, business.id, { first_name: name, last_name: "Staff", role })
    tokens[name] = await createToken(server.pool, person.accountId, business.id)
    return person
  }
  await staff("owner", "owner")
  await staff("standard", "standard")
  const granted = await staff("granted", "standard")
  await server.pool.query(`insert into report_grants (business_id, staff_member_id) values ($1, $2)`, [business.id, granted.staffMemberId])
  personId = (await createPerson(server.pool, business.id, { first_name: "Before", last_name: "Change" })).personId
  await syncReports({ databaseUrl: server.databaseUrl, dir: path.join(dataDir, "reports"), mode: "full" })
})
afterAll(async () => {
  await server?.close()
  fs.rmSync(dataDir, { recursive: true, force: true })
})

describe("meta.data_as_of", () => {
  it("is on every reply: detail, grouped, the short path", async () => {
    const detail = await firstName()
    expect(detail.name).toBe("Before")
    expect(detail.meta.data_as_of).toMatch(ISO_WITH_OFFSET)
    // The business's zone: Los Angeles is 7 or 8 hours behind UTC.
    expect(detail.meta.data_as_of).toMatch(/-0[78]:00$/)
    expect(Number.isInteger(detail.meta.generation)).toBe(true)
    expect((await firstName(`/api/v3/clients/queries`)).meta).toEqual(detail.meta)
    const grouped = await server.request("POST", "/desk/api/v3/reports/clients/queries", {
      token: tokens.owner!,
      body: { data: { type: "queries", attributes: { fields: ["total_count"], group: "person_state" } } }
    })
    expect(grouped.status, grouped.text).toBe(200)
    expect(grouped.json.meta).toEqual(detail.meta)
  })
})

describe("POST /desk/api/v3/reports/refreshes", () => {
  it("is for owners: granted staff may query but not refresh", async () => {
    for (const name of ["granted", "standard"]) {
      const response = await server.request("POST", REFRESHES, { token: tokens[name]! })
      expect(response.status, name).toBe(403)
      expect(response.json.errors).toHaveLength(1)
    }
    expect((await server.request("POST", REFRESHES, {})).status).toBe(401)
  })

  it("queues the refresh (202), refuses a second one in the interval (429), and data_as_of moves with the change", async () => {
    const before = await firstName()
    const update = await server.request("PUT", `/api/v2/desk/people/${personId}`, {
      token: tokens.owner!,
      body: { person: { first_name: "After" } }
    })
    expect(update.status, update.text).toBe(200)
    // Until the store is refreshed, the reply says the same age and the same rows.
    expect(await firstName()).toEqual(before)

    const refresh = await server.request("POST", REFRESHES, { token: tokens.owner! })
    expect(refresh.status, refresh.text).toBe(202)
    expect(refresh.json.data).toMatchObject({ type: "report_refreshes", attributes: { state: "queued" } })

    const again = await server.request("POST", REFRESHES, { token: tokens.owner! })
    expect(again.status).toBe(429)
    expect(again.json.errors).toHaveLength(1)
    expect(Number(again.headers["retry-after"])).toBeGreaterThan(0)

    await eventually(async () => (await firstName()).name === "After")
    const after = await firstName()
    expect(after.meta.data_as_of).toMatch(ISO_WITH_OFFSET)
    expect(Date.parse(after.meta.data_as_of)).toBeGreaterThan(Date.parse(before.meta.data_as_of))
    expect(after.meta.generation).toBeGreaterThan(before.meta.generation)
  }, 120_000)
})
