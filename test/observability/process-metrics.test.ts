import * as fs from "node:fs"
import * as path from "node:path"
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
})
