import { deepStrictEqual } from "node:assert"
import * as fs from "node:fs"
import * as http from "node:http"
import * as os from "node:os"
import * as path from "node:path"
import type { EmbeddedServer } from "../src/platform/embedded-postgres.ts"
import { type LoadResult, runLoad } from "./support/load.ts"
import { cpuMsOf, postgresCpuMs, postmasterPid } from "./support/cpu.ts"
import { type Child, freePort, memoryOf, startBenchDatabase, startChild, SERVER_NODE_FLAGS } from "./support/processes.ts"
import { seedBench } from "./support/seed.ts"
import { startObservedServices } from "./support/observed.ts"

/**
 * `npm run bench:api`: `GET /api/v2/desk/locations` through the whole service (token auth,
 * host tenancy, rate limits, locale, routing, schemas) against a bare `node:http` + `pg`
 * server answering the same query from the same database, and against the stack's floor (the
 * service's handler, repo and query on a bare Effect HttpApi, bench/support/floor.ts), all
 * measured in this run, each in its own process, the load generated from this one. Reports
 * the throughput ratios and the CPU each request costs.
 *
 * BENCH_DURATION (s, default 10) per measured round; BENCH_CONNECTIONS (default 50);
 * BENCH_WARMUP (s, default 3); BENCH_RATE (requests/s in all, default: as fast as each answers);
 * BENCH_CPU_PROF=<dir> writes V8 CPU profiles of the service (and of the others in <dir>/baseline, <dir>/floor).
 *
 * The price of observability, in the same run: the service again with METRICS_PORT set and its
 * /metrics scraped every BENCH_SCRAPE_INTERVAL_MS (default 5000) meanwhile, and with traces (and
 * logs and metrics) exported over OTLP/HTTP to a receiver that discards them (bench/support/
 * otlp-sink.ts, its own process; BENCH_TRACE_SAMPLE_RATIO of the traces, default 0.1), against the
 * service with both off. The last two lines are
 * `ratio metrics_on_vs_off <on/off throughput>` and `ratio tracing_on_vs_off <...>`.
 */
const DURATION = Number(process.env.BENCH_DURATION ?? 10)
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50)
const ROUNDS = 2
/** The first target, against the bare baseline; kept for the CPU budget it sets. */
const TARGET_RATIO = 0.8
/** The targets in force: the service at 0.85× the stack's floor, within 256 MiB resident at its peak. */
const TARGET_FLOOR_RATIO = 0.85
const TARGET_PEAK_MIB = 256
const CPU_PROF_DIR = process.env.BENCH_CPU_PROF
/** A fixed total rate (requests/s) instead of as fast as each server answers: compares CPU per request at equal load. */
const RATE = process.env.BENCH_RATE ? Number(process.env.BENCH_RATE) : undefined
const BASE_DOMAIN = "localhost"
const PATH = "/api/v2/desk/locations"
/**
 * The service runs three times (plain, metrics, tracing) on one database, with one token from one
 * address: they share those keys' rate-limit budgets as the processes of one deployment do, so
 * each is told it is one of three (WEB_CONCURRENCY), or each leases slices sized for a process
 * alone and near a window's end the budget runs dry on leases nobody spends (seen: 429s).
 */
const SERVICE_PROCESSES = 3
const TARGETS = ["baseline", "floor", "service", "metrics", "tracing"] as const
/** The most throughput metrics and tracing may cost against the service with both off. */
const TARGET_METRICS_COST = 0.05
const TARGET_TRACING_COST = 0.15
const SCRAPE_INTERVAL_MS = Number(process.env.BENCH_SCRAPE_INTERVAL_MS ?? 5000)
/** The tracing target keeps this share of traces (OTEL_TRACES_SAMPLER_ARG; README's production advice). */
const TRACE_SAMPLE_RATIO = Number(process.env.BENCH_TRACE_SAMPLE_RATIO ?? 0.1)

