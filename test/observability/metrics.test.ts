import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createBusiness, createLocation, createPerson, createToken } from "../support/factories.ts"
import { sample, samples, scrape } from "../support/metrics.ts"
import { type TestServer, startTestServer } from "../support/server.ts"

let server: TestServer
let token: string
/** A second owner's token for the first test, so the first keeps its whole budget for the 429. */
let otherToken: string
let locationId: number

const metricsNow = async () => samples((await scrape(server.metricsPort!)).body)

beforeAll(async () => {
  server = await startTestServer({ metrics: true, rateLimitPerToken: 4 })
  const business = await createBusiness(server.pool, { subdomain: "demo" })
  const owner = await createPerson(server.pool, business.id, { role: "owner" })
  token = await createToken(server.pool, owner.accountId, business.id)
  const other = await createPerson(server.pool, business.id, { role: "owner" })
  otherToken = await createToken(server.pool, other.accountId, business.id)
  locationId = (await createLocation(server.pool, business.id)).id
})
afterAll(async () => server?.close())

describe("GET /metrics", () => {
  it("is served on the metrics listener in Prometheus text, never on the API port", async () => {
    expect(server.metricsPort).toBeGreaterThan(0)
    expect(server.metricsPort).not.toBe(server.port)
    const response = await scrape(server.metricsPort!)
    expect(response.status).toBe(200)
    expect(response.contentType).toMatch(/^text\/plain; version=0\.0\.4/)
    expect(response.body).toMatch(/^# TYPE process_resident_memory_bytes gauge$/m)
    // The API port: on a business host, on the account host, with a token, and with a `.json` suffix.
    for (const options of [{}, { host: "studio.test" }, { token: otherToken }]) {
      const onApi = await server.request("GET", "/metrics", options)
      expect(onApi.status).toBe(404)
      expect(onApi.text).not.toMatch(/studio_http_requests_total/)
    }
    expect((await server.request("GET", "/metrics.json", { token: otherToken })).status).toBe(404)
  })

  it("counts requests by route template, method and status class, with a latency histogram", async () => {
    const before = await metricsNow()
    expect((await server.request("GET", `/api/v2/desk/locations/${locationId}`, { token })).status).toBe(200)
    expect((await server.request("GET", "/api/v2/desk/no-such-thing/17", { token })).status).toBe(404)
    // A plain route (not an HttpApi group) has its template too.
    expect((await server.request("GET", "/api/docs", { host: "studio.test" })).status).toBe(200)
    // The token's budget is 4: the two calls above, two more, then a 429.
    const statuses: Array<number> = []
    for (let i = 0; i < 3; i++) statuses.push((await server.request("GET", "/api/v2/desk/business", { token })).status)
    expect(statuses).toEqual([200, 200, 429])
    const after = await metricsNow()
    const delta = (name: string, labels: Record<string, string>) => sample(after, name, labels) - sample(before, name, labels)

    // The template, never the id: no series names a raw id.
    expect(delta("studio_http_requests_total", { route: "/api/v2/desk/locations/:id", method: "GET", status_class: "2xx" })).toBe(1)
    expect([...after.keys()].some((series) => series.includes(`/locations/${locationId}"`))).toBe(false)
    // An unknown route is one label value, whatever its path.
    expect(delta("studio_http_requests_total", { route: "unmatched", method: "GET", status_class: "4xx" })).toBe(2)
    expect([...after.keys()].some((series) => series.includes("no-such-thing"))).toBe(false)
    expect(delta("studio_http_requests_total", { route: "/api/v2/desk/business", method: "GET", status_class: "2xx" })).toBe(2)
    expect(delta("studio_http_requests_total", { route: "/api/docs", method: "GET", status_class: "2xx" })).toBe(1)
    expect(delta("studio_rate_limit_refusals_total", { scope: "token" })).toBe(1)
    expect(delta("studio_rate_limit_refusals_total", { scope: "ip" })).toBe(0)
    // The histogram: buckets, +Inf equal to the count, in seconds.
    const histogram = { route: "/api/v2/desk/locations/:id", method: "GET", status_class: "2xx" }
    expect(delta("studio_http_request_duration_seconds_count", histogram)).toBe(1)
    expect(delta("studio_http_request_duration_seconds_bucket", { ...histogram, le: "+Inf" })).toBe(1)
    expect(sample(after, "studio_http_request_duration_seconds_bucket", { ...histogram, le: "10" })).toBe(
      sample(after, "studio_http_request_duration_seconds_count", histogram)
    )
  })

  it("reads job counts by task and state from graphile-worker's tables at scrape time", async () => {
    await server.pool.query("select graphile_worker.add_job('metrics_test_task', '{}'::json)")
    await server.pool.query("select graphile_worker.add_job('metrics_test_task', '{}'::json)")
    const failing = await server.pool.query<{ id: string }>("select (graphile_worker.add_job('metrics_test_task', '{}'::json)).id")
    const dead = await server.pool.query<{ id: string }>("select (graphile_worker.add_job('metrics_test_task', '{}'::json)).id")
    await server.pool.query("update graphile_worker._private_jobs set attempts = 1, last_error = 'boom' where id = $1", [failing.rows[0]!.id])
    await server.pool.query("update graphile_worker._private_jobs set attempts = max_attempts, last_error = 'boom' where id = $1", [dead.rows[0]!.id])
    await server.pool.query("select graphile_worker.add_job('metrics_idle_task', '{}'::json)")
    await server.pool.query("delete from graphile_worker._private_jobs where task_id = (select id from graphile_worker._private_tasks where identifier = 'metrics_idle_task')")

    const values = await metricsNow()
    const jobs = (task: string, state: string) => values.get(`studio_jobs{task="${task}",state="${state}"}`)
    expect(jobs("metrics_test_task", "queued")).toBe(2)
    expect(jobs("metrics_test_task", "running")).toBe(0)
    expect(jobs("metrics_test_task", "retrying")).toBe(1)
    expect(jobs("metrics_test_task", "permanently_failed")).toBe(1)
    // A task with no job left still has its series, at zero.
    expect(jobs("metrics_idle_task", "queued")).toBe(0)
    expect(jobs("metrics_idle_task", "permanently_failed")).toBe(0)
  })

  it("shows webhook deliveries by outcome, the report store and the process", async () => {
    const values = await metricsNow()
    for (const outcome of ["pending", "succeeded", "failed", "cancelled"]) {
      expect(values.get(`studio_webhook_deliveries{outcome="${outcome}"}`)).toBe(0)
    }
    expect(values.get("studio_webhook_oldest_pending_event_age_seconds")).toBe(0)
    expect(values.has("studio_report_store_generation_age_seconds")).toBe(true)
    // The service's own connections, as PostgreSQL sees them (the scrape's own left out).
    for (const state of ["active", "idle", "idle_in_transaction", "waiting"]) {
      expect(values.get(`studio_db_connections{state="${state}"}`)).toBeGreaterThanOrEqual(0)
    }
    expect(values.get('studio_db_connections{state="idle"}')).toBeGreaterThan(0)
    expect(values.get("process_resident_memory_bytes")).toBeGreaterThan(0)
    expect(values.has("nodejs_eventloop_delay_p99_seconds")).toBe(true)
    expect(values.has('nodejs_gc_duration_seconds_count{kind="scavenge"}')).toBe(true)
  })
})
