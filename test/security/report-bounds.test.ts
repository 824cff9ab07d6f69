import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeReader } from "../../reports/store.ts"
import { READER_LIMITS, type ReaderLimits, readerLimits } from "../../reports/store-files.ts"
import { syncReports } from "../../reports/sync/sync.ts"
import { createBusiness, createPerson, createToken } from "../support/factories.ts"
import { type TestResponse } from "../support/http.ts"
import { type TestServer, startTestServer } from "../support/server.ts"

/**
 * Issue 29, "Bounded input", for the Reporting API: a query names no more fields (nor sort
 * keys) than its resource has, each once. Today one owner request with 50,000 fields drove
 * DuckDB to 18.8 GiB and answered 500.
 */

let server: TestServer
const dataDir = path.resolve(`.data/test/report-bounds-${process.pid}`)
let ownerToken: string

beforeAll(async () => {
  fs.rmSync(dataDir, { recursive: true, force: true })
  server = await startTestServer({ dataDir })
  const demo = await createBusiness(server.pool, { subdomain: "demo", name: "Demo Studio" })
  const owner = await createPerson(server.pool, demo.id, { role: "owner" })
  ownerToken = await createToken(server.pool, owner.accountId, demo.id)
  await syncReports({ databaseUrl: server.databaseUrl, dir: path.join(dataDir, "reports"), mode: "full" })
})
afterAll(async () => {
  await server?.close()
  fs.rmSync(dataDir, { recursive: true, force: true })
})

const expectRefusal = (response: TestResponse, status: number, message: RegExp) => {
  expect(response.status, response.text).toBe(status)
  expect(response.json?.errors, response.text).toEqual(expect.arrayContaining([expect.any(String)]))
  expect(response.json.errors.join(" | ")).toMatch(message)
}

describe("report queries", () => {
  const query = (attributes: unknown) =>
    server.request("POST", "/desk/api/v3/reports/clients/queries", {
      token: ownerToken,
      body: { data: { type: "queries", attributes } },
      headers: { "content-type": "application/vnd.api+json" }
    })

  it("refuses 50,000 fields in one problem, without running the query", async () => {
    const response = await query({ fields: Array.from({ length: 50_000 }, () => "first_name") })
    expectRefusal(response, 400, /at most \d+ fields/)
    expect(response.json.errors).toHaveLength(1)
  })

  it("refuses more fields than the resource has, even all of them unknown, in one problem", async () => {
    const response = await query({ fields: Array.from({ length: 1_000 }, (_, i) => `field_${i}`) })
    expectRefusal(response, 400, /at most \d+ fields/)
    expect(response.json.errors).toHaveLength(1)
  })

  it("refuses a field named twice", async () => {
    const response = await query({ fields: ["first_name", "last_name", "first_name"] })
    expectRefusal(response, 400, /"first_name".*more than once/)
  })

  it("refuses a summary field named twice", async () => {
    const response = await query({ fields: ["total_count", "total_count"], group: "person_state" })
    expectRefusal(response, 400, /"total_count".*more than once/)
  })

  it("refuses more sort keys than the resource has fields, and a sort key named twice", async () => {
    const many = await query({ fields: ["key"], sort: Array.from({ length: 1_000 }, (_, i) => `field_${i}+`) })
    expectRefusal(many, 400, /at most \d+ sort keys/)
    expect(many.json.errors).toHaveLength(1)
    const twice = await query({ fields: ["key"], sort: ["last_name+", "last_name-"] })
    expectRefusal(twice, 400, /"last_name".*more than once/)
  })

  it("still answers a query of every detail field once", async () => {
    const response = await query({ fields: ["key", "first_name", "last_name"], sort: ["last_name+", "first_name-"] })
    expect(response.status, response.text).toBe(200)
  })
})

describe("the report store's reader", () => {
  it("opens each generation with the configured memory limit and threads (defaults when unset)", async () => {
    const settings = async (limits: ReaderLimits) => {
      const reader = makeReader(path.join(dataDir, "reports"), limits)
      const open = await reader.acquire()
      try {
        const connection = await reader.connect(open!)
        const result = await connection.connection.runAndReadAll(
          "select current_setting('memory_limit')::varchar, current_setting('threads')::bigint"
        )
        reader.putBack(open!, connection)
        const [memory, threads] = result.getRows()[0]!
        return { memory: String(memory), threads: Number(threads) }
      } finally {
        reader.release(open!)
        reader.close()
      }
    }
    expect(await settings(readerLimits({ ...server.config, reportReaderMemoryLimit: "512MB", reportReaderThreads: 1 }))).toEqual({
      memory: expect.stringMatching(/^488\.\d MiB$/),
      threads: 1
    })
    const defaults = await settings(readerLimits(server.config))
    expect(defaults.memory).toMatch(/^1\.8 GiB$/)
    expect(defaults.threads).toBe(READER_LIMITS.threads)
  })
})
