import { execFile } from "node:child_process"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createTestDatabase } from "../support/database.ts"
import { startTestServerOn, TEST_BASE_DOMAIN } from "../support/server.ts"

/** The operator CLI as an operator runs it: a process, its stdout, stderr and exit code. */
let database: Awaited<ReturnType<typeof createTestDatabase>>
const dataDir = `.data/test/cli-${process.pid}`

const studio = (...args: Array<string>) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      ["src/cli.ts", ...args],
      { env: { ...process.env, DATABASE_URL: database.url, DATA_DIR: dataDir, LOG_LEVEL: "info" }, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr })
    )
  })

beforeAll(async () => {
  database = await createTestDatabase()
})
afterAll(async () => database?.drop())

describe("npm run studio --", () => {
  it("migrate, seed demo, then token prints only a token that works on the desk endpoints", { timeout: 120_000 }, async () => {
    expect((await studio("migrate")).code).toBe(0)
    const seeded = await studio("seed", "demo")
    expect(seeded.code, seeded.stderr).toBe(0)

    const result = await studio("token", "--business", "demo", "--email", "owner@demo.test")
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toMatch(/^[A-Za-z0-9_-]{43}\n$/)
    const token = result.stdout.trim()

    const onCliDatabase = await startTestServerOn(database.url)
    try {
      const desk = await onCliDatabase.request("GET", "/api/v2/desk/locations", { token })
      expect(desk.status).toBe(200)
      const other = await studio("business", "create", "--subdomain", "other", "--name", "Other", "--owner-email", "o@other.test")
      expect(other.code, other.stderr).toBe(0)
      expect(JSON.parse(other.stdout)).toMatchObject({ subdomain: "other" })
      const refused = await onCliDatabase.request("GET", "/api/v2/desk/business", { token, host: `other.${TEST_BASE_DOMAIN}` })
      expect(refused.status).toBe(401)
    } finally {
      await onCliDatabase.close()
    }
  })

  it("issues account-wide tokens without --business", async () => {
    const result = await studio("token", "--email", "owner@demo.test")
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout.trim()).toMatch(/^[A-Za-z0-9_-]{43}$/)
  })

  it("exits non-zero with one clear line on bad input", { timeout: 90_000 }, async () => {
    const unknownBusiness = await studio("token", "--business", "nope", "--email", "owner@demo.test")
    expect(unknownBusiness.code).not.toBe(0)
    expect(unknownBusiness.stdout).toBe("")
    expect(unknownBusiness.stderr).toContain("nope")

    const notThere = await studio("token", "--business", "demo", "--email", "nobody@demo.test")
    expect(notThere.code).not.toBe(0)

    const taken = await studio("business", "create", "--subdomain", "demo", "--name", "Again", "--owner-email", "x@y.test")
    expect(taken.code).not.toBe(0)
    expect(taken.stderr).toContain("taken")

    const missingFile = await studio("import", "/no/such/file.json")
    expect(missingFile.code).not.toBe(0)
    expect(missingFile.stderr).not.toContain("    at ")
  })

  it("registers OAuth applications", async () => {
    const result = await studio("app", "create", "--name", "Aggregator", "--redirect-uri", "https://agg.example/callback")
    expect(result.code, result.stderr).toBe(0)
    const app = JSON.parse(result.stdout)
    expect(app.client_id).toMatch(/^[0-9a-f]{32}$/)
    expect(typeof app.client_secret).toBe("string")
  })
})
