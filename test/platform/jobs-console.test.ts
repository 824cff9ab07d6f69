import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { maskSecrets } from "../../src/platform/jobs-admin.ts"
import { tasks } from "../../workers/runner.ts"
import { createBusiness, createPerson, createToken } from "../support/factories.ts"
import { freePort, type LongRunning, run, type Setup, startProcess } from "../support/processes.ts"
import { startTestServer, TEST_BASE_DOMAIN, type TestServer } from "../support/server.ts"
import { type Receiver, startReceiver } from "../webhooks/receiver.ts"

/**
 * `studio jobs` as an operator runs it: separate processes beside a server and a `studio worker`
 * process on one database. A webhook delivery to a target that is down shows up failing with its
 * error; once the target is back, `jobs retry` delivers it, once.
 */
let server: TestServer
let worker: LongRunning
let receiver: Receiver | undefined
let setup: Setup
let business: { id: number; subdomain: string }
let deadPort: number
const dataDir = path.resolve(`.data/test/jobs-console-${process.pid}`)

beforeAll(async () => {
  fs.rmSync(dataDir, { recursive: true, force: true })
  fs.mkdirSync(dataDir, { recursive: true })
  server = await startTestServer()
  business = await createBusiness(server.pool, { subdomain: "demo", time_zone: "UTC" })
  await server.pool.query("update businesses set webhooks_enabled = true where id = $1", [business.id])
  deadPort = await freePort()
  setup = {
    cwd: process.cwd(),
    env: {
      DATABASE_URL: server.databaseUrl,
      DATA_DIR: dataDir,
      BASE_DOMAIN: TEST_BASE_DOMAIN,
      WEBHOOKS_ALLOW_PRIVATE_TARGETS: "true",
      WORKER_POLL_INTERVAL_MS: "200",
      WORKER_CONCURRENCY: "1"
    }
  }
  worker = await startProcess(setup, ["src/cli.ts", "worker"], /worker started/)
}, 180_000)

afterAll(async () => {
  await worker?.stop("SIGTERM")
  await receiver?.close()
  await server?.close()
  fs.rmSync(dataDir, { recursive: true, force: true })
})

const studio = async (...args: Array<string>) => {
  const result = await run(setup, ["src/cli.ts", "jobs", ...args])
  return { ...result, json: result.code === 0 ? JSON.parse(result.stdout) : undefined }
}

const eventually = async <A>(probe: () => Promise<A | undefined>, what: string, timeoutMs = 60_000): Promise<A> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}

/** The pending delivery job of the dead target once an attempt has failed (its id changes each attempt). */
const failingDeliveryJob = () =>
  eventually(async () => {
    const { rows } = await server.pool.query(
      `select id::int from graphile_worker.jobs where task_identifier = 'deliver_webhook' and last_error is not null and locked_at is null`
    )
    return rows[0]?.id as number | undefined
  }, "a failed delivery attempt")

