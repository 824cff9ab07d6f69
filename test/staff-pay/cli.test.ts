import { execFile } from "node:child_process"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createTestDatabase } from "../support/database.ts"
import { createBusiness, createPerson } from "../support/factories.ts"
import { paysOf } from "./support.ts"

/** `npm run studio -- pays list|review|add` as an operator runs it, a process of its own. */

let database: Awaited<ReturnType<typeof createTestDatabase>>
let businessId: number
let ana: number
let owner: number

const studio = (...args: Array<string>) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      ["src/cli.ts", "pays", ...args],
      { env: { ...process.env, DATABASE_URL: database.url, LOG_LEVEL: "error" }, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr })
    )
  })

beforeAll(async () => {
  database = await createTestDatabase()
  businessId = (await createBusiness(database.pool, { subdomain: "demo", time_zone: "America/Los_Angeles" })).id
  owner = (await createPerson(database.pool, businessId, { role: "owner" })).staffMemberId!
  ana = (await createPerson(database.pool, businessId, { role: "standard" })).staffMemberId!
}, 120_000)
afterAll(async () => {
  await database?.drop()
})

// Each test runs the CLI as separate processes, a few seconds each on a loaded 2-core machine:
// room beyond the default 30 s.
describe("npm run studio -- pays", () => {
  it("adds an ad-hoc pay, lists it, reviews it once", async () => {
    const added = await studio("add", "--staff", String(ana), "--amount-cents", "2500", "--description", "Front desk cover")
    expect(added.code, added.stderr).toBe(0)
    const pay = JSON.parse(added.stdout).pays[0]
    expect(pay).toMatchObject({ pay_type: "adhoc", pay_state: "pending", staff_member_id: ana, final_cents: 2500, description: "Front desk cover" })

    const listed = await studio("list", "--business", "demo", "--state", "pending", "--period", pay.pay_period_start)
    expect(listed.code, listed.stderr).toBe(0)
    expect(JSON.parse(listed.stdout).pays.map((p: { id: number }) => p.id)).toEqual([pay.id])
    expect(JSON.parse((await studio("list", "--state", "approved")).stdout).pays).toEqual([])

    const approved = await studio("review", String(pay.id), "--approve", "--by", String(owner))
    expect(approved.code, approved.stderr).toBe(0)
    expect(JSON.parse(approved.stdout).pays[0]).toMatchObject({ id: pay.id, pay_state: "approved", reviewed_by_staff_member_id: owner })

    const again = await studio("review", String(pay.id), "--deny", "--by", String(owner))
    expect(again.code).toBe(1)
    expect(again.stderr).toContain(`pay ${pay.id} was already reviewed: approved`)
    expect((await paysOf(database.pool, businessId)).map((p) => p.pay_state)).toEqual(["approved"])
  }, 120_000)

  it("refuses bad input with a clear error and writes nothing", async () => {
    const both = await studio("review", "1", "--approve", "--deny", "--by", String(owner))
    expect(both.code).toBe(1)
    expect(both.stderr).toContain("exactly one of --approve and --deny")
    const unknownStaff = await studio("add", "--business", "demo", "--staff", "999999", "--amount-cents", "100", "--description", "x")
    expect(unknownStaff.code).toBe(1)
    expect(unknownStaff.stderr).toContain("no staff member 999999")
    const tipWithoutInvoice = await studio("add", "--business", "demo", "--type", "tip", "--staff", String(ana), "--amount-cents", "100", "--description", "x")
    expect(tipWithoutInvoice.code).toBe(1)
    expect(tipWithoutInvoice.stderr).toContain("--invoice is required")
    const badPeriod = await studio("list", "--period", "March")
    expect(badPeriod.code).toBe(1)
    expect(badPeriod.stderr).toContain("--period")
    expect(await paysOf(database.pool, businessId)).toHaveLength(1)
  }, 120_000)
})
