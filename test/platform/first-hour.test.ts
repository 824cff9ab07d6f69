import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createTestDatabase } from "../support/database.ts"
import { freePort, get, run, startProcess, stopAll } from "../support/processes.ts"

/**
 * Issue 30, "the first hour": what a new user meets following the README on a port other than
 * 3000. `npm start` and the CLI as processes of their own, on a database of their own.
 */
const root = path.resolve(import.meta.dirname, "../..")
const dataDir = path.resolve(`.data/test/first-hour-${process.pid}`)
let database: Awaited<ReturnType<typeof createTestDatabase>>

const setup = (env: Record<string, string> = {}) => ({
  cwd: root,
  env: { DATABASE_URL: database.url, DATA_DIR: dataDir, BASE_DOMAIN: "localhost", ...env }
})

beforeAll(async () => {
  database = await createTestDatabase()
})
afterAll(async () => {
  await stopAll()
  await database?.drop()
  fs.rmSync(dataDir, { recursive: true, force: true })
})

/** Starts `npm start`'s program on `port` and returns it with the OAuth link it printed. */
const start = async (port: number) => {
  const server = await startProcess(setup({ PORT: String(port) }), ["src/main.ts"], /Studio Service is ready/)
  const link = server.output().match(/^\s+(http:\/\/\S+\/oauth\/authorize\?\S+)$/m)?.[1]
  expect(link, server.output()).toBeDefined()
  return { server, link: new URL(link!) }
}

/** Opens the printed link as a browser would (its host, its path). */
const open = (port: number, link: URL) => get(port, `${link.pathname}${link.search}`, { host: link.host })

describe("the demo OAuth application", () => {
  it("registers the callback of the port `npm start` runs on, follows a later start's port, and stays locked once locked", async () => {
    const first = await freePort()
    const a = await start(first)
    try {
      expect(a.link.searchParams.get("redirect_uri")).toBe(`http://localhost:${first}/oauth/callback`)
      const page = await open(first, a.link)
      expect(page.status, page.body).toBe(200)
      expect(page.body).toContain('action="/oauth/login"')
    } finally {
      await a.server.stop()
    }

    const second = await freePort()
    const b = await start(second)
    try {
      expect(b.link.searchParams.get("redirect_uri")).toBe(`http://localhost:${second}/oauth/callback`)
      const page = await open(second, b.link)
      expect(page.status, page.body).toBe(200)
      expect(page.body).toContain('action="/oauth/login"')
    } finally {
      await b.server.stop()
    }

    const locked = await run(setup(), ["src/cli.ts", "seed", "lock-demo"])
    expect(locked.code, locked.stderr).toBe(0)
    const c = await start(await freePort())
    await c.server.stop()
    const rows = await database.pool.query("select redirect_uri from oauth_applications where client_id = 'demo-app'")
    expect(rows.rows[0].redirect_uri).toBe("urn:studio-service:demo-locked")
  }, 240_000)
})