const root = path.resolve(import.meta.dirname, "..")
const dataDir = path.join(root, ".data/bench/postgres")

const log = (message: string) => process.stderr.write(`${message}\n`)

const get = (port: number, headers: Record<string, string>) =>
  new Promise<{ status: number; json: unknown }>((resolve, reject) => {
    const request = http.request({ host: "127.0.0.1", port, path: PATH, headers, agent: false }, (response) => {
      const chunks: Array<Buffer> = []
      response.on("data", (chunk: Buffer) => chunks.push(chunk))
      response.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8")
        try {
          resolve({ status: response.statusCode ?? 0, json: JSON.parse(text) })
        } catch {
          reject(new Error(`not JSON (status ${response.statusCode}): ${text.slice(0, 500)}`))
        }
      })
    })
    request.on("error", reject)
    request.end()
  })

const children: Array<Child> = []
let postgres: EmbeddedServer | undefined

const cleanUp = async () => {
  await Promise.allSettled(children.map((child) => child.stop()))
  children.length = 0
  if (postgres) {
    const server = postgres
    postgres = undefined
    await server.stop().catch(() => {})
  }
  fs.rmSync(path.dirname(dataDir), { recursive: true, force: true })
}

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    log(`\n${signal}: cleaning up`)
    void cleanUp().finally(() => process.exit(130))
  })
}

/** A round's load figures and the CPU each party spent per request (µs). */
interface Measured extends LoadResult {
  readonly cpuUs: { readonly server: number; readonly postgres: number; readonly loadGenerator: number }
}

const mean = (results: ReadonlyArray<Measured>): Measured => {
  const avg = (pick: (r: Measured) => number) => results.reduce((sum, r) => sum + pick(r), 0) / results.length
  const sum = (pick: (r: Measured) => number) => results.reduce((total, r) => total + pick(r), 0)
  return {
    requestsPerSecond: avg((r) => r.requestsPerSecond),
    p50Ms: avg((r) => r.p50Ms),
    p99Ms: avg((r) => r.p99Ms),
    errors: sum((r) => r.errors),
    non2xx: sum((r) => r.non2xx),
    non2xxStatuses: results.reduce<Record<string, number>>((all, r) => {
      for (const [status, count] of Object.entries(r.non2xxStatuses)) all[status] = (all[status] ?? 0) + count
      return all
    }, {}),
    total: sum((r) => r.total),
    cpuUs: {
      server: avg((r) => r.cpuUs.server),
      postgres: avg((r) => r.cpuUs.postgres),
      loadGenerator: avg((r) => r.cpuUs.loadGenerator)
    }
  }
}

