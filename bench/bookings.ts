import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import pg from "pg"
import { freePort, startBenchDatabase, startChild } from "./support/processes.ts"
import { benchSchedule, seedBench } from "./support/seed.ts"
import { benchRun, jsonPoster, log, root } from "./support/run.ts"

/**
 * `npm run bench:bookings`: POST /api/v2/desk/bookings with one event-occurrence lease and
 * `complete_booking: true` (the whole path: token, tenancy, decoding, the capacity rule's row
 * lock and count, lease and visit rows, registration, visit.created events, the response),
 * against the service in its own process (bench/support/serve.ts).
 *
 * 1. One busy occurrence (capacity larger than the run): every booking waits on the same row lock.
 * 2. Many occurrences (BENCH_OCCURRENCES), bookings spread round-robin.
 * Baseline, measured in the same run on the same database: a bare `insert into visits` of one
 * row through pg, autocommit, at the same concurrency, on the same occurrence shapes; what
 * the service adds per booking is the ratio.
 *
 * BENCH_BOOKINGS (default 1000 per scenario), BENCH_CONCURRENCY (default 16), BENCH_OCCURRENCES (default 200).
 */
const BOOKINGS = Number(process.env.BENCH_BOOKINGS ?? 1000)
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16)
const OCCURRENCES = Number(process.env.BENCH_OCCURRENCES ?? 200)
const BASE_DOMAIN = "localhost"

const run = benchRun("bench-bookings")
const { benchDir, dataDir } = run
const post = jsonPoster(CONCURRENCY, `demo.${BASE_DOMAIN}`)

/** Runs `task(i)` for i < count, `concurrency` at a time; returns operations per second. */
const timed = async (count: number, task: (i: number) => Promise<void>) => {
  let next = 0
  const started = performance.now()
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < count) await task(next++)
  }))
  return count / ((performance.now() - started) / 1000)
}

const main = async () => {
  const loadBefore = os.loadavg()[0]!
  fs.rmSync(benchDir, { recursive: true, force: true })
  log(`PostgreSQL: starting (${dataDir})`)
  const { databaseUrl } = await startBenchDatabase(dataDir, (server) => (run.postgres = server))
  const seed = await seedBench(databaseUrl)
  const pool = new pg.Pool({ connectionString: databaseUrl, max: CONCURRENCY })
  pool.on("error", () => {})
  const businessId = seed.businessId
  const one = async (text: string, values: Array<unknown> = []) => (await pool.query(text, values)).rows

  // The schedule: a group class with one busy occurrence and OCCURRENCES others, tomorrow on.
  const schedule = await benchSchedule(pool, businessId)
  const [busy, busyBaseline] = await schedule.occurrences(2, 4 * BOOKINGS)
  const spread = await schedule.occurrences(OCCURRENCES, 4 * BOOKINGS)
  const spreadBaseline = await schedule.occurrences(OCCURRENCES, 4 * BOOKINGS)
  // Distinct people: one visit per person and occurrence.
  const people = await schedule.people(BOOKINGS)

  const servicePort = await freePort(40000, 49999)
  run.service = await startChild("service", path.join(root, "bench/support/serve.ts"), {
    DATABASE_URL: databaseUrl,
    PORT: String(servicePort),
    BASE_DOMAIN,
    DATA_DIR: benchDir
  })

  const book = (occurrenceId: number, personId: number) =>
    post(servicePort, seed.token, "/api/v2/desk/bookings", {
      booking: { complete_booking: true, leases: [{ event_occurrence_id: occurrenceId, person: { id: personId } }] }
    }).then((response) => {
      if (response.status !== 201) throw new Error(`booking answered ${response.status}: ${response.text}`)
    })
  const bareInsert = (occurrenceId: number, personId: number) =>
    pool
      .query(
        `insert into visits (business_id, event_occurrence_id, person_id, state, registered_at) values ($1, $2, $3, 'registered', now())`,
        [businessId, occurrenceId, personId]
      )
      .then(() => {})

  // Warm-up: the service's first requests compile and connect.
  await timed(50, (i) => book(spread[i % spread.length]!, people[i]!))
  await pool.query(`delete from bookings where business_id = $1`, [businessId])
  await pool.query(`delete from visits where business_id = $1`, [businessId])

  log(`${BOOKINGS} bookings per scenario, ${CONCURRENCY} at a time`)
  const results = {
    busyBaseline: await timed(BOOKINGS, (i) => bareInsert(busyBaseline!, people[i]!)),
    busy: await timed(BOOKINGS, (i) => book(busy!, people[i]!)),
    spreadBaseline: await timed(BOOKINGS, (i) => bareInsert(spreadBaseline[i % OCCURRENCES]!, people[i]!)),
    spread: await timed(BOOKINGS, (i) => book(spread[i % OCCURRENCES]!, people[i]!))
  }
  const [check] = await one(`select count(*)::int as n from visits where business_id = $1 and event_occurrence_id = $2 and state = 'registered'`, [businessId, busy])
  if (check.n !== BOOKINGS) throw new Error(`the busy occurrence holds ${check.n} visits, expected ${BOOKINGS}`)

  const fmt = (n: number) => n.toFixed(0).padStart(7)
  const lines = [
    "",
    `bench:bookings — ${BOOKINGS} bookings per scenario, concurrency ${CONCURRENCY}, ${os.cpus().length} CPUs, load ${loadBefore.toFixed(2)} before`,
    "scenario                         bookings/s   bare insert/s   ratio",
    `one busy occurrence              ${fmt(results.busy)}      ${fmt(results.busyBaseline)}     ${(results.busy / results.busyBaseline).toFixed(3)}`,
    `${String(OCCURRENCES).padEnd(4)} occurrences round-robin    ${fmt(results.spread)}      ${fmt(results.spreadBaseline)}     ${(results.spread / results.spreadBaseline).toFixed(3)}`,
    `busy / spread (lock contention)  ${(results.busy / results.spread).toFixed(3)}`,
    ""
  ]
  process.stdout.write(lines.join("\n"))
  await pool.end()
}

main()
  .then(run.cleanUp)
  .catch(async (error) => {
    log(String(error instanceof Error ? error.stack : error))
    if (run.service) log(run.service.stderr())
    await run.cleanUp()
    process.exit(1)
  })
