import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import { Webhook } from "standardwebhooks"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createBusiness, createPerson, createToken } from "../support/factories.ts"
import { type TestServer, startTestServer } from "../support/server.ts"
import { type Receiver, startReceiver } from "./receiver.ts"

/**
 * At-least-once across a crash: a real worker process (`studio worker`) is SIGKILLed while the
 * receiver holds its request open; a second worker process delivers the event after it starts,
 * with the same webhook-id, instead of waiting for graphile-worker's 4-hour stale-lock sweep.
 */

let server: TestServer
let receiver: Receiver
let ownerToken: string
const workers: Array<ChildProcess> = []
const dataDir = `.data/test/webhooks-crash-${process.pid}`

const startWorker = () => {
  const child = spawn(process.execPath, ["src/cli.ts", "worker"], {
    env: {
      ...process.env,
      DATABASE_URL: server.databaseUrl,
      DATA_DIR: dataDir,
      WEBHOOKS_ALLOW_PRIVATE_TARGETS: "true",
      WORKER_POLL_INTERVAL_MS: "200",
      WORKER_CONCURRENCY: "2",
      LOG_LEVEL: "warn"
    },
    stdio: ["ignore", "ignore", "pipe"]
  })
  let stderr = ""
  child.stderr!.on("data", (chunk: Buffer) => void (stderr += chunk.toString()))
  workers.push(child)
  return { child, stderr: () => stderr }
}

const exited = (child: ChildProcess) =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise<void>((resolve) => child.once("exit", () => resolve()))

beforeAll(async () => {
  receiver = await startReceiver((request) => (request.index === 0 ? "hold" : 200))
  server = await startTestServer()
  const business = await createBusiness(server.pool, { subdomain: "demo" })
  await server.pool.query("update businesses set webhooks_enabled = true where id = $1", [business.id])
  const owner = await createPerson(server.pool, business.id, { role: "owner" })
  ownerToken = await createToken(server.pool, owner.accountId, business.id)
})
afterAll(async () => {
  for (const child of workers) child.kill("SIGKILL")
  await Promise.all(workers.map(exited))
  await server?.close()
  await receiver?.close()
  fs.rmSync(dataDir, { recursive: true, force: true })
})

describe("a worker killed in the middle of a delivery", () => {
  it("loses nothing: the next worker delivers the event with the same webhook-id", async () => {
    const subscribed = await server.request("POST", "/api/v3/webhooks", {
      token: ownerToken,
      body: { data: { type: "webhooks", attributes: { target: receiver.url("/crash"), topic: "person.created" } } }
    })
    expect(subscribed.status, subscribed.text).toBe(201)
    const webhookId = subscribed.json.data.id as string
    const secret = subscribed.json.data.attributes.secret as string

    const created = await server.request("POST", "/api/v2/desk/people", { token: ownerToken, body: { person: { first_name: "Kill", last_name: "Nine" } } })
    expect(created.status).toBe(201)

    const first = startWorker()
    await receiver.waitFor((all) => all.length >= 1, `the first worker's request (stderr: ${first.stderr()})`, 30_000)
    const firstWorkers = (await server.pool.query("select worker_id from job_worker_registrations")).rows.map(
      (row: { worker_id: string }) => row.worker_id
    )
    expect(firstWorkers.length).toBeGreaterThan(0)
    first.child.kill("SIGKILL")
    await exited(first.child)
    await receiver.waitFor((all) => all[0]!.aborted, "the held request to be cut off")
    // graphile-worker alone would leave this job locked for 4 hours.
    const locked = await server.pool.query(
      "select locked_by from graphile_worker._private_jobs where key like 'webhook_delivery:%' and locked_by is not null"
    )
    expect(locked.rowCount).toBe(1)

    const second = startWorker()
    await receiver.waitFor((all) => all.length >= 2, `the second worker's request (stderr: ${second.stderr()})`, 30_000)
    const [cut, delivered] = receiver.received
    expect(delivered!.headers["webhook-id"]).toBe(cut!.headers["webhook-id"])
    const payload = new Webhook(secret).verify(delivered!.body, {
      "webhook-id": String(delivered!.headers["webhook-id"]),
      "webhook-timestamp": String(delivered!.headers["webhook-timestamp"]),
      "webhook-signature": String(delivered!.headers["webhook-signature"])
    }) as { people: Array<{ first_name: string }> }
    expect(payload.people[0]!.first_name).toBe("Kill")

    // The log tells the story: an interrupted attempt, then a 200.
    let log: any
    for (let i = 0; i < 100; i++) {
      log = (await server.request("GET", `/api/v3/webhooks/${webhookId}/deliveries`, { token: ownerToken })).json
      if (log.data[0]?.attributes.status === "succeeded") break
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    expect(log.data[0].attributes).toMatchObject({
      status: "succeeded",
      attempt_count: 2,
      attempts: [
        { attempt: 1, status_code: null, error: "interrupted: the worker stopped during this attempt" },
        { attempt: 2, status_code: 200 }
      ]
    })
    // The dead process's registrations went with the sweep that released its job.
    const { rows } = await server.pool.query("select worker_id from job_worker_registrations")
    const live = rows.map((row: { worker_id: string }) => row.worker_id)
    expect(live.length).toBeGreaterThan(0)
    expect(live.filter((id: string) => firstWorkers.includes(id))).toEqual([])
  })
})
