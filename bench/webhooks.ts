import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import pg from "pg"
import { Webhook } from "standardwebhooks"
import type { EmbeddedServer } from "../src/platform/embedded-postgres.ts"
import { cpuMsOf, postgresCpuMs, postmasterPid } from "./support/cpu.ts"
import { type Child, freePort, startBenchDatabase, startChild } from "./support/processes.ts"
import { seedBench } from "./support/seed.ts"

/**
 * `npm run bench:webhooks`: webhook delivery through the whole path — a person created or
 * updated through the API (bench/support/serve.ts, its own process), the event and fan-out
 * job committed with it, the `studio worker` process fanning out and POSTing signed
 * notifications, each attempt logged — to a receiver in this process that verifies every
 * signature with `standardwebhooks`. Baseline, measured in the same run: the same signed
 * POSTs to the same receiver from a bare loop in its own process (bench/support/post-loop.ts),
 * at the worker's concurrency.
 *
 * 1. Throughput: a backlog is made with the worker stopped (BENCH_EVENTS person.created
 *    events for one subscription; then BENCH_EVENTS / BENCH_FANOUT person.updated events for
 *    BENCH_FANOUT subscriptions), then the worker starts; deliveries per second from the first
 *    arrival to the last.
 * 2. Latency: with the worker idle, BENCH_LATENCY_SAMPLES people created one at a time; from
 *    the API's answer (the change is committed by then) to the notification's arrival.
 *
 * BENCH_EVENTS (default 2000), BENCH_FANOUT (default 10), BENCH_LATENCY_SAMPLES (default 100),
 * WORKER_CONCURRENCY (default 4, the service's default); BENCH_CPU_PROF=<dir> writes V8 CPU
 * profiles of the worker processes.
 */
const EVENTS = Number(process.env.BENCH_EVENTS ?? 2000)
const FANOUT = Number(process.env.BENCH_FANOUT ?? 10)
const LATENCY_SAMPLES = Number(process.env.BENCH_LATENCY_SAMPLES ?? 100)
const CONCURRENCY = Number(process.env.WORKER_CONCURRENCY ?? 4)
const CPU_PROF_DIR = process.env.BENCH_CPU_PROF
const BASE_DOMAIN = "localhost"

const root = path.resolve(import.meta.dirname, "..")
const benchDir = path.join(root, ".data/bench-webhooks")
const dataDir = path.join(benchDir, "postgres")

const log = (message: string) => process.stderr.write(`${message}\n`)
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

// ---------------------------------------------------------------------------------------------
// The receiver: verifies every notification, records when each arrived

interface Arrival {
  readonly at: number
  readonly path: string
  readonly personId: number | undefined
}

const arrivals: Array<Arrival> = []
const secrets = new Map<string, Webhook>()
let badSignatures = 0
let sampleBody = "{}"

const receiver = http.createServer((request, response) => {
  const chunks: Array<Buffer> = []
  request.on("data", (chunk: Buffer) => chunks.push(chunk))
  request.on("end", () => {
    const at = performance.now()
    const body = Buffer.concat(chunks).toString("utf8")
    const path = request.url ?? "/"
    let personId: number | undefined
    const verifier = secrets.get(path)
    if (verifier) {
      try {
        const payload = verifier.verify(body, {
          "webhook-id": String(request.headers["webhook-id"]),
          "webhook-timestamp": String(request.headers["webhook-timestamp"]),
          "webhook-signature": String(request.headers["webhook-signature"])
        }) as { people?: Array<{ id: number }> }
        personId = payload.people?.[0]?.id
        sampleBody = body
      } catch {
        badSignatures++
      }
    }
    arrivals.push({ at, path, personId })
    response.writeHead(200, { "content-type": "text/plain" }).end("ok")
  })
})

const countOn = (prefix: string) => arrivals.filter((a) => a.path.startsWith(prefix)).length
const waitForArrivals = async (prefix: string, count: number, timeoutMs = 600_000) => {
  const deadline = Date.now() + timeoutMs
  while (countOn(prefix) < count) {
    if (Date.now() > deadline) throw new Error(`only ${countOn(prefix)} of ${count} notifications on ${prefix} arrived`)
    await sleep(20)
  }
}

// ---------------------------------------------------------------------------------------------
// Processes