const main = async () => {
  const startedAt = performance.now()
  const loadBefore = os.loadavg()[0]!
  fs.rmSync(path.dirname(dataDir), { recursive: true, force: true })
  log(`PostgreSQL: starting (${dataDir})`)
  const { databaseUrl } = await startBenchDatabase(dataDir, (server) => (postgres = server))
  const seed = await seedBench(databaseUrl)
  log(`seeded business ${seed.subdomain} (id ${seed.businessId}) with 10 locations and an owner token`)

  const host = `${seed.subdomain}.${BASE_DOMAIN}`
  const serviceHeaders = { host, authorization: `Bearer ${seed.token}` }
  const baselineHeaders = { host }

  const servicePort = await freePort(40000, 49999)
  const baselinePort = await freePort(40000, 49999)
  const service = await startChild(
    "service",
    path.join(root, "bench/support/serve.ts"),
    { DATABASE_URL: databaseUrl, PORT: String(servicePort), BASE_DOMAIN, LOG_LEVEL: "none", WEB_CONCURRENCY: String(SERVICE_PROCESSES) },
    [...SERVER_NODE_FLAGS, ...(CPU_PROF_DIR ? ["--cpu-prof", `--cpu-prof-dir=${path.resolve(CPU_PROF_DIR)}`] : [])]
  )
  children.push(service)
  const baseline = await startChild("baseline", path.join(root, "bench/support/baseline.ts"), {
    DATABASE_URL: databaseUrl,
    PORT: String(baselinePort),
    BUSINESS_ID: String(seed.businessId)
  }, CPU_PROF_DIR ? ["--cpu-prof", `--cpu-prof-dir=${path.resolve(CPU_PROF_DIR, "baseline")}`] : [])
  children.push(baseline)
  const floor = await startChild(
    "floor",
    path.join(root, "bench/support/floor.ts"),
    { DATABASE_URL: databaseUrl, SUBDOMAIN: seed.subdomain, PORT: String(await freePort(40000, 49999)), LOG_LEVEL: "none" },
    [...SERVER_NODE_FLAGS, ...(CPU_PROF_DIR ? ["--cpu-prof", `--cpu-prof-dir=${path.resolve(CPU_PROF_DIR, "floor")}`] : [])]
  )
  children.push(floor)
  const observed = await startObservedServices(root, databaseUrl, BASE_DOMAIN, SERVER_NODE_FLAGS, TRACE_SAMPLE_RATIO, SERVICE_PROCESSES)
  children.push(...observed.children)
  log(
    `service pid ${service.process.pid} on :${service.port}, baseline pid ${baseline.process.pid} on :${baseline.port}, ` +
      `floor pid ${floor.process.pid} on :${floor.port}`
  )

  // All three must give the same correct answer before their speed means anything.
  const serviceAnswer = await get(service.port, serviceHeaders)
  const baselineAnswer = await get(baseline.port, baselineHeaders)
  if (serviceAnswer.status !== 200) {
    throw new Error(`service answered ${serviceAnswer.status}: ${JSON.stringify(serviceAnswer.json)}`)
  }
  if (baselineAnswer.status !== 200) {
    throw new Error(`baseline answered ${baselineAnswer.status}: ${JSON.stringify(baselineAnswer.json)}`)
  }
  const body = serviceAnswer.json as { locations: Array<unknown>; total_count: number }
  if (body.locations?.length !== 10 || body.total_count !== 10) {
    throw new Error(`service answered an unexpected body: ${JSON.stringify(body)}`)
  }
  deepStrictEqual(baselineAnswer.json, serviceAnswer.json, "the baseline and the service answer different bodies")
  const floorAnswer = await get(floor.port, baselineHeaders)
  deepStrictEqual(floorAnswer.json, serviceAnswer.json, "the floor and the service answer different bodies")
  log("all three answer 200 with the same 10 locations")

  const targets = {
    baseline: { url: `http://127.0.0.1:${baseline.port}${PATH}`, headers: baselineHeaders },
    floor: { url: `http://127.0.0.1:${floor.port}${PATH}`, headers: baselineHeaders },
    service: { url: `http://127.0.0.1:${service.port}${PATH}`, headers: serviceHeaders },
    metrics: { url: `http://127.0.0.1:${observed.metrics.port}${PATH}`, headers: serviceHeaders },
    tracing: { url: `http://127.0.0.1:${observed.tracing.port}${PATH}`, headers: serviceHeaders }
  }
  const servers = { baseline, floor, service, metrics: observed.metrics, tracing: observed.tracing }
  const postmaster = postmasterPid(dataDir)
  const load = async (name: keyof typeof targets, seconds: number): Promise<Measured> => {
    const serverPid = servers[name].process.pid!
    const before = { server: cpuMsOf(serverPid), postgres: postmaster ? postgresCpuMs(postmaster) : 0, self: process.cpuUsage() }
    // Prometheus scrapes the metrics target while it is under load.
    const stopScraping = name === "metrics" ? observed.scrapeEvery(SCRAPE_INTERVAL_MS) : undefined
    const result = await runLoad(targets[name].url, { connections: CONNECTIONS, seconds, headers: targets[name].headers, ...(RATE ? { overallRate: RATE } : {}) })
    stopScraping?.()
    const self = process.cpuUsage(before.self)
    const perRequest = (ms: number) => (ms * 1000) / Math.max(1, result.total)
    return {
      ...result,
      cpuUs: {
        server: perRequest(cpuMsOf(serverPid) - before.server),
        postgres: perRequest((postmaster ? postgresCpuMs(postmaster) : 0) - before.postgres),
        loadGenerator: perRequest((self.user + self.system) / 1000)
      }
    }
  }

  for (const name of TARGETS) {
    log(`warm-up ${name} ${WARMUP} s`)
    await load(name, WARMUP)
  }
  const results: Record<keyof typeof targets, Array<Measured>> = { baseline: [], floor: [], service: [], metrics: [], tracing: [] }
  for (let round = 1; round <= ROUNDS; round++) {
    for (const name of TARGETS) {
      log(`round ${round}/${ROUNDS}: ${name} ${DURATION} s, ${CONNECTIONS} connections`)
      const result = await load(name, DURATION)
      log(
        `  ${Math.round(result.requestsPerSecond)} req/s, p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms; CPU per request: ` +
          `server ${result.cpuUs.server.toFixed(0)} µs, PostgreSQL ${result.cpuUs.postgres.toFixed(0)} µs, ` +
          `load generator ${result.cpuUs.loadGenerator.toFixed(0)} µs`
      )
      results[name].push(result)
    }
  }

  const serviceMemory = memoryOf(service.process.pid!)
  const baselineMemory = memoryOf(baseline.process.pid!)
  const floorMemory = memoryOf(floor.process.pid!)
  const b = mean(results.baseline)
  const s = mean(results.service)
  const f = mean(results.floor)
  const m = mean(results.metrics)
  const tr = mean(results.tracing)
  const metricsRatio = m.requestsPerSecond / s.requestsPerSecond
  const tracingRatio = tr.requestsPerSecond / s.requestsPerSecond
  const exported = await observed.exported()
  const ratio = s.requestsPerSecond / b.requestsPerSecond
  const clean = s.errors + s.non2xx + b.errors + b.non2xx === 0
  const floorRatio = s.requestsPerSecond / f.requestsPerSecond
  const memoryMet = serviceMemory !== undefined && serviceMemory.peakMiB <= TARGET_PEAK_MIB

  const totalCpu = (r: Measured) => r.cpuUs.server + r.cpuUs.postgres + r.cpuUs.loadGenerator
  // Everything shares the machine's cores: the most CPU a request may cost for the target rate.
  const budgetUs = (os.cpus().length * 1_000_000) / (TARGET_RATIO * b.requestsPerSecond)

  const cell = (value: string | number, width: number) => String(value).padStart(width)
  const row = (name: string, r: Measured) =>
    `| ${name.padEnd(8)} | ${cell(Math.round(r.requestsPerSecond), 6)} | ${cell(r.p50Ms.toFixed(1), 8)} | ${cell(r.p99Ms.toFixed(1), 8)} ` +
    `| ${cell(r.errors, 6)} | ${cell(r.non2xx, 7)} | ${cell(r.cpuUs.server.toFixed(0), 18)} | ${cell(r.cpuUs.postgres.toFixed(0), 10)} ` +
    `| ${cell(r.cpuUs.loadGenerator.toFixed(0), 15)} |`
  const mib = (m: ReturnType<typeof memoryOf>) => (m ? `${m.currentMiB.toFixed(0)} MiB now, ${m.peakMiB.toFixed(0)} MiB peak` : "n/a")
  console.log(
    [
      "",
      `GET ${PATH}: ${CONNECTIONS} connections, ${WARMUP} s warm-up each, ${ROUNDS} × ${DURATION} s alternating, mean`,
      `Node ${process.version}, ${os.cpus().length} CPUs (load generator, servers and PostgreSQL share them); ` +
        `1-min load average before the run ${loadBefore.toFixed(2)}` +
        (loadBefore > 1 ? " (other work was running: figures are noisy, rerun on an idle machine)" : ""),
      "",
      "CPU columns: CPU time per request (µs) of the server process, of PostgreSQL, and of the load generator.",
      "",
      "| target   |  req/s | p50 (ms) | p99 (ms) | errors | non-2xx | server CPU/req µs | PG CPU µs | load gen CPU µs |",
      "|----------|-------:|---------:|---------:|-------:|--------:|------------------:|----------:|----------------:|",
      row("baseline", b),
      row("floor", f),
      row("service", s),
      row("metrics", m),
      row("tracing", tr),
      ...Object.entries({ baseline: b, floor: f, service: s, metrics: m, tracing: tr })
        .filter(([, r]) => r.non2xx > 0)
        .map(([name, r]) => `non-2xx answers of ${name}, by status: ${JSON.stringify(r.non2xxStatuses)}`),
      "",
      `metrics: the service with METRICS_PORT set, /metrics scraped every ${SCRAPE_INTERVAL_MS / 1000} s (${observed.scrapes()} scrapes, ` +
        `${observed.failedScrapes()} failed); tracing: OTLP/HTTP export of ${TRACE_SAMPLE_RATIO * 100} % of traces to a discarding receiver (${exported.requests} export requests, ` +
        `${(exported.bytes / 1_048_576).toFixed(1)} MiB)`,
      `metrics on / off throughput: ${metricsRatio.toFixed(3)}× (cost ≤ ${TARGET_METRICS_COST * 100} %) → ` +
        `${metricsRatio >= 1 - TARGET_METRICS_COST ? "PASS" : "BELOW TARGET"}`,
      `tracing on / off throughput: ${tracingRatio.toFixed(3)}× (cost ≤ ${TARGET_TRACING_COST * 100} %) → ` +
        `${tracingRatio >= 1 - TARGET_TRACING_COST ? "PASS" : "BELOW TARGET"}`,
      "",
      `service / floor throughput: ${floorRatio.toFixed(2)}× (target ≥ ${TARGET_FLOOR_RATIO}× with zero errors; the ` +
        `middleware's price) → ${floorRatio >= TARGET_FLOOR_RATIO && clean ? "PASS" : "BELOW TARGET"}`,
      `service peak RSS: ${serviceMemory ? serviceMemory.peakMiB.toFixed(0) : "n/a"} MiB (target ≤ ${TARGET_PEAK_MIB} MiB) → ${
        memoryMet ? "PASS" : "BELOW TARGET"
      }`,
      `service / baseline throughput: ${ratio.toFixed(2)}×; floor / baseline: ${(f.requestsPerSecond / b.requestsPerSecond).toFixed(2)}× ` +
        `(the stack's ceiling here: the service's handler, repo and query on a bare HttpApi, no middleware)`,
      `CPU per request in all (server + PostgreSQL + load generator): baseline ${totalCpu(b).toFixed(0)} µs, floor ${totalCpu(f).toFixed(0)} µs, ` +
        `service ${totalCpu(s).toFixed(0)} µs; at ${TARGET_RATIO}× the baseline's rate, ${os.cpus().length} cores allow ` +
        `${budgetUs.toFixed(0)} µs`,
      `RSS: service ${mib(serviceMemory)}; floor ${mib(floorMemory)}; baseline ${mib(baselineMemory)}`,
      `total bench time ${((performance.now() - startedAt) / 1000).toFixed(0)} s`,
      "",
      `ratio metrics_on_vs_off ${metricsRatio.toFixed(3)}`,
      `ratio tracing_on_vs_off ${tracingRatio.toFixed(3)}`
    ].join("\n")
  )
}

try {
  await main()
} catch (error) {
  process.exitCode = 1
  log(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`)
  for (const child of children) if (child.stderr()) log(`--- ${child.name} stderr ---\n${child.stderr()}`)
} finally {
  await cleanUp()
}
