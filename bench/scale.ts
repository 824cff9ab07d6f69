import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import pg from "pg"
import { childPidsOf, postgresCpuMs, postmasterPid, processTreeCpuMs } from "./support/cpu.ts"
import { runLoad } from "./support/load.ts"
import { freePort, startBenchDatabase, startChild, SERVER_NODE_FLAGS } from "./support/processes.ts"
import { rateLimitCost } from "./support/rate-limit-cost.ts"
import { benchRun, jsonPoster, log, root } from "./support/run.ts"
import { benchSchedule, seedBench } from "./support/seed.ts"

/**
 * `npm run bench:scale`: what a second API process buys on one PostgreSQL. One embedded
 * PostgreSQL and one seeded business; then, for 1, 2 and again 1 process, `studio serve
 * --processes N` (the CLI as an operator runs it, with the service's V8 flags) is started
 * against it, and for a fixed time at a fixed concurrency it measures
 *
 * - `GET /api/v2/desk/locations` (token auth, host tenancy, the shared rate limit, one query),
 * - `POST /api/v2/desk/bookings` (one lease, `complete_booking: true`: a visit really written,
 *   spread over BENCH_OCCURRENCES occurrences, each booking its own person and occurrence),
 *
 * with the CPU each side used in that time (the API processes: the primary and its HTTP
 * processes; PostgreSQL: the postmaster and its backends; this process: the load generator),
 * as % of the wall time (100 % = one core). Rate limits are the shared PostgreSQL store with
 * limits so high, and a window so long, that no request is refused; every non-2xx answer is counted. Last, the
 * per-request cost of the rate limit itself at the default limits, memory store against the
 * PostgreSQL store (bench/support/rate-limit-cost.ts), with no API process running.
 *
 * BENCH_DURATION (s, default 15) per measured round; BENCH_WARMUP (s, default 3) before each;
 * BENCH_CONCURRENCY (default 16); BENCH_OCCURRENCES (default 500).
 */
const DURATION = Number(process.env.BENCH_DURATION ?? 15)
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3)
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16)
const OCCURRENCES = Number(process.env.BENCH_OCCURRENCES ?? 500)
const PEOPLE = 2_000
/** 1, 2, then 1 again: a drift over the run (growing tables, other load) shows as the two 1s differing. */
const PROCESS_COUNTS = [1, 2, 1] as const
const BASE_DOMAIN = "localhost"
const HOST = `demo.${BASE_DOMAIN}`
const GET_PATH = "/api/v2/desk/locations"
const POST_PATH = "/api/v2/desk/bookings"

const run = benchRun("bench-scale")
const { benchDir, dataDir } = run
const post = jsonPoster(CONCURRENCY, HOST)

interface Round {
  readonly okPerSecond: number
  readonly non2xx: number
  readonly errors: number
  readonly p50Ms: number
  readonly p99Ms: number
}
interface Cpu {
  readonly api: number
  readonly postgres: number
  readonly loadGenerator: number
}

/** `task` CONCURRENCY at a time for `seconds`; a task answers its status (2xx counts as done). */
const postFor = async (seconds: number, task: () => Promise<{ status: number; text: string }>): Promise<Round> => {
  const latencies: Array<number> = []
  let ok = 0
  let non2xx = 0
  let errors = 0
  let firstRefusal: string | undefined
  const started = performance.now()
  const deadline = started + seconds * 1000
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < deadline) {
        const sent = performance.now()
        try {
          const { status, text } = await task()
          latencies.push(performance.now() - sent)
          if (status >= 200 && status < 300) ok++
          else {
            non2xx++
            firstRefusal ??= `${status}: ${text.slice(0, 300)}`
          }
        } catch {
          errors++
        }
      }
    })
  )
  const elapsed = (performance.now() - started) / 1000
  if (firstRefusal) log(`  first non-2xx booking answer: ${firstRefusal}`)
  latencies.sort((a, b) => a - b)
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0
  return { okPerSecond: ok / elapsed, non2xx, errors, p50Ms: at(0.5), p99Ms: at(0.99) }
}