describe("studio jobs", () => {
  it("lists every known task with zeros, and refuses what it cannot do in one line", { timeout: 120_000 }, async () => {
    const listed = await studio("list")
    expect(listed.code, listed.stderr).toBe(0)
    const names = listed.json.tasks.map((row: { task: string }) => row.task)
    for (const task of Object.keys(tasks)) expect(names).toContain(task)
    const mail = listed.json.tasks.find((row: { task: string }) => row.task === "send_mail")
    expect(mail).toEqual({ task: "send_mail", queued: 0, running: 0, retrying: 0, permanently_failed: 0 })

    const missing = await studio("show", "999999")
    expect(missing.code).not.toBe(0)
    expect(missing.stderr.trim().split("\n").filter((line) => line.startsWith("error:"))).toEqual([
      "error: no job 999999 (a job that succeeded or was completed is gone)"
    ])
    const neither = await studio("retry")
    expect(neither.code).not.toBe(0)
    expect(neither.stderr).toContain("error: give a job id, or --task T --failed")
    const badTime = await studio("reschedule", "1", "--at", "tomorrow")
    expect(badTime.code).not.toBe(0)
    expect(badTime.stderr).toContain('error: --at: "tomorrow" is not an ISO 8601 timestamp')
  })

  it("masks secrets, fails, retries and completes a job", { timeout: 120_000 }, async () => {
    // A task no worker runs, so the job stays where the console puts it.
    const { rows } = await server.pool.query(
      `select (graphile_worker.add_job('operator_probe', $1::json, max_attempts => 3)).id::int as id`,
      [JSON.stringify({ business_id: business.id, webhook_secret: "whsec_abc", nested: { access_token: "tok", note: "kept" } })]
    )
    const id = rows[0].id as number
    const shown = await studio("show", String(id))
    expect(shown.code, shown.stderr).toBe(0)
    expect(shown.json).toMatchObject({ id, task: "operator_probe", state: "queued", business: "demo", attempts: 0, max_attempts: 3 })
    expect(shown.json.payload).toEqual({ business_id: business.id, webhook_secret: "[masked]", nested: { access_token: "[masked]", note: "kept" } })
    expect(shown.stdout).not.toContain("whsec_abc")

    const failed = await studio("fail", String(id), "--reason", "stuck upstream")
    expect(failed.code, failed.stderr).toBe(0)
    expect(failed.json).toMatchObject({ state: "permanently_failed", last_error: "stuck upstream", attempts: 3 })
    const listed = await studio("list")
    expect(listed.json.tasks.find((row: { task: string }) => row.task === "operator_probe")).toMatchObject({
      permanently_failed: 1,
      unknown_task: true
    })

    const retried = await studio("retry", "--task", "operator_probe", "--failed")
    expect(retried.code, retried.stderr).toBe(0)
    expect(retried.json.retried).toEqual([id])
    expect((await studio("show", String(id))).json).toMatchObject({ state: "retrying", attempts: 3, max_attempts: 4 })

    const moved = await studio("reschedule", String(id), "--at", "2099-01-02T03:04:05Z")
    expect(moved.json).toMatchObject({ run_at: "2099-01-02T03:04:05.000Z" })
    const completed = await studio("complete", String(id))
    expect(completed.json).toEqual({ completed: [id] })
    expect((await studio("show", String(id))).code).not.toBe(0)
  })

  it("shows a delivery to a dead target failing with its error; retry after it is back delivers it once", { timeout: 180_000 }, async () => {
    const owner = await createPerson(server.pool, business.id, { role: "owner" })
    const token = await createToken(server.pool, owner.accountId, business.id)
    const subscribed = await server.request("POST", "/api/v3/webhooks", {
      token,
      headers: { "content-type": "application/vnd.api+json" },
      body: JSON.stringify({ data: { type: "webhooks", attributes: { target: `http://127.0.0.1:${deadPort}/down`, topic: "person.created" } } })
    })
    expect(subscribed.status, subscribed.text).toBe(201)
    const created = await server.request("POST", "/api/v2/desk/people", { token, body: { person: { first_name: "Ada", last_name: "Down" } } })
    expect(created.status, created.text).toBe(201)

    // Pin the failing job far ahead so the worker's own retry does not beat the operator's (its id
    // changes with each attempt: take the current one again if an attempt slipped in).
    let id = await failingDeliveryJob()
    for (let tries = 0; tries < 5; tries++) {
      const pinned = await studio("reschedule", String(id), "--at", "2099-01-01T00:00:00Z")
      if (pinned.code === 0) break
      id = await failingDeliveryJob()
    }

    const listed = await studio("list")
    expect(listed.code, listed.stderr).toBe(0)
    expect(listed.json.tasks.find((row: { task: string }) => row.task === "deliver_webhook")).toMatchObject({ retrying: 1, permanently_failed: 0 })
    const failing = listed.json.jobs.find((job: { id: number }) => job.id === id)
    expect(failing).toMatchObject({ task: "deliver_webhook", state: "retrying", business: "demo", run_at: "2099-01-01T00:00:00.000Z" })
    expect(failing.last_error).toMatch(/^webhook delivery attempt \d+ of 14 failed: .*(refused|ECONNREFUSED)/i)

    const shown = await studio("show", String(id))
    expect(shown.code, shown.stderr).toBe(0)
    expect(shown.json).toMatchObject({ id, state: "retrying", business: "demo", last_error: failing.last_error, locked_by: null })
    expect(shown.json.delivery).toMatchObject({ status: "pending", max_attempts: 14 })
    expect(shown.json.delivery.attempts).toBeGreaterThanOrEqual(1)
    expect(shown.json.delivery.last_error).toMatch(/refused|ECONNREFUSED/i)

    receiver = await startReceiver(() => 200, deadPort)
    const retried = await studio("retry", String(id))
    expect(retried.code, retried.stderr).toBe(0)
    expect(retried.json).toEqual({ retried: [id], skipped_running: 0 })

    await receiver.waitFor((all) => all.length >= 1, "the retried delivery", 60_000)
    await eventually(async () => {
      const { rows } = await server.pool.query(`select count(*)::int as n from graphile_worker.jobs where task_identifier = 'deliver_webhook'`)
      return rows[0].n === 0 ? true : undefined
    }, "no delivery job left")
    expect(receiver.received).toHaveLength(1)
    expect(receiver.received[0]!.path).toBe("/down")
    const { rows } = await server.pool.query(`select status from webhook_deliveries where business_id = $1`, [business.id])
    expect(rows).toEqual([{ status: "succeeded" }])
    const after = await studio("list")
    expect(after.json.tasks.find((row: { task: string }) => row.task === "deliver_webhook")).toMatchObject({ queued: 0, running: 0, retrying: 0 })
  })
})

describe("maskSecrets", () => {
  it("masks every field named like a secret, at any depth, and keeps the rest", () => {
    expect(
      maskSecrets({ password: "p", api_key: "k", items: [{ refresh_token: "r", id: 1 }], secretless: null, name: "n" })
    ).toEqual({ password: "[masked]", api_key: "[masked]", items: [{ refresh_token: "[masked]", id: 1 }], secretless: null, name: "n" })
  })
  it("masks the secret query parameters of links inside text (a queued reset mail)", () => {
    expect(maskSecrets({ text: "Reset: https://demo.studio.test/account/password/edit?token=abc123&locale=en\nBye", to: "a@b.test" })).toEqual({
      text: "Reset: https://demo.studio.test/account/password/edit?token=[masked]&locale=en\nBye",
      to: "a@b.test"
    })
  })
})
