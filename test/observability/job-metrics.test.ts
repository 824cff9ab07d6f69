import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createBusiness, createPerson, createToken } from "../support/factories.ts"
import { sample, samples, scrape } from "../support/metrics.ts"
import { type TestServer, startTestServer } from "../support/server.ts"
import { type Receiver, startReceiver } from "../webhooks/receiver.ts"

let server: TestServer
let receiver: Receiver
let ownerToken: string

beforeAll(async () => {
  // `/down` answers 500 (the delivery is retried later), anything else 200.
  receiver = await startReceiver((request) => (request.path === "/down" ? 500 : 200))
  server = await startTestServer({ metrics: true, worker: true })
  const business = await createBusiness(server.pool, { subdomain: "demo" })
  await server.pool.query("update businesses set webhooks_enabled = true where id = $1", [business.id])
  const owner = await createPerson(server.pool, business.id, { role: "owner" })
  ownerToken = await createToken(server.pool, owner.accountId, business.id)
})
afterAll(async () => {
  await server?.close()
  await receiver?.close()
})

const metricsNow = async () => samples((await scrape(server.metricsPort!)).body)

/** Scrapes until `done` holds (jobs run on the worker's own time); the test's timeout bounds it. */
const eventually = async (done: (values: Map<string, number>) => boolean) => {
  for (;;) {
    const values = await metricsNow()
    if (done(values)) return values
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

describe("job metrics of a worker process", () => {
  it("show every task from the start, then runs by task and outcome with their durations", async () => {
    const before = await metricsNow()
    expect(before.get('studio_job_runs_total{task="send_mail",outcome="failure"}')).toBe(0)
    expect(before.get('studio_job_run_duration_seconds_count{task="prune_idempotency_keys"}')).toBe(0)

    await server.pool.query("select graphile_worker.add_job('prune_idempotency_keys', '{}'::json)")
    // A payload its Schema refuses: the run fails, and with max_attempts 1 fails for good.
    await server.pool.query("select graphile_worker.add_job('send_mail', '{\"nothing\":true}'::json, max_attempts => 1)")

    const after = await eventually(
      (values) =>
        sample(values, "studio_job_runs_total", { task: "prune_idempotency_keys", outcome: "success" }) >= 1 &&
        sample(values, "studio_job_permanent_failures_total", { task: "send_mail" }) >= 1 &&
        // graphile-worker writes the failure to its table just after its `job:failed` event.
        values.get('studio_jobs{task="send_mail",state="permanently_failed"}') === 1
    )
    expect(sample(after, "studio_job_runs_total", { task: "prune_idempotency_keys", outcome: "success" })).toBe(1)
    expect(sample(after, "studio_job_run_duration_seconds_count", { task: "prune_idempotency_keys" })).toBe(1)
    expect(sample(after, "studio_job_runs_total", { task: "send_mail", outcome: "failure" })).toBe(1)
    expect(sample(after, "studio_job_permanent_failures_total", { task: "send_mail" })).toBe(1)
    // The worker's own pool (graphile-worker's): it holds connections, none waited for at rest.
    expect(sample(after, "studio_worker_db_pool_connections", {})).toBeGreaterThan(0)
    expect(after.get("studio_worker_db_pool_waiting_clients")).toBeGreaterThanOrEqual(0)
    // The same failure in graphile-worker's table, read at scrape time.
    expect(after.get('studio_jobs{task="send_mail",state="permanently_failed"}')).toBe(1)
  })
})

describe("webhook metrics", () => {
  it("count delivery attempts by outcome in the worker, and the log's deliveries and oldest pending event", async () => {
    for (const path of ["/up", "/down"]) {
      const response = await server.request("POST", "/api/v3/webhooks", {
        token: ownerToken,
        headers: { "content-type": "application/vnd.api+json" },
        body: JSON.stringify({ data: { type: "webhooks", attributes: { target: receiver.url(path), topic: "person.created" } } })
      })
      expect(response.status, response.text).toBe(201)
    }
    const before = await metricsNow()
    expect(before.get('studio_webhook_delivery_attempts_total{outcome="retry"}')).toBe(0)
    const created = await server.request("POST", "/api/v2/desk/people", { token: ownerToken, body: { person: { first_name: "Ada", last_name: "Hook" } } })
    expect(created.status, created.text).toBe(201)

    const after = await eventually(
      (values) =>
        (values.get('studio_webhook_delivery_attempts_total{outcome="succeeded"}') ?? 0) >= 1 &&
        (values.get('studio_webhook_delivery_attempts_total{outcome="retry"}') ?? 0) >= 1 &&
        values.get('studio_webhook_deliveries{outcome="pending"}') === 1
    )
    expect(after.get('studio_webhook_delivery_attempts_total{outcome="succeeded"}')).toBe(1)
    expect(after.get('studio_webhook_delivery_attempts_total{outcome="retry"}')).toBe(1)
    expect(after.get("studio_webhook_delivery_duration_seconds_count")).toBe(2)
    expect(after.get('studio_webhook_deliveries{outcome="succeeded"}')).toBe(1)
    expect(after.get('studio_webhook_deliveries{outcome="pending"}')).toBe(1)
    expect(after.get("studio_webhook_oldest_pending_event_age_seconds")).toBeGreaterThanOrEqual(0)
  })
})

/** PromQL words that are not metric names: aggregations' label lists go first, with strings and ranges. */
const PROMQL_WORDS = new Set(["by", "without", "on", "ignoring", "group_left", "group_right", "bool", "and", "or", "unless", "offset", "inf", "nan"])

/** The metric names a PromQL expression reads. */
const metricNames = (expr: string): Array<string> => {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, "")
    .replace(/\{[^}]*\}/g, "")
    .replace(/\[[^\]]*\]/g, "")
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, "")
  const names: Array<string> = []
  for (const match of bare.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*(?:e[+-]?\d+)?/g)) {
    const word = match[0]
    const next = bare.slice(match.index + word.length).trimStart()
    if (next.startsWith("(") || PROMQL_WORDS.has(word.toLowerCase()) || /^\d/.test(word)) continue
    // A number's exponent (1e-9) is not a name.
    if (match.index > 0 && /[\d.]/.test(bare[match.index - 1]!)) continue
    names.push(word)
  }
  return names
}

describe("the provisioned Grafana dashboard", () => {
  it("names only metrics a real /metrics scrape of the API and a worker shows", async () => {
    const fs = await import("node:fs")
    const dashboard = JSON.parse(fs.readFileSync("deploy/grafana/dashboards/studio-service.json", "utf8")) as {
      readonly panels: ReadonlyArray<{ readonly title: string; readonly targets: ReadonlyArray<{ readonly expr: string }> }>
    }
    // A request first, so the request series exist (a fresh process has none).
    await server.request("GET", "/healthz")
    const scraped = new Set([...(await metricsNow()).keys()].map((series) => series.replace(/\{.*$/, "")))
    expect(dashboard.panels.length).toBeGreaterThan(10)
    for (const panel of dashboard.panels) {
      expect(panel.targets.length, panel.title).toBeGreaterThan(0)
      for (const target of panel.targets) {
        const names = metricNames(target.expr)
        expect(names.length, `${panel.title}: ${target.expr}`).toBeGreaterThan(0)
        for (const name of names) expect(scraped.has(name), `${panel.title}: ${name} is not in /metrics`).toBe(true)
      }
    }
    // The parser itself: a name that is not exported is caught.
    expect(metricNames('sum by (le) (rate(studio_nothing_bucket{a="b"}[5m])) / clamp_min(x_total, 1e-9)')).toEqual(["studio_nothing_bucket", "x_total"])
  })
})
