import { execFile } from "node:child_process"
import { createDecipheriv } from "node:crypto"
import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { hashPassword } from "../../src/access/passwords.ts"
import { createBusiness, createPerson, createToken } from "../support/factories.ts"
import { type TestServer, startTestServer } from "../support/server.ts"

/**
 * Issue 29: in production the keys that sign sessions and seal webhook secrets come from the
 * environment (or a file); a start without them stops with one clear line, and the database
 * row (app_secrets) is never the key.
 */
const ROOT = path.resolve(import.meta.dirname, "../..")
const SESSION_SECRET = "a-session-secret-of-at-least-32-characters"
const WEBHOOK_KEY = "0123456789abcdef".repeat(4)
let dir: string

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "production-keys-"))
})
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true })
})

/** `node src/main.ts` in production, on a database nobody listens on (it must stop before that matters). */
const start = (env: Record<string, string>) =>
  new Promise<{ code: number | null; stderr: string }>((resolve) => {
    const base: Record<string, string> = { ...(process.env as Record<string, string>) }
    for (const name of ["SESSION_SECRET", "SESSION_SECRET_FILE", "WEBHOOK_SECRET_KEY", "WEBHOOK_SECRET_KEY_FILE", "VITEST", "VITEST_WORKER_ID", "VITEST_POOL_ID"]) {
      delete base[name]
    }
    const child = execFile(
      process.execPath,
      ["src/main.ts"],
      {
        cwd: ROOT,
        timeout: 60_000,
        env: { ...base, NODE_ENV: "production", DATABASE_URL: "postgres://nobody:nothing@127.0.0.1:1/none", DATA_DIR: dir, ...env }
      },
      (_error, _stdout, stderr) => resolve({ code: child.exitCode, stderr })
    )
  })

const expectOneLine = (result: { code: number | null; stderr: string }, pattern: RegExp) => {
  expect(result.code, result.stderr).toBe(1)
  const lines = result.stderr.trim().split("\n")
  expect(lines, result.stderr).toHaveLength(1)
  expect(lines[0]).toMatch(/^error: Studio Service could not start: /)
  expect(lines[0]).toMatch(pattern)
}

describe("a production start", () => {
  it("stops with one line naming SESSION_SECRET when it is missing", async () => {
    expectOneLine(await start({ WEBHOOK_SECRET_KEY: WEBHOOK_KEY }), /SESSION_SECRET \(or SESSION_SECRET_FILE\) must be set when NODE_ENV=production/)
  }, 70_000)

  it("stops with one line naming WEBHOOK_SECRET_KEY when it is missing or malformed", async () => {
    expectOneLine(await start({ SESSION_SECRET }), /WEBHOOK_SECRET_KEY \(or WEBHOOK_SECRET_KEY_FILE\) must be set/)
    expectOneLine(await start({ SESSION_SECRET, WEBHOOK_SECRET_KEY: "not-hex" }), /WEBHOOK_SECRET_KEY is not valid: 64 hex digits/)
  }, 130_000)

  it("reads the keys from files, and stops on a file it cannot read or a key too short", async () => {
    const missing = path.join(dir, "no-such-file")
    expectOneLine(await start({ SESSION_SECRET_FILE: missing, WEBHOOK_SECRET_KEY: WEBHOOK_KEY }), /SESSION_SECRET_FILE: cannot read .*no-such-file \(ENOENT\)/)
    const short = path.join(dir, "short")
    await writeFile(short, "too short\n")
    expectOneLine(await start({ SESSION_SECRET_FILE: short, WEBHOOK_SECRET_KEY: WEBHOOK_KEY }), /SESSION_SECRET_FILE is not valid: at least 32 characters/)
    // Good files get past the keys: the start then stops at the database nobody listens on.
    const session = path.join(dir, "session")
    const webhook = path.join(dir, "webhook")
    await writeFile(session, `${SESSION_SECRET}\n`)
    await writeFile(webhook, `${WEBHOOK_KEY}\n`)
    const result = await start({ SESSION_SECRET_FILE: session, WEBHOOK_SECRET_KEY_FILE: webhook })
    expect(result.code).toBe(1)
    expect(result.stderr).not.toMatch(/SESSION_SECRET|WEBHOOK_SECRET_KEY/)
  }, 200_000)
})

describe("a production server with its keys", () => {
  let server: TestServer
  let ownerToken: string
  const PASSWORD = "correct horse battery"
  beforeAll(async () => {
    server = await startTestServer({ production: true, sessionSecret: SESSION_SECRET, webhookSecretKey: WEBHOOK_KEY })
    const business = await createBusiness(server.pool, { subdomain: "demo" })
    await server.pool.query("update businesses set webhooks_enabled = true where id = $1", [business.id])
    const owner = await createPerson(server.pool, business.id, { role: "owner", email: "owner@demo.test" })
    await server.pool.query("update accounts set password_hash = $2 where id = $1", [owner.accountId, await hashPassword(PASSWORD)])
    ownerToken = await createToken(server.pool, owner.accountId, business.id)
  }, 120_000)
  afterAll(async () => server?.close())

  it("seals webhook secrets with WEBHOOK_SECRET_KEY and signs sessions without a database key", async () => {
    const created = await server.request("POST", "/api/v3/webhooks", {
      token: ownerToken,
      body: JSON.stringify({ data: { type: "webhooks", attributes: { target: "http://127.0.0.1:9/hooks", topic: "person.created" } } }),
      headers: { "content-type": "application/vnd.api+json" }
    })
    expect(created.status, created.text).toBe(201)
    const { rows } = await server.pool.query("select secret_encrypted from webhook_subscriptions where id = $1", [created.json.data.id])
    const sealed: Buffer = rows[0].secret_encrypted
    const decipher = createDecipheriv("aes-256-gcm", Buffer.from(WEBHOOK_KEY, "hex"), sealed.subarray(0, 12))
    decipher.setAuthTag(sealed.subarray(12, 28))
    expect(Buffer.concat([decipher.update(sealed.subarray(28)), decipher.final()]).toString("utf8")).toBe(created.json.data.attributes.secret)

    // A sign-in signs its cookies: with SESSION_SECRET, never with a key made in the database.
    const form = await server.request("GET", "/accounts/sign_in")
    expect(form.status).toBe(200)
    const cookies = (form.headers["set-cookie"] ?? []).map((line) => line.split(";")[0]).join("; ")
    const token = /name="authenticity_token" type="hidden" value="([^"]*)"/.exec(form.text)![1]!
    const signedIn = await server.request("POST", "/accounts/sign_in", {
      body: new URLSearchParams({ authenticity_token: token, "account[email]": "owner@demo.test", "account[password]": PASSWORD }).toString(),
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: cookies }
    })
    expect(signedIn.status, signedIn.text).toBe(200)
    const secrets = await server.pool.query("select name from app_secrets where name in ('session', 'webhooks')")
    expect(secrets.rows).toEqual([])
  })
})
