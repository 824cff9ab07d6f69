import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { reportAgeLimitSeconds } from "../../src/app/health/checks.ts"
import { WorkerHeartbeat } from "../../src/platform/worker-heartbeat.ts"
import { startTestServer, type TestServer } from "../support/server.ts"

/**
 * `/readyz` says why: 200 when every check passes, 503 when one fails, both with
 * `checks`; a failing check's reason is also in `errors`. `/healthz` stays liveness.
 */
let withWorker: TestServer
let apiOnly: TestServer
const dataDir = path.resolve(`.data/test/readiness-${process.pid}`)

beforeAll(async () => {
  fs.rmSync(dataDir, { recursive: true, force: true })
  ;[withWorker, apiOnly] = await Promise.all([
    startTestServer({ worker: true, dataDir: `${dataDir}/worker` }),
    startTestServer({ dataDir: `${dataDir}/api` })
  ])
}, 120_000)

afterAll(async () => {
  await withWorker?.close()
  await apiOnly?.close()
  fs.rmSync(dataDir, { recursive: true, force: true })
})

const names = (checks: ReadonlyArray<{ name: string }>) => checks.map((check) => check.name)

describe("/readyz", () => {
  it("answers 200 with every check of a process that runs a worker", async () => {
    const ready = await withWorker.request("GET", "/readyz", { host: "10.0.0.7" })
    expect(ready.status, ready.text).toBe(200)
    expect(ready.json.status).toBe("ok")
    expect(names(ready.json.checks)).toEqual(["database", "migrations", "worker", "reports"])
    for (const check of ready.json.checks) {
      expect(check.state).toBe("ok")
      expect(check.reason).toBeUndefined()
    }
    expect((await withWorker.request("GET", "/healthz")).json).toEqual({ status: "ok" })
  })

  it("answers 503 when this process's worker pool has stopped", async () => {
    // What the runner records on graphile-worker's `pool:fatalError` (the loop then never ticks again).
    const setFatal = (fatal: string | undefined) =>
      withWorker.runtime.runPromise(WorkerHeartbeat.useSync((heartbeat) => void (heartbeat.fatal = fatal)))
    await setFatal("connection terminated unexpectedly")
    try {
      const down = await withWorker.request("GET", "/readyz")
      expect(down.status, down.text).toBe(503)
      expect(down.json.errors).toEqual(["the worker pool stopped: connection terminated unexpectedly"])
      expect(down.json.checks).toContainEqual({
        name: "worker",
        state: "failing",
        reason: "the worker pool stopped: connection terminated unexpectedly"
      })
    } finally {
      await setFatal(undefined)
    }
    expect((await withWorker.request("GET", "/readyz")).status).toBe(200)
  })

  it("has no worker check in a process that runs no worker", async () => {
    const ready = await apiOnly.request("GET", "/readyz")
    expect(ready.status, ready.text).toBe(200)
    expect(names(ready.json.checks)).toEqual(["database", "migrations", "reports"])
  })

  it("answers 503 naming the migrations the database lacks", async () => {
    const { rows } = await apiOnly.pool.query("select version, name from schema_migrations order by version desc limit 1")
    const last = rows[0] as { version: string; name: string }
    await apiOnly.pool.query("delete from schema_migrations where version = $1", [last.version])
    try {
      const behind = await apiOnly.request("GET", "/readyz")
      expect(behind.status, behind.text).toBe(503)
      const reason = `migrations behind the code: ${last.version} not applied (run \`studio migrate\`)`
      expect(behind.json.errors).toEqual([reason])
      expect(behind.json.checks).toContainEqual({ name: "migrations", state: "failing", reason })
      expect(behind.json.checks.find((check: { name: string }) => check.name === "database").state).toBe("ok")
      expect((await apiOnly.request("GET", "/healthz")).status).toBe(200)
    } finally {
      await apiOnly.pool.query("insert into schema_migrations (version, name) values ($1, $2)", [last.version, last.name])
    }
    expect((await apiOnly.request("GET", "/readyz")).status).toBe(200)
  })

  it("answers 503 when the report generation is older than its limit", async () => {
    const reports = path.join(dataDir, "api", "reports")
    fs.mkdirSync(reports, { recursive: true })
    const limit = reportAgeLimitSeconds(apiOnly.config.reportRefreshSeconds)
    const pointer = {
      generation: 7,
      file: "store-7.duckdb",
      synced_at: new Date(Date.now() - (limit + 3600) * 1000).toISOString(),
      rebuilt_at: new Date(Date.now() - 86_400_000).toISOString(),
      mode: "incremental",
      schema: "test"
    }
    fs.writeFileSync(path.join(reports, "current.json"), JSON.stringify(pointer))
    try {
      const stale = await apiOnly.request("GET", "/readyz")
      expect(stale.status, stale.text).toBe(503)
      expect(stale.json.status).toBe("unavailable")
      expect(stale.json.errors).toHaveLength(1)
      expect(stale.json.errors[0]).toMatch(new RegExp(`^the report generation 7 is \\d+ s old \\(limit ${limit} s\\)$`))
      expect(stale.json.checks.find((check: { name: string }) => check.name === "reports")).toMatchObject({ state: "failing" })
    } finally {
      fs.rmSync(path.join(reports, "current.json"))
    }
    expect((await apiOnly.request("GET", "/readyz")).status).toBe(200)
  })
})
