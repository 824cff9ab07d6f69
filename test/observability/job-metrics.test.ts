import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { sample, samples, scrape } from "../support/metrics.ts"
import { type TestServer, startTestServer } from "../support/server.ts"

let server: TestServer

beforeAll(async () => {
  server = await startTestServer({ metrics: true, worker: true })
})
afterAll(async () => server?.close())

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
        sample(values, "studio_job_permanent_failures_total", { task: "send_mail" }) >= 1
    )
    expect(sample(after, "studio_job_runs_total", { task: "prune_idempotency_keys", outcome: "success" })).toBe(1)
    expect(sample(after, "studio_job_run_duration_seconds_count", { task: "prune_idempotency_keys" })).toBe(1)
    expect(sample(after, "studio_job_runs_total", { task: "send_mail", outcome: "failure" })).toBe(1)
    expect(sample(after, "studio_job_permanent_failures_total", { task: "send_mail" })).toBe(1)
    // The same failure in graphile-worker's table, read at scrape time.
    expect(after.get('studio_jobs{task="send_mail",state="permanently_failed"}')).toBe(1)
  })
})