const children: Array<Child> = []
const workers: Array<ChildProcess> = []
let postgres: EmbeddedServer | undefined

const cleanUp = async () => {
  for (const worker of workers) worker.kill("SIGKILL")
  await Promise.allSettled(children.map((child) => child.stop()))
  children.length = 0
  receiver.close()
  receiver.closeAllConnections()
  if (postgres) {
    const server = postgres
    postgres = undefined
    await server.stop().catch(() => {})
  }
  fs.rmSync(benchDir, { recursive: true, force: true })
}

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    log(`\n${signal}: cleaning up`)
    void cleanUp().finally(() => process.exit(130))
  })
}

const startWorker = (databaseUrl: string) => {
  const profile = CPU_PROF_DIR ? ["--cpu-prof", `--cpu-prof-dir=${path.resolve(CPU_PROF_DIR)}`] : []
  const child = spawn(process.execPath, [...profile, path.join(root, "src/cli.ts"), "worker"], {
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      DATA_DIR: benchDir,
      WEBHOOKS_ALLOW_PRIVATE_TARGETS: "true",
      WORKER_CONCURRENCY: String(CONCURRENCY),
      LOG_LEVEL: "none"
    },
    stdio: ["ignore", "ignore", "pipe"]
  })
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => process.stderr.write(`[worker] ${chunk}`))
  workers.push(child)
  return child
}

const stopWorker = async (child: ChildProcess) => {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()))
    child.kill("SIGTERM")
    await exited
  }
}

const runBaseline = (target: string, count: number, concurrency: number, body: string) =>
  new Promise<{ perSecond: number; p50Ms: number; p99Ms: number }>((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(root, "bench/support/post-loop.ts")], {
      env: { ...process.env, TARGET: target, COUNT: String(count), CONCURRENCY: String(concurrency), BODY: body },
      stdio: ["ignore", "pipe", "inherit"]
    })
    let out = ""
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => void (out += chunk))
    child.once("exit", (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`baseline loop exited with ${code}`))))
  })

// ---------------------------------------------------------------------------------------------
// API calls

const api = (port: number, token: string, method: string, urlPath: string, body?: unknown) =>
  new Promise<{ status: number; json: any }>((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body)
    const request = http.request(
      {
        host: "127.0.0.1",
        port,
        method,
        path: urlPath,
        agent: apiAgent,
        headers: {
          host: `demo.${BASE_DOMAIN}`,
          authorization: `Bearer ${token}`,
          ...(payload === undefined ? {} : { "content-type": "application/json", "content-length": String(Buffer.byteLength(payload)) })
        }
      },
      (response) => {
        const chunks: Array<Buffer> = []
        response.on("data", (chunk: Buffer) => chunks.push(chunk))
        response.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8")
          resolve({ status: response.statusCode ?? 0, json: text ? JSON.parse(text) : undefined })
        })
      }
    )
    request.on("error", reject)
    request.end(payload)
  })
const apiAgent = new http.Agent({ keepAlive: true, maxSockets: 16 })

/** Runs `task(i)` for i < count, `concurrency` at a time. */
const inParallel = async (count: number, concurrency: number, task: (i: number) => Promise<void>) => {
  let next = 0
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < count) await task(next++)
  }))
}

const quantile = (values: ReadonlyArray<number>, q: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN
}

// ---------------------------------------------------------------------------------------------

