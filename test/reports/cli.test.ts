import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createTestDatabase } from "../support/database.ts"
import { createBusiness, createPerson } from "../support/factories.ts"

/** `npm run studio -- sync [--full]` as an operator runs it. */

let database: Awaited<ReturnType<typeof createTestDatabase>>
const dataDir = path.resolve(`.data/test/reports-cli-${process.pid}`)

const studio = (...args: Array<string>) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      ["src/cli.ts", ...args],
      { env: { ...process.env, DATABASE_URL: database.url, DATA_DIR: dataDir, LOG_LEVEL: "error" }, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr })
    )
  })

beforeAll(async () => {
  database = await createTestDatabase()
  const business = await createBusiness(database.pool, { subdomain: "demo" })
  await createPerson(database.pool, business.id)
})
afterAll(async () => {
  await database?.drop()
  fs.rmSync(dataDir, { recursive: true, force: true })
})

describe("npm run studio -- sync", () => {
  it("rebuilds the store with --full, then refreshes it incrementally", async () => {
    const full = await studio("sync", "--full")
    expect(full.code, full.stderr).toBe(0)
    expect(JSON.parse(full.stdout)).toMatchObject({ outcome: "full", generation: 1, rows: { clients: 1 } })
    expect(fs.existsSync(path.join(dataDir, "reports", "store-1.duckdb"))).toBe(true)

    const incremental = await studio("sync")
    expect(incremental.code, incremental.stderr).toBe(0)
    expect(JSON.parse(incremental.stdout)).toMatchObject({ outcome: "unchanged", generation: 1 })
  })
})