/** Runs `measure` and the CPU each side used meanwhile, as % of the wall time. */
const withCpu = async <A>(apiPid: number, postmaster: number, measure: () => Promise<A>): Promise<{ result: A; cpu: Cpu }> => {
  const before = { api: processTreeCpuMs(apiPid), postgres: postgresCpuMs(postmaster), self: process.cpuUsage() }
  const started = performance.now()
  const result = await measure()
  const wallMs = performance.now() - started
  const self = process.cpuUsage(before.self)
  const percent = (ms: number) => (100 * ms) / wallMs
  return {
    result,
    cpu: {
      api: percent(processTreeCpuMs(apiPid) - before.api),
      postgres: percent(postgresCpuMs(postmaster) - before.postgres),
      loadGenerator: percent((self.user + self.system) / 1000)
    }
  }
}

const main = async () => {
  const loadBefore = os.loadavg()[0]!
  fs.rmSync(benchDir, { recursive: true, force: true })
  log(`PostgreSQL: starting (${dataDir})`)
  const { databaseUrl } = await startBenchDatabase(dataDir, (server) => (run.postgres = server))
  const postmaster = postmasterPid(dataDir)
  if (!postmaster) throw new Error("no postmaster.pid")
  const seed = await seedBench(databaseUrl)
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 })
  pool.on("error", () => {})
  const schedule = await benchSchedule(pool, seed.businessId)
  const occurrences = await schedule.occurrences(OCCURRENCES, 100_000)
  const people = await schedule.people(PEOPLE)

  // Booking i: its own (occurrence, person) pair, round-robin over the occurrences.
  let nextBooking = 0
  let booked = 0
  const book = async () => {
    const i = nextBooking++
    if (i >= OCCURRENCES * PEOPLE) throw new Error("out of (occurrence, person) pairs: raise BENCH_OCCURRENCES")
    const response = await post(run.service!.port, seed.token, POST_PATH, {
      booking: {
        complete_booking: true,
        leases: [{ event_occurrence_id: occurrences[i % OCCURRENCES]!, person: { id: people[Math.floor(i / OCCURRENCES) % PEOPLE]! } }]
      }
    })
    if (response.status === 201) booked++
    return response
  }
  const getLoad = (port: number, seconds: number) =>
    runLoad(`http://127.0.0.1:${port}${GET_PATH}`, {
      connections: CONCURRENCY,
      seconds,
      headers: { host: HOST, authorization: `Bearer ${seed.token}` }
    })

  const rows: Array<{ processes: number; request: string; round: Round; cpu: Cpu }> = []
  for (const processes of PROCESS_COUNTS) {
    // Each service starts on fresh budgets, as a new deployment would: slices the previous one
    // leased and did not spend stay leased until the window ends.
    await pool.query("delete from rate_limit_budgets")
    const port = await freePort(40000, 49999)
    log(`studio serve --processes ${processes} (port ${port})`)
    run.service = await startChild(
      `studio serve --processes ${processes}`,
      path.join(root, "src/cli.ts"),
      {
        DATABASE_URL: databaseUrl,
        PORT: String(port),
        HOST: "127.0.0.1",
        BASE_DOMAIN,
        DATA_DIR: benchDir,
        RATE_LIMIT_STORE: "postgres",
        RATE_LIMIT_PER_TOKEN: "10000000",
        RATE_LIMIT_PER_IP: "10000000",
        // One window for the whole run: no round crosses a window's end, where a process whose
        // window ended a round trip before PostgreSQL's leases again in the dying one.
        RATE_LIMIT_WINDOW_SECONDS: "3600",
        LOG_LEVEL: "info"
      },
      SERVER_NODE_FLAGS,
      {
        args: ["serve", "--processes", String(processes)],
        ready: processes === 1 ? /"http server listening"/ : /"http processes listening"/,
        port,
        timeoutMs: 90_000
      }
    )
    const apiPid = run.service.process.pid!
    if (processes > 1 && childPidsOf(apiPid).length !== processes) {
      throw new Error(`expected ${processes} HTTP processes under ${apiPid}, found ${childPidsOf(apiPid).length}`)
    }

    log(`  GET ${GET_PATH}: ${WARMUP} s warm-up, ${DURATION} s measured`)
    await getLoad(port, WARMUP)
    const get = await withCpu(apiPid, postmaster, () => getLoad(port, DURATION))
    const ok = get.result.total - get.result.non2xx
    rows.push({
      processes,
      request: `GET ${GET_PATH}`,
      round: {
        okPerSecond: get.result.total > 0 ? (get.result.requestsPerSecond * ok) / get.result.total : 0,
        non2xx: get.result.non2xx,
        errors: get.result.errors,
        p50Ms: get.result.p50Ms,
        p99Ms: get.result.p99Ms
      },
      cpu: get.cpu
    })

    log(`  POST ${POST_PATH}: ${WARMUP} s warm-up, ${DURATION} s measured`)
    await postFor(WARMUP, book)
    const booking = await withCpu(apiPid, postmaster, () => postFor(DURATION, book))
    rows.push({ processes, request: `POST ${POST_PATH}`, round: booking.result, cpu: booking.cpu })

    await run.service.stop()
    run.service = undefined
  }

  // Every 201 wrote a visit: the POST rounds measured real bookings.
  const { rows: [check] } = await pool.query<{ n: number }>(
    `select count(*)::int as n from visits where business_id = $1 and state = 'registered'`,
    [seed.businessId]
  )
  if (check!.n !== booked) throw new Error(`${booked} bookings answered 201 but ${check!.n} visits are registered`)
  await pool.end()

  log("rate limit cost: memory store against PostgreSQL store, slices for 1 and for 2 processes")
  const cost1 = await rateLimitCost(databaseUrl, { processes: 1 })
  const cost2 = await rateLimitCost(databaseUrl, { processes: 2 })
  const loadAfter = os.loadavg()[0]!

  const num = (n: number, width: number, digits = 0) => n.toFixed(digits).padStart(width)
  const pct = (n: number) => `${n.toFixed(0)} %`.padStart(7)
  // % of one core ÷ answers per second = CPU seconds per answer, shown in µs.
  const perRequest = (percent: number, perSecond: number) => (perSecond > 0 ? (percent / 100 / perSecond) * 1e6 : 0)
  const mean = (processes: number, request: string) => {
    const of = rows.filter((row) => row.processes === processes && row.request.startsWith(request))
    return of.reduce((sum, row) => sum + row.round.okPerSecond, 0) / of.length
  }
  const ratio = (request: string) => mean(2, request) / mean(1, request)
  const lines = [
    "",
    `bench:scale — ${DURATION} s per round after ${WARMUP} s warm-up, concurrency ${CONCURRENCY}, ${OCCURRENCES} occurrences, ` +
      `${os.cpus().length} CPUs, load ${loadBefore.toFixed(2)} before / ${loadAfter.toFixed(2)} after`,
    "CPU as % of wall time (100 % = one core): API = the serve primary and its HTTP processes; load gen = this process",
    "CPU µs/req: the API's and PostgreSQL's CPU time per 2xx answer",
    "procs  request                           2xx/s  non-2xx  errors  p50 ms  p99 ms  API CPU  PG CPU  load gen  API µs/req  PG µs/req",
    ...rows.map(({ processes, request, round, cpu }) =>
      [
        String(processes).padEnd(5),
        request.padEnd(30),
        num(round.okPerSecond, 7),
        num(round.non2xx, 8),
        num(round.errors, 7),
        num(round.p50Ms, 7, 1),
        num(round.p99Ms, 7, 1),
        pct(cpu.api),
        pct(cpu.postgres),
        pct(cpu.loadGenerator).padStart(9),
        num(perRequest(cpu.api, round.okPerSecond), 11),
        num(perRequest(cpu.postgres, round.okPerSecond), 10)
      ].join(" ")
    ),
    `2 processes / 1 process (the mean of both 1-process rounds): GET ${ratio("GET").toFixed(2)}×, POST ${ratio("POST").toFixed(2)}×`,
    `rate limit per request (IP + token check, default limits, ${cost1.hits} requests): memory ${cost1.memoryMicros.toFixed(1)} µs / ` +
      `${cost2.memoryMicros.toFixed(1)} µs; PostgreSQL store ${cost1.postgresMicros.toFixed(1)} µs (slices for 1 process), ` +
      `${cost2.postgresMicros.toFixed(1)} µs (for 2); the shared limit costs +${(cost1.postgresMicros - cost1.memoryMicros).toFixed(1)} µs / ` +
      `+${(cost2.postgresMicros - cost2.memoryMicros).toFixed(1)} µs a request`,
    ""
  ]
  process.stdout.write(lines.join("\n"))
}

main()
  .then(run.cleanUp)
  .catch(async (error) => {
    log(String(error instanceof Error ? error.stack : error))
    if (run.service) log(run.service.stderr())
    await run.cleanUp()
    process.exit(1)
  })
