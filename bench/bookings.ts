import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import pg from "pg"
import { postmasterPid } from "./support/cpu.ts"
import { cpuProfileFlags, freePort, SERVER_NODE_FLAGS, startBenchDatabase, startChild } from "./support/processes.ts"
import { benchSchedule, seedBench } from "./support/seed.ts"
import { benchRun, jsonPoster, log, root } from "./support/run.ts"
import { BASE_DOMAIN, demoTenant, largeTenant, type Tenant } from "./support/tenants.ts"
import { best, measureRound, roundLine } from "./support/write-measure.ts"
import { createWriteBaselines } from "./support/write-baselines.ts"

/**
 * `npm run bench:bookings`: `POST /api/v2/desk/bookings` with one event-occurrence lease and
 * `complete_booking: true` (the whole path: token, tenancy, decoding, the occurrence's lock,
 * the duplicate and capacity rules, booking, lease and visit, the response), against the
 * service in its own process (bench/support/serve.ts), BENCH_CONCURRENCY at a time over
 * BENCH_OCCURRENCES occurrences.
 *
 * Baseline, in the same run on the same database at the same concurrency: `select bench_book(...)`
 * (bench/support/write-baselines.ts), the same three rows written with the same locks and rules
 * by one database function in one round trip. Rounds alternate (baseline, service, baseline,
 * service) and the better of each side's two counts. Per booking: round trips and foreign-key
 * checks from pg_stat_statements, PostgreSQL's and the API's CPU from /proc.
 *
 * The floor, in the same run: the same bookings through bench/support/floor-write.ts, `bench_book`
 * behind the smallest Effect HttpApi server with the service's request schema, alternating with
 * the other two in the demo business. The service cannot pass it; where a ratio target sits above
 * `booking_floor_vs_sql`, no design of the write path reaches it on this machine. A second floor
 * server books through `bench_book_rules` (the service's reads and rules for this booking in one
 * function): `booking_rules_floor_vs_sql` is what a rewrite of the rules into one database function
 * could reach, before the service's own request pipeline.
 *
 * Businesses: the bench's `demo` and, unless BENCH_LARGE_ENROLLMENTS=0, a business of
 * BENCH_LARGE_ENROLLMENTS enrollments (default 1,000,000; `studio seed scale`).
 * Capacity: bookings into an occurrence already holding 10 visits against one holding 1,000.
 *
 * Last lines: `ratio booking_vs_sql <demo business>`, `ratio booking_floor_vs_sql <the floor in
 * the demo business>`, `ratio booking_rules_floor_vs_sql <the same, with the rules>`, `ratio booking_vs_sql_large <large business>`, `ratio capacity_1000_vs_10
 * <bookings/s into the full occurrence ÷ the small one>`.
 * BENCH_CPU_PROF=<dir> writes a V8 CPU profile of the service there. BENCH_STATEMENTS=1 prints after each round
 * its costliest statements per operation (execution, lock waits included, and planning) and what the backends waited on.
 * BENCH_PG_SETTINGS="name=value ..." starts the bench's PostgreSQL with those settings (an experiment's).
 * BENCH_ANALYZE=1 runs `vacuum (analyze)` after the warm-up rounds, as a live database's autovacuum would: the tables are
 * small then and grow through the run, so the plans the database functions keep after five calls depend on it (docs/benchmarks.md,
 * "the floors and the statistics").
 * BENCH_BOOKINGS (per round, default 1000), BENCH_CONCURRENCY (default 16), BENCH_OCCURRENCES (default 200).
 */
const BOOKINGS = Number(process.env.BENCH_BOOKINGS ?? 1000)
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16)
const OCCURRENCES = Number(process.env.BENCH_OCCURRENCES ?? 200)
const LARGE_ENROLLMENTS = Number(process.env.BENCH_LARGE_ENROLLMENTS ?? 1_000_000)

const run = benchRun("bench-bookings")
const { benchDir, dataDir } = run

