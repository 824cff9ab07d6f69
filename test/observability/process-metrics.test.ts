import * as fs from "node:fs"
import * as path from "node:path"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createTestDatabase } from "../support/database.ts"
import { samples, scrape } from "../support/metrics.ts"
import { freePort, get, type LongRunning, startProcess, stopAll } from "../support/processes.ts"

/**
 * `studio worker` and `studio serve --processes 2` as OS processes with METRICS_PORT set: each
 * worker serves /metrics on it, HTTP process i on METRICS_PORT + i, and the API port never.
 */
let database: Awaited<ReturnType<typeof createTestDatabase>>
let worker: LongRunning
let api: LongRunning
let workerMetrics: number
let apiMetrics: number
let apiPort: number
const dataDir = path.resolve(`.data/test/process-metrics-${process.pid}`)

beforeAll(async () => {
  fs.rmSync(dataDir, { recursive: true, force: true })
  database = await createTestDatabase()
  const setup = (env: Record<string, string>) => ({ cwd: process.cwd(), env: { DATABASE_URL: database.url, DATA_DIR: dataDir, ...env } })
  workerMetrics = await freePort()
  worker = await startProcess(setup({ METRICS_PORT: String(workerMetrics), WORKER_CONCURRENCY: "1" }), ["src/cli.ts", "worker"], /worker started/)
  apiPort = await freePort()
  // Two free ports in a row: HTTP process i listens on METRICS_PORT + i.
  for (;;) {
    apiMetrics = await freePort(50000, 58999)
    if ((await freePort(apiMetrics + 1, apiMetrics + 1).catch(() => undefined)) !== undefined) break
  }
  api = await startProcess(
    setup({ PORT: String(apiPort), HOST: "127.0.0.1", METRICS_PORT: String(apiMetrics) }),
    ["src/cli.ts", "serve", "--processes", "2"],
    /http processes listening/
  )
}, 180_000)

afterAll(async () => {
  await api?.stop()
  await worker?.stop()
  await stopAll()
  await database?.drop()
  fs.rmSync(dataDir, { recursive: true, force: true })
})

/**
 * A metrics listener opens beside its HTTP server, not before the primary's "listening" line:
 * the first scrape of a process may still find its port closed, so it is tried again for a while.
 */
const scrapeOnceListening = async (port: number) => {
  for (let attempt = 0; ; attempt++) {
    try {
      return await scrape(port)
    } catch (error) {
      if (attempt >= 100) throw error
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
  }
}

describe("metrics listeners of separate processes", () => {
  it("a worker serves its job metrics on METRICS_PORT", async () => {
    const response = await scrape(workerMetrics)
    expect(response.status).toBe(200)
    const values = samples(response.body)
    expect(values.get('studio_job_runs_total{task="deliver_webhook",outcome="failure"}')).toBe(0)
    expect(values.has('studio_jobs{task="deliver_webhook",state="queued"}')).toBe(true)
  })

  it("each HTTP process serves its own on METRICS_PORT + its slot, and the API port none", async () => {
    for (const port of [apiMetrics, apiMetrics + 1]) {
      const response = await scrapeOnceListening(port)
      expect(response.status).toBe(200)
      expect(response.body).toMatch(/^process_resident_memory_bytes \d+/m)
    }
    expect((await get(apiPort, "/metrics", { host: "localhost" })).status).toBe(404)
  })

  it("a worker answers /healthz and /readyz on METRICS_PORT (database, worker loop), 503 while its database refuses it", async () => {
    const live = await get(workerMetrics, "/healthz", {})
    expect(live.status).toBe(200)
    expect(JSON.parse(live.body)).toEqual({ status: "ok" })
    const readyz = async () => {
      const response = await get(workerMetrics, "/readyz", {})
      return { status: response.status, json: JSON.parse(response.body) }
    }
    const waitFor = async (status: number) => {
      for (let attempt = 0; ; attempt++) {
        const answer = await readyz()
        if (answer.status === status || attempt >= 150) return answer
        await new Promise((resolve) => setTimeout(resolve, 200))
      }
    }
    const ready = await waitFor(200)
    expect(ready.status, JSON.stringify(ready.json)).toBe(200)
    expect(ready.json.status).toBe("ok")
    expect(ready.json.checks.map((check: { name: string }) => check.name)).toEqual(["database", "worker"])
    for (const check of ready.json.checks) expect(check.state).toBe("ok")

    // The worker's database stops taking connections (its open ones are ended), then takes them again.
    const name = new URL(database.url).pathname.slice(1)
    // From another database: PostgreSQL refuses to disallow connections to the current one.
    const admin = new pg.Client({ connectionString: Object.assign(new URL(database.url), { pathname: "/postgres" }).toString() })
    await admin.connect()
    try {
      await admin.query(`alter database ${name} allow_connections false`)
      await admin.query("select pg_terminate_backend(pid) from pg_stat_activity where datname = $1", [name])
      const down = await waitFor(503)
      expect(down.status, JSON.stringify(down.json)).toBe(503)
      expect(down.json.status).toBe("unavailable")
      expect(down.json.errors[0]).toMatch(/^database unreachable: /)
      expect(down.json.checks[0]).toMatchObject({ name: "database", state: "failing" })
      // Liveness is the process, not its database.
      expect((await get(workerMetrics, "/healthz", {})).status).toBe(200)
    } finally {
      await admin.query(`alter database ${name} allow_connections true`)
      await admin.end()
    }
    const back = await waitFor(200)
    expect(back.status, JSON.stringify(back.json)).toBe(200)
  }, 120_000)
})
