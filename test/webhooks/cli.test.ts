import { execFile } from "node:child_process"
import * as fs from "node:fs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createTestDatabase } from "../support/database.ts"
import { createBusiness, createPerson } from "../support/factories.ts"

/** `npm run studio -- webhooks enable|disable --business S`, as an operator runs it. */
let database: Awaited<ReturnType<typeof createTestDatabase>>
const dataDir = `.data/test/webhooks-cli-${process.pid}`

const studio = (...args: Array<string>) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      ["src/cli.ts", ...args],
      { env: { ...process.env, DATABASE_URL: database.url, DATA_DIR: dataDir, LOG_LEVEL: "warn" }, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr })
    )
  })

beforeAll(async () => {
  database = await createTestDatabase()
})
afterAll(async () => {
  await database?.drop()
  fs.rmSync(dataDir, { recursive: true, force: true })
})

describe("webhooks enable / disable", () => {
  it("turns the feature on, and off again, which deletes the business's webhooks", async () => {
    const business = await createBusiness(database.pool, { subdomain: "demo" })
    const owner = await createPerson(database.pool, business.id, { role: "owner" })

    const enabled = await studio("webhooks", "enable", "--business", "demo")
    expect(enabled.code, enabled.stderr).toBe(0)
    expect(JSON.parse(enabled.stdout)).toEqual({ business: "demo", webhooks_enabled: true, changed: true })
    await database.pool.query(
      `insert into webhook_subscriptions (business_id, created_by_staff_member_id, created_by_account_id, topic, target, secret_encrypted)
       values ($1, $2, $3, 'person.created', 'https://example.test/hooks', '\\x00')`,
      [business.id, owner.staffMemberId, owner.accountId]
    )

    const disabled = await studio("webhooks", "disable", "--business", "demo")
    expect(disabled.code, disabled.stderr).toBe(0)
    expect(JSON.parse(disabled.stdout)).toEqual({ business: "demo", webhooks_enabled: false, changed: true, webhooks_deleted: 1 })
    const { rows } = await database.pool.query("select webhooks_enabled, (select count(*)::int from webhook_subscriptions) as n from businesses where id = $1", [
      business.id
    ])
    expect(rows[0]).toEqual({ webhooks_enabled: false, n: 0 })

    const unknown = await studio("webhooks", "disable", "--business", "nope")
    expect(unknown.code).not.toBe(0)
    expect(unknown.stderr).toContain('no business with subdomain "nope"')
  })
})