const main = async () => {
  const loadBefore = os.loadavg()[0]!
  fs.rmSync(benchDir, { recursive: true, force: true })
  log(`PostgreSQL: starting (${dataDir})`)
  const { databaseUrl } = await startBenchDatabase(dataDir, (server) => (run.postgres = server))
  const seed = await seedBench(databaseUrl)
  const pool = new pg.Pool({ connectionString: databaseUrl, max: CONCURRENCY + 2 })
  pool.on("error", () => {})
  await createWriteBaselines(pool)
  const tenants: Array<Tenant> = [await demoTenant(pool, seed)]
  if (LARGE_ENROLLMENTS > 0) tenants.push(await largeTenant(databaseUrl, pool, LARGE_ENROLLMENTS))

  const servicePort = await freePort(40000, 49999)
  run.service = await startChild("service", path.join(root, "bench/support/serve.ts"), {
    DATABASE_URL: databaseUrl,
    PORT: String(servicePort),
    BASE_DOMAIN,
    DATA_DIR: benchDir
  }, [...SERVER_NODE_FLAGS, ...cpuProfileFlags()])
  // The floors book in the demo business through one database function each (bench/support/floor-write.ts).
  const startFloor = async (name: string, bookFunction: string, flags: ReadonlyArray<string>) =>
    startChild(name, path.join(root, "bench/support/floor-write.ts"), {
      DATABASE_URL: databaseUrl,
      PORT: String(await freePort(40000, 49999)),
      BUSINESS_ID: String(tenants[0]!.businessId),
      STAFF_MEMBER_ID: String(tenants[0]!.staffMemberId),
      BOOK_FUNCTION: bookFunction,
      DATA_DIR: benchDir,
      LOG_LEVEL: "none"
    }, [...flags])
  run.floor = await startFloor("floor", "bench_book", [...SERVER_NODE_FLAGS, ...cpuProfileFlags("floor")])
  run.rulesFloor = await startFloor("rules-floor", "bench_book_rules", SERVER_NODE_FLAGS)
  const postmaster = postmasterPid(dataDir)
  const apiPid = run.service.process.pid
  const floorPort = run.floor.port
  const floorPid = run.floor.process.pid
  const rulesFloorPort = run.rulesFloor.port
  const rulesFloorPid = run.rulesFloor.process.pid

  const posters = new Map(tenants.map((tenant) => [tenant, jsonPoster(CONCURRENCY, tenant.host)]))
  const book = (tenant: Tenant, occurrenceId: number, personId: number) =>
    posters.get(tenant)!(servicePort, tenant.token, "/api/v2/desk/bookings", {
      booking: { complete_booking: true, leases: [{ event_occurrence_id: occurrenceId, person: { id: personId } }] }
    }).then((response) => {
      if (response.status !== 201) throw new Error(`booking answered ${response.status}: ${response.text}`)
    })
  const floorPoster = jsonPoster(CONCURRENCY, tenants[0]!.host)
  const bookOn = (port: number) => (occurrenceId: number, personId: number) =>
    floorPoster(port, "", "/api/v2/desk/bookings", {
      booking: { complete_booking: true, leases: [{ event_occurrence_id: occurrenceId, person: { id: personId } }] }
    }).then((response) => {
      if (response.status !== 201) throw new Error(`the floor's booking answered ${response.status}: ${response.text}`)
    })
  const bookOnFloor = bookOn(floorPort)
  const bookOnRulesFloor = bookOn(rulesFloorPort)
  const bookInSql = (tenant: Tenant, occurrenceId: number, personId: number) =>
    pool.query(`select bench_book($1, $2, $3, $4)`, [tenant.businessId, occurrenceId, personId, tenant.staffMemberId]).then(() => {})
  const round = (task: (i: number) => Promise<void>, count = BOOKINGS, pid = apiPid) =>
    measureRound({ pool, postmaster, apiPid: pid, count, concurrency: CONCURRENCY, task })

  const lines: Array<string> = []
  const ratios: Array<string> = []
  for (const tenant of tenants) {
    log(`${tenant.label}: ${BOOKINGS} bookings per round, ${CONCURRENCY} at a time`)
    const schedule = await benchSchedule(pool, tenant.businessId)
    const people = await schedule.people(BOOKINGS)
    // Each round books its own occurrences: one visit per person and occurrence.
    const occurrences = async () => schedule.occurrences(OCCURRENCES, 4 * BOOKINGS)
    const spread = (ids: ReadonlyArray<number>, fn: (occurrence: number, person: number) => Promise<void>) => (i: number) =>
      fn(ids[i % ids.length]!, people[i]!)
    const warm = await occurrences()
    await round(spread(warm, (o, p) => book(tenant, o, p)), 100)
    await round(spread(await occurrences(), (o, p) => bookInSql(tenant, o, p)), 100)
    // The floor (demo business only) runs after each service round, against the same SQL rounds.
    const onFloor = async () => (tenant === tenants[0] ? round(spread(await occurrences(), bookOnFloor), BOOKINGS, floorPid) : undefined)
    const onRulesFloor = async () =>
      tenant === tenants[0] ? round(spread(await occurrences(), bookOnRulesFloor), BOOKINGS, rulesFloorPid) : undefined
    if (tenant === tenants[0]) {
      await round(spread(await occurrences(), bookOnFloor), 100, floorPid)
      await round(spread(await occurrences(), bookOnRulesFloor), 100, rulesFloorPid)
    }
    if (process.env.BENCH_ANALYZE === "1") await pool.query("vacuum (analyze)")
    const sql1 = await round(spread(await occurrences(), (o, p) => bookInSql(tenant, o, p)))
    const api1 = await round(spread(await occurrences(), (o, p) => book(tenant, o, p)))
    const floor1 = await onFloor()
    const rules1 = await onRulesFloor()
    const sql2 = await round(spread(await occurrences(), (o, p) => bookInSql(tenant, o, p)))
    const api2 = await round(spread(await occurrences(), (o, p) => book(tenant, o, p)))
    const floor2 = await onFloor()
    const rules2 = await onRulesFloor()
    const sql = best(sql1, sql2)
    const api = best(api1, api2)
    lines.push(`${tenant.label}`, roundLine("  one-round-trip SQL booking", sql), roundLine("  POST /api/v2/desk/bookings", api))
    lines.push(`  ratio ${(api.perSecond / sql.perSecond).toFixed(3)} (rounds: SQL ${sql1.perSecond.toFixed(0)}, ${sql2.perSecond.toFixed(0)}; API ${api1.perSecond.toFixed(0)}, ${api2.perSecond.toFixed(0)})`)
    ratios.push(`ratio ${tenant === tenants[0] ? "booking_vs_sql" : "booking_vs_sql_large"} ${(api.perSecond / sql.perSecond).toFixed(3)}`)
    if (floor1 && floor2) {
      const floor = best(floor1, floor2)
      lines.push(roundLine("  floor: bench_book behind HttpApi", floor))
      lines.push(`  floor ratio ${(floor.perSecond / sql.perSecond).toFixed(3)} (rounds: ${floor1.perSecond.toFixed(0)}, ${floor2.perSecond.toFixed(0)})`)
      ratios.push(`ratio booking_floor_vs_sql ${(floor.perSecond / sql.perSecond).toFixed(3)}`)
    }
    if (rules1 && rules2) {
      const rules = best(rules1, rules2)
      lines.push(roundLine("  the rules too: bench_book_rules", rules))
      lines.push(`  rules floor ratio ${(rules.perSecond / sql.perSecond).toFixed(3)} (rounds: ${rules1.perSecond.toFixed(0)}, ${rules2.perSecond.toFixed(0)})`)
      ratios.push(`ratio booking_rules_floor_vs_sql ${(rules.perSecond / sql.perSecond).toFixed(3)}`)
    }
  }

  // Capacity: the same bookings into an occurrence holding 10 visits and one holding 1,000.
  const demo = tenants[0]!
  const schedule = await benchSchedule(pool, demo.businessId)
  const holders = await schedule.people(1000)
  const bookers = await schedule.people(BOOKINGS)
  const [small, full] = await schedule.occurrences(2, 1000 + 4 * BOOKINGS)
  for (const [occurrence, count] of [[small!, 10], [full!, 1000]] as const) {
    await pool.query(
      `insert into visits (business_id, event_occurrence_id, person_id, state, registered_at)
       select $1, $2, person_id, 'registered', now() from unnest($3::bigint[]) as person_id`,
      [demo.businessId, occurrence, holders.slice(0, count)]
    )
  }
  await pool.query("analyze visits")
  const capacity = async (occurrence: number) => round((i) => book(demo, occurrence, bookers[i]!), Math.min(BOOKINGS, 500))
  const intoSmall = await capacity(small!)
  await pool.query(`delete from visits where business_id = $1 and event_occurrence_id = $2 and person_id = any($3)`, [demo.businessId, small, bookers])
  const intoFull = await capacity(full!)
  lines.push("capacity", roundLine("  into an occurrence of 10 visits", intoSmall), roundLine("  into an occurrence of 1,000 visits", intoFull))
  ratios.push(`ratio capacity_1000_vs_10 ${(intoFull.perSecond / intoSmall.perSecond).toFixed(3)}`)

  process.stdout.write([
    "",
    `bench:bookings — ${BOOKINGS} bookings per round, concurrency ${CONCURRENCY}, ${os.cpus().length} CPUs, load ${loadBefore.toFixed(2)} before`,
    ...lines,
    ...ratios,
    ""
  ].join("\n"))
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
