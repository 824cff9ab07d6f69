import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createTestDatabase } from "../support/database.ts"
import { freePort, get, type LongRunning, run, startProcess, stopAll } from "../support/processes.ts"

/**
 * Issue 30, "the first hour": what a new user meets following the README on a port other than
 * 3000. `npm start` and the CLI as processes of their own, on a database of their own.
 */
const root = path.resolve(import.meta.dirname, "../..")
type Database = Awaited<ReturnType<typeof createTestDatabase>>
const databases: Array<Database> = []
const dataDirs: Array<string> = []

/** A database and a DATA_DIR of their own, for one describe. */
const place = async (name: string) => {
  const database = await createTestDatabase()
  databases.push(database)
  const dataDir = path.resolve(`.data/test/first-hour-${name}-${process.pid}`)
  dataDirs.push(dataDir)
  const setup = (env: Record<string, string> = {}) => ({
    cwd: root,
    env: { DATABASE_URL: database.url, DATA_DIR: dataDir, BASE_DOMAIN: "localhost", LOG_LEVEL: "warn", ...env }
  })
  return { database, dataDir, setup }
}

afterAll(async () => {
  await stopAll()
  for (const database of databases) await database.drop()
  for (const dataDir of dataDirs) fs.rmSync(dataDir, { recursive: true, force: true })
})

/** Starts `npm start`'s program on `port` and returns it with the OAuth link it printed. */
const start = async (setup: Awaited<ReturnType<typeof place>>["setup"], port: number) => {
  const server = await startProcess(setup({ PORT: String(port) }), ["src/main.ts"], /Studio Service is ready/)
  const link = server.output().match(/^\s+(http:\/\/\S+\/oauth\/authorize\?\S+)$/m)?.[1]
  expect(link, server.output()).toBeDefined()
  return { server, link: new URL(link!) }
}

/** Opens the printed link as a browser would (its host, its path). */
const open = (port: number, link: URL) => get(port, `${link.pathname}${link.search}`, { host: link.host })

describe("the demo OAuth application", () => {
  it("registers the callback of the port `npm start` runs on, follows a later start's port, and stays locked once locked", async () => {
    const { database, setup } = await place("oauth")
    const first = await freePort()
    const a = await start(setup, first)
    try {
      expect(a.link.searchParams.get("redirect_uri")).toBe(`http://localhost:${first}/oauth/callback`)
      const page = await open(first, a.link)
      expect(page.status, page.body).toBe(200)
      expect(page.body).toContain('action="/oauth/login"')
    } finally {
      await a.server.stop()
    }

    const second = await freePort()
    const b = await start(setup, second)
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
    const c = await start(setup, await freePort())
    await c.server.stop()
    const rows = await database.pool.query("select redirect_uri from oauth_applications where client_id = 'demo-app'")
    expect(rows.rows[0].redirect_uri).toBe("urn:studio-service:demo-locked")
  }, 240_000)
})

describe("the README's tour on a port other than 3000", () => {
  let tour: Awaited<ReturnType<typeof place>>
  let server: LongRunning
  let port: number
  let ownerToken: string

  beforeAll(async () => {
    tour = await place("tour")
    port = await freePort()
    server = (await start(tour.setup, port)).server
    ownerToken = server.output().match(/owner@demo\.test \(owner\) (\S+)/)![1]!
  }, 120_000)
  afterAll(async () => {
    await server?.stop()
  })

  const desk = async (urlPath: string, headers: Record<string, string> = { authorization: `Bearer ${ownerToken}` }) => {
    const answer = await get(port, urlPath, { host: `demo.localhost:${port}`, ...headers })
    expect(answer.status, answer.body).toBe(200)
    return JSON.parse(answer.body)
  }

  it("lists the full class's waitlist in queue order, client@demo.test first", async () => {
    const waiting = await tour.database.pool.query(
      "select distinct event_occurrence_id as id from waitlist_entries where state = 'waiting'"
    )
    expect(waiting.rows).toHaveLength(1)
    const client = await tour.database.pool.query("select id from people where email = 'client@demo.test'")
    const list = await desk(`/api/v2/desk/event_occurrences/${waiting.rows[0].id}/waitlist_entries`)
    expect(list.waitlist_entries.length).toBeGreaterThanOrEqual(3)
    expect(list.waitlist_entries[0].person_id).toBe(Number(client.rows[0].id))
  })

  it("writes next and prev links without the access_token given in the query string", async () => {
    const token = encodeURIComponent(ownerToken)
    const second = await desk(`/api/v2/desk/people?per_page=2&page=2&access_token=${token}`, {})
    for (const link of [second.next, second.prev]) {
      expect(link).toBeDefined()
      expect(link).not.toContain("access_token")
      expect(link).not.toContain(ownerToken)
      expect(new URL(link).searchParams.get("per_page")).toBe("2")
    }
    // The link works with the token where it belongs, in the header.
    const next = new URL(second.next)
    expect((await desk(`${next.pathname}${next.search}`)).people).toHaveLength(2)
  })

  it("`studio sync` beside it says what the store holds, what the run changed and the generation's age", async () => {
    for (const round of [1, 2]) {
      const synced = await run(tour.setup(), ["src/cli.ts", "sync"])
      expect(synced.code, synced.stderr).toBe(0)
      const answer = JSON.parse(synced.stdout)
      expect(answer.store.generation).toBe(answer.generation)
      expect(answer.store.age_seconds).toBeGreaterThanOrEqual(0)
      for (const resource of ["clients", "enrollments", "event_occurrences", "person_plans", "invoices", "pays"]) {
        expect(answer.store.rows[resource], `${resource} (round ${round})`).toBeGreaterThan(0)
      }
      expect(answer.summary).toMatch(/it holds \d+ clients, \d+ enrollments/)
      if (answer.outcome === "unchanged") expect(answer.summary).toMatch(/^nothing changed since the last sync/)
    }
  }, 120_000)

  it("a second start on the same PORT ends with one line naming the fix", async () => {
    const second = await run(tour.setup({ PORT: String(port) }), ["src/main.ts"])
    expect(second.code).toBe(1)
    const errors = second.stderr.split("\n").filter((line) => line.startsWith("error:"))
    expect(errors).toHaveLength(1)
    expect(errors[0]).toMatch(new RegExp(`PORT ${port} is in use .*set PORT to a free one`))
    expect(second.stderr).not.toContain("    at ")
  })
})