const main = async () => {
  const startedAt = performance.now()
  const loadBefore = os.loadavg()[0]!
  fs.rmSync(benchDir, { recursive: true, force: true })
  log(`PostgreSQL: starting (${dataDir})`)
  const { databaseUrl } = await startBenchDatabase(dataDir, (server) => (postgres = server))
  const seed = await seedBench(databaseUrl)
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 })
  pool.on("error", () => {})
  await pool.query("update businesses set webhooks_enabled = true where id = $1", [seed.businessId])

  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve))
  const receiverPort = (receiver.address() as AddressInfo).port
  const receiverUrl = (p: string) => `http://127.0.0.1:${receiverPort}${p}`

  const servicePort = await freePort(40000, 49999)
  const service = await startChild("service", path.join(root, "bench/support/serve.ts"), {
    DATABASE_URL: databaseUrl,
    PORT: String(servicePort),
    BASE_DOMAIN,
    LOG_LEVEL: "none",
    WEBHOOKS_ALLOW_PRIVATE_TARGETS: "true"
  })
  children.push(service)
  const call = (method: string, urlPath: string, body?: unknown) => api(service.port, seed.token, method, urlPath, body)

  const subscribe = async (topic: string, target: string) => {
    const response = await call("POST", "/api/v3/webhooks", { data: { type: "webhooks", attributes: { target: receiverUrl(target), topic } } })
    if (response.status !== 201) throw new Error(`subscribe answered ${response.status}: ${JSON.stringify(response.json)}`)
    secrets.set(target, new Webhook(response.json.data.attributes.secret))
  }
  const createPerson = async (i: number) => {
    const response = await call("POST", "/api/v2/desk/people", { person: { first_name: `Person ${i}`, last_name: "Bench" } })
    if (response.status !== 201) throw new Error(`create person answered ${response.status}: ${JSON.stringify(response.json)}`)
    return response.json.people[0].id as number
  }
  const postmaster = postmasterPid(dataDir)

  // 1a. Throughput, one subscription.
  await subscribe("person.created", "/created")
  log(`making a backlog: ${EVENTS} people created with the worker stopped`)
  const people: Array<number> = []
  await inParallel(EVENTS, 8, async (i) => void people.push(await createPerson(i)))

  const drain = async (prefix: string, expected: number) => {
    const first = arrivals.length
    const worker = startWorker(databaseUrl)
    // CPU from the first delivery on: the worker's start (Node, migrations check) is not delivery work.
    while (!arrivals.slice(first).some((a) => a.path.startsWith(prefix))) await sleep(2)
    const before = { worker: cpuMsOf(worker.pid!), postgres: postmaster ? postgresCpuMs(postmaster) : 0 }
    await waitForArrivals(prefix, expected)
    const mine = arrivals.slice(first).filter((a) => a.path.startsWith(prefix))
    const seconds = (mine[mine.length - 1]!.at - mine[0]!.at) / 1000
    // Every attempt logged before the worker stops (its last transactions follow the last POSTs).
    while (Number((await pool.query("select count(*) from webhook_deliveries where status <> 'succeeded'")).rows[0].count) > 0) await sleep(20)
    const workerCpuMs = cpuMsOf(worker.pid!) - before.worker
    const postgresMs = (postmaster ? postgresCpuMs(postmaster) : 0) - before.postgres
    await stopWorker(worker)
    return {
      perSecond: (mine.length - 1) / seconds,
      workerCpuUs: (workerCpuMs * 1000) / (mine.length - 1),
      postgresCpuUs: (postgresMs * 1000) / (mine.length - 1)
    }
  }
  log(`draining it: worker with concurrency ${CONCURRENCY}`)
  const single = await drain("/created", EVENTS)
  log(`  ${single.perSecond.toFixed(0)} deliveries/s`)

  // 1b. Throughput with fan-out.
  for (let s = 0; s < FANOUT; s++) await subscribe("person.updated", `/fanout/${s}`)
  const updates = Math.floor(EVENTS / FANOUT)
  log(`making a backlog: ${updates} people updated with the worker stopped, ${FANOUT} subscriptions each`)
  await inParallel(updates, 8, async (i) => {
    const response = await call("PUT", `/api/v2/desk/people/${people[i]}`, { person: { last_name: "Bench updated" } })
    if (response.status !== 200) throw new Error(`update answered ${response.status}`)
  })
  const fanout = await drain("/fanout/", updates * FANOUT)
  log(`  ${fanout.perSecond.toFixed(0)} deliveries/s`)

  // Baseline: the same signed POSTs from a bare loop at the worker's concurrency.
  log(`baseline: ${EVENTS} bare signed POSTs, ${CONCURRENCY} at a time`)
  const baseline = await runBaseline(receiverUrl("/baseline"), EVENTS, CONCURRENCY, sampleBody)
  log(`  ${baseline.perSecond.toFixed(0)} POSTs/s`)

  // 2. Latency: one change at a time, the worker idle and warm.
  const worker = startWorker(databaseUrl)
  const warm = await createPerson(-1)
  while (!arrivals.some((a) => a.personId === warm)) await sleep(20)
  log(`latency: ${LATENCY_SAMPLES} people created one at a time`)
  const fromCommit: Array<number> = []
  const fromRequest: Array<number> = []
  const apiLatency: Array<number> = []
  for (let i = 0; i < LATENCY_SAMPLES; i++) {
    const sent = performance.now()
    const id = await createPerson(EVENTS + i)
    const answered = performance.now()
    let arrival: Arrival | undefined
    while (!(arrival = arrivals.find((a) => a.personId === id && a.path === "/created"))) await sleep(1)
    fromCommit.push(arrival.at - answered)
    fromRequest.push(arrival.at - sent)
    apiLatency.push(answered - sent)
    await sleep(10)
  }
  await stopWorker(worker)
  const barePost = await runBaseline(receiverUrl("/baseline"), LATENCY_SAMPLES, 1, sampleBody)
  const { rows } = await pool.query(
    "select count(*) filter (where status = 'succeeded')::int as ok, count(*)::int as all from webhook_deliveries"
  )
  await pool.end()

  const ms = (value: number) => value.toFixed(1).padStart(7)
  console.log(
    [
      "",
      `Webhook delivery: worker concurrency ${CONCURRENCY}, Node ${process.version}, ${os.cpus().length} CPUs shared by ` +
        `the API, the worker, PostgreSQL, the receiver and the load; 1-min load average before the run ${loadBefore.toFixed(2)}` +
        (loadBefore > 1 ? " (other work was running: figures are noisy)" : ""),
      "",
      "| throughput (backlog drained)                        | deliveries/s | worker CPU/delivery | PG CPU/delivery |",
      "|-----------------------------------------------------|-------------:|--------------------:|----------------:|",
      `| ${`${EVENTS} events × 1 subscription`.padEnd(51)} | ${single.perSecond.toFixed(0).padStart(12)} | ${`${single.workerCpuUs.toFixed(0)} µs`.padStart(19)} | ${`${single.postgresCpuUs.toFixed(0)} µs`.padStart(15)} |`,
      `| ${`${updates} events × ${FANOUT} subscriptions (fan-out)`.padEnd(51)} | ${fanout.perSecond.toFixed(0).padStart(12)} | ${`${fanout.workerCpuUs.toFixed(0)} µs`.padStart(19)} | ${`${fanout.postgresCpuUs.toFixed(0)} µs`.padStart(15)} |`,
      `| ${"baseline: bare signed POST loop, same receiver".padEnd(51)} | ${baseline.perSecond.toFixed(0).padStart(12)} |                     |                 |`,
      "",
      `throughput / baseline: ${(single.perSecond / baseline.perSecond).toFixed(2)}× (one subscription), ` +
        `${(fanout.perSecond / baseline.perSecond).toFixed(2)}× (fan-out)`,
      "",
      "| latency (ms)                                         |     p50 |     p95 |     p99 |",
      "|------------------------------------------------------|--------:|--------:|--------:|",
      `| change committed (API answered) → receiver            | ${ms(quantile(fromCommit, 0.5))} | ${ms(quantile(fromCommit, 0.95))} | ${ms(quantile(fromCommit, 0.99))} |`,
      `| API request sent → receiver                           | ${ms(quantile(fromRequest, 0.5))} | ${ms(quantile(fromRequest, 0.95))} | ${ms(quantile(fromRequest, 0.99))} |`,
      `| the API call alone (POST /api/v2/desk/people)          | ${ms(quantile(apiLatency, 0.5))} | ${ms(quantile(apiLatency, 0.95))} | ${ms(quantile(apiLatency, 0.99))} |`,
      `| baseline: one bare signed POST                        | ${ms(barePost.p50Ms)} |         | ${ms(barePost.p99Ms)} |`,
      "",
      `commit → receiver / bare POST (p50): ${(quantile(fromCommit, 0.5) / barePost.p50Ms).toFixed(1)}×`,
      `deliveries logged: ${rows[0].ok} succeeded of ${rows[0].all}; bad signatures at the receiver: ${badSignatures}`,
      `total bench time ${((performance.now() - startedAt) / 1000).toFixed(0)} s`,
      ""
    ].join("\n")
  )
  if (badSignatures > 0 || rows[0].ok !== rows[0].all) process.exitCode = 1
}

try {
  await main()
} catch (error) {
  process.exitCode = 1
  log(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`)
  for (const child of children) if (child.stderr()) log(`--- ${child.name} stderr ---\n${child.stderr()}`)
} finally {
  apiAgent.destroy()
  await cleanUp()
}
