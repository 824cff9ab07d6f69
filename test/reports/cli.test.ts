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

let businessId: number
let manager: Awaited<ReturnType<typeof createPerson>>

beforeAll(async () => {
  database = await createTestDatabase()
  const business = await createBusiness(database.pool, { subdomain: "demo" })
  businessId = business.id
  await createPerson(database.pool, business.id)
  manager = await createPerson(database.pool, business.id, { email: "manager@example.test", role: "manager" })
})
afterAll(async () => {
  await database?.drop()
  fs.rmSync(dataDir, { recursive: true, force: true })
})

describe("npm run studio -- sync", () => {
  it("rebuilds the store with --full, then refreshes it incrementally", async () => {
    const full = await studio("sync", "--full")
    expect(full.code, full.stderr).toBe(0)
    expect(JSON.parse(full.stdout)).toMatchObject({ outcome: "full", generation: 1, rows: { clients: 2 } })
    expect(fs.existsSync(path.join(dataDir, "reports", "store-1.duckdb"))).toBe(true)

    const incremental = await studio("sync")
    expect(incremental.code, incremental.stderr).toBe(0)
    expect(JSON.parse(incremental.stdout)).toMatchObject({ outcome: "unchanged", generation: 1 })
  })
})

describe("npm run studio -- reports grant|revoke", () => {
  const grants = async () =>
    (await database.pool.query(`select staff_member_id from report_grants where business_id = $1`, [businessId])).rows.map((row) =>
      Number(row.staff_member_id))

  it("grants and revokes a staff member's report access by e-mail", async () => {
    const granted = await studio("reports", "grant", "--business", "demo", "--email", "Manager@Example.test")
    expect(granted.code, granted.stderr).toBe(0)
    expect(JSON.parse(granted.stdout)).toMatchObject({ business: "demo", staff_member_id: manager.staffMemberId, granted: true, can_read_reports: true })
    // Granting twice is harmless.
    expect((await studio("reports", "grant", "--business", "demo", "--email", "manager@example.test")).code).toBe(0)
    expect(await grants()).toEqual([manager.staffMemberId])

    const revoked = await studio("reports", "revoke", "--business", "demo", "--email", "manager@example.test")
    expect(revoked.code, revoked.stderr).toBe(0)
    expect(JSON.parse(revoked.stdout)).toMatchObject({ granted: false, can_read_reports: false })
    expect(await grants()).toEqual([])
  })

  it("refuses someone who is not staff, an unknown business and a malformed e-mail", async () => {
    const notStaff = await studio("reports", "grant", "--business", "demo", "--email", "nobody@example.test")
    expect(notStaff.code).toBe(1)
    expect(notStaff.stderr).toContain("nobody@example.test is not a staff member")
    const unknown = await studio("reports", "grant", "--business", "nowhere", "--email", "manager@example.test")
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toContain('no business with subdomain "nowhere"')
    const malformed = await studio("reports", "grant", "--business", "demo", "--email", "not-an-address")
    expect(malformed.code).toBe(1)
    expect(await grants()).toEqual([])
  })
})

describe("npm run studio -- seed scale", () => {
  it("generates businesses with enrollments, and refuses sizes out of range", async () => {
    const seeded = await studio("seed", "scale", "--enrollments", "2000", "--years", "1")
    expect(seeded.code, seeded.stderr).toBe(0)
    const summary = JSON.parse(seeded.stdout)
    expect(summary.businesses).toEqual(["scale-1"])
    expect(summary.visits + summary.waitlist_entries).toBeGreaterThan(1000)
    const { rows } = await database.pool.query(
      `select count(*)::int as n from visits v join businesses b on b.id = v.business_id where b.subdomain = 'scale-1'`
    )
    expect(rows[0].n).toBe(summary.visits)

    const zero = await studio("seed", "scale", "--enrollments", "0")
    expect(zero.code).toBe(1)
    expect(zero.stderr).toContain("--enrollments must be between 1 and 100000000")
    const years = await studio("seed", "scale", "--enrollments", "10", "--years", "50")
    expect(years.code).toBe(1)
    expect(years.stderr).toContain("--years must be between 1 and 20")
  })
})
