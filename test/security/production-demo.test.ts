import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createTestDatabase } from "../support/database.ts"
import { freePort, get, run, startProcess, stopAll } from "../support/processes.ts"

/**
 * Issue 29, point 1: a deployment from the image (NODE_ENV=production) carries no demo. Started
 * as the image starts it, a process of its own on a database of its own; the CLI as an operator
 * runs it.
 */
const root = path.resolve(import.meta.dirname, "../..")
const dataDir = path.resolve(`.data/test/production-demo-${process.pid}`)
let database: Awaited<ReturnType<typeof createTestDatabase>>

const setup = (env: Record<string, string>) => ({
  cwd: root,
  env: { DATABASE_URL: database.url, DATA_DIR: dataDir, BASE_DOMAIN: "localhost", ...env }
})
// The keys production requires from the environment (docs/security.md), never from the database.
const production = (env: Record<string, string> = {}) =>
  setup({ NODE_ENV: "production", SESSION_SECRET: "s".repeat(32), WEBHOOK_SECRET_KEY: "ab".repeat(32), ...env })

const count = async (query: string) => Number((await database.pool.query(query)).rows[0].count)

beforeAll(async () => {
  database = await createTestDatabase()
})
afterAll(async () => {
  await stopAll()
  await database?.drop()
  fs.rmSync(dataDir, { recursive: true, force: true })
})

describe("NODE_ENV=production", () => {
  it("starts without a demo business, a demo application or a printed credential", async () => {
    const port = await freePort()
    const server = await startProcess(production({ PORT: String(port) }), ["src/main.ts"], /Studio Service is ready/)
    try {
      const output = server.output()
      expect(output).not.toMatch(/studio-demo|demo-app-secret|Bearer|Tokens:|password/i)
      expect(output).toMatch(/studio business create/)
      expect(await count("select count(*) from businesses")).toBe(0)
      expect(await count("select count(*) from oauth_applications")).toBe(0)
      expect(await count("select count(*) from accounts")).toBe(0)
      expect(await count("select count(*) from access_tokens")).toBe(0)
      expect(fs.existsSync(path.join(dataDir, "demo-tokens.json"))).toBe(false)

      const demoHost = await get(port, "/api/v2/front/business?client_id=demo-app", { host: "demo.localhost" })
      expect(demoHost.status).toBe(404)
      expect(JSON.parse(demoHost.body).errors[0]).toMatch(/demo\.localhost/)
      // The demo's callback page (which prints the application secret) is not served either.
      const callback = await get(port, "/oauth/callback?code=x", { host: "localhost" })
      expect(callback.status).toBe(404)
    } finally {
      await server.stop()
    }
  })

  it("refuses `seed demo` with one clear line", async () => {
    const result = await run(production(), ["src/cli.ts", "seed", "demo"])
    expect(result.code).not.toBe(0)
    expect(result.stderr).toMatch(/demo business is for development/)
    expect(result.stdout).not.toMatch(/token/)
    expect(await count("select count(*) from businesses")).toBe(0)
  })
})

describe("a database seeded with the demo before production", () => {
  it("gives every demo account a hash of its own, warns a production start, and `seed lock-demo` takes the published secrets away", async () => {
    const seeded = await run(setup({}), ["src/cli.ts", "seed", "demo"])
    expect(seeded.code, seeded.stderr).toBe(0)
    const ownerToken = JSON.parse(seeded.stdout).owner_token as string

    const hashes = await database.pool.query(
      "select count(*) as accounts, count(distinct password_hash) as hashes from accounts where email like '%@demo.test' and password_hash is not null"
    )
    expect(Number(hashes.rows[0].accounts)).toBeGreaterThan(50)
    expect(Number(hashes.rows[0].hashes)).toBe(Number(hashes.rows[0].accounts))

    const port = await freePort()
    const warned = await startProcess(production({ PORT: String(port) }), ["src/main.ts"], /Studio Service is ready/)
    try {
      expect(warned.output()).toMatch(/published.*seed lock-demo/)
      const before = await get(port, "/api/v2/desk/business", { host: "demo.localhost", authorization: `Bearer ${ownerToken}` })
      expect(before.status).toBe(200)

      const locked = await run(production(), ["src/cli.ts", "seed", "lock-demo"])
      expect(locked.code, locked.stderr).toBe(0)
      const summary = JSON.parse(locked.stdout)
      expect(summary.passwords_cleared).toBeGreaterThan(50)
      expect(summary.tokens_revoked).toBeGreaterThanOrEqual(2)
      expect(summary.application_locked).toBe(true)

      // The running server forgets the revoked token at once (the cache listens for changes).
      const after = await get(port, "/api/v2/desk/business", { host: "demo.localhost", authorization: `Bearer ${ownerToken}` })
      expect(after.status).toBe(401)
      expect(await count("select count(*) from accounts where email like '%@demo.test' and password_hash is not null")).toBe(0)
    } finally {
      await warned.stop()
    }

    const again = await startProcess(production({ PORT: String(await freePort()) }), ["src/main.ts"], /Studio Service is ready/)
    try {
      expect(again.output()).not.toMatch(/seed lock-demo/)
    } finally {
      await again.stop()
    }
  }, 120_000)
})
