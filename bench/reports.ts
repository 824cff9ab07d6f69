import { DuckDBInstance } from "@duckdb/node-api"
import { Schema } from "effect"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as http from "node:http"
import * as path from "node:path"
import pg from "pg"
import { to as copyTo } from "pg-copy-streams"
import { pipeline } from "node:stream/promises"
import { resourceCatalog } from "../reports/catalog/resources.ts"
import { compile } from "../reports/compile.ts"
import { QueryAttributes } from "../reports/grammar.ts"
import { normalize } from "../reports/normalize.ts"
import { execute } from "../reports/run.ts"
import { readCurrent } from "../reports/sync/generations.ts"
import { DUCKDB_OPTIONS, syncReports } from "../reports/sync/sync.ts"
import { clientsTable, customFieldsTable } from "../reports/sync/tables/clients.ts"
import { enrollmentsTable } from "../reports/sync/tables/enrollments.ts"
import { eventOccurrenceStaffMembersTable } from "../reports/sync/tables/event-occurrence-staff-members.ts"
import { eventOccurrencesTable } from "../reports/sync/tables/event-occurrences.ts"
import { createTableSql } from "../reports/sync/tables/types.ts"
import type { EmbeddedServer } from "../src/platform/embedded-postgres.ts"
import { createToken } from "../test/support/factories.ts"
import { type Child, freePort, startBenchDatabase, startChild } from "./support/processes.ts"

/**
 * `npm run bench:reports`: the Reporting API at scale. Seeds BENCH_ENROLLMENTS (default
 * 5,000,000) enrollments over BENCH_BUSINESSES (default 4) businesses with `studio seed scale`,
 * then measures, in one run:
 *
 * 1. Full sync (PostgreSQL → a new DuckDB store file) against a baseline: a plain
 *    COPY-to-DuckDB of the same rows (the store's rows materialized in PostgreSQL tables
 *    first, untimed, then streamed out with COPY and loaded with DuckDB's read_csv).
 *    Target: the sync at least half as fast (ratio ≥ 0.5).
 * 2. A fixed set of queries on the largest business, median of BENCH_RUNS (default 7) after a
 *    warm-up: through our HTTP endpoint (the service in its own process), the same compiled
 *    SQL on DuckDB directly (raw), and the equivalent query on PostgreSQL over the Core API's
 *    tables. Targets: grouped queries ≥ 10× faster than PostgreSQL; the endpoint within 1.5×
 *    of raw DuckDB. Each query's PostgreSQL answer is checked to have as many rows as ours.
 */
const ENROLLMENTS = Number(process.env.BENCH_ENROLLMENTS ?? 5_000_000)
const BUSINESSES = Number(process.env.BENCH_BUSINESSES ?? 4)
const RUNS = Number(process.env.BENCH_RUNS ?? 7)
const BASE_DOMAIN = "localhost"

const root = path.resolve(import.meta.dirname, "..")
const benchDir = path.join(root, ".data/bench-reports")
const dataDir = path.join(benchDir, "postgres")
const reportsDir = path.join(benchDir, "reports")

const log = (message: string) => process.stderr.write(`${message}\n`)
const median = (values: ReadonlyArray<number>) => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}
const ms = (value: number) => `${value.toFixed(1)} ms`

/** The enrollments of one business as the Core API's tables hold them (visits, then waitlist entries still off the roster). */
const enrollmentsCte = `
  e as (
    select v.id as key, v.person_id, v.state, o.id as occurrence_id, o.start_at, o.time_zone
    from visits v join event_occurrences o on o.business_id = v.business_id and o.id = v.event_occurrence_id
    where v.business_id = $1
    union all
    select -w.id, w.person_id, case w.state when 'pending' then 'waiting' else w.state end, o.id, o.start_at, o.time_zone
    from waitlist_entries w join event_occurrences o on o.business_id = w.business_id and o.id = w.event_occurrence_id
    where w.business_id = $1 and w.state <> 'enrolled')`

interface BenchQuery {
  readonly name: string
  readonly resource: string
  readonly grouped: boolean
  readonly attributes: (now: Date) => unknown
  /** The same question on PostgreSQL, `$1` = business id, `$2` = now. */
  readonly postgres: string
}

const yearBefore = (now: Date) => new Date(now.getTime() - 365 * 86_400_000).toISOString()

const QUERIES: ReadonlyArray<BenchQuery> = [
  {
    name: "enrollments by month",
    resource: "enrollments",
    grouped: true,
    attributes: () => ({
      fields: ["enrollment_count", "completed_enrollment_count", "person_count"],
      group: "service_month_start_date",
      sort: ["group_label+"],
      page: { limit: 500 }
    }),
    postgres: `with ${enrollmentsCte}
      select date_trunc('month', start_at at time zone time_zone)::date as month, count(*), count(*) filter (where state = 'completed'),
             count(distinct person_id)
      from e where $2::timestamptz is not null group by 1 order by 1 limit 501`
  },
  {
    name: "enrollments by instructor",
    resource: "enrollments",
    grouped: true,
    attributes: () => ({
      fields: ["completed_enrollment_count", "noshowed_enrollment_count", "late_canceled_enrollment_count"],
      group: "instructor_names",
      sort: ["completed_enrollment_count-"]
    }),
    postgres: `with ${enrollmentsCte},
      instructors as (
        select os.event_occurrence_id as id, string_agg(p.first_name || ' ' || p.last_name, ', ' order by os.position, sm.id) as names
        from event_occurrence_staff_members os
        join staff_members sm on sm.business_id = os.business_id and sm.id = os.staff_member_id
        join people p on p.business_id = sm.business_id and p.id = sm.person_id
        where os.business_id = $1 group by 1)
      select i.names, count(*) filter (where e.state = 'completed') as completed, count(*) filter (where e.state = 'noshowed'),
             count(*) filter (where e.state = 'late_canceled')
      from e left join instructors i on i.id = e.occurrence_id where $2::timestamptz is not null
      group by 1 order by completed desc limit 101`
  },
  {
    name: "visits by weekday, last 12 months",
    resource: "enrollments",
    grouped: true,
    attributes: (now) => ({
      fields: ["visit_count", "completed_enrollment_count"],
      group: "service_day",
      filter: ["btw", "start_at", yearBefore(now), now.toISOString()]
    }),
    postgres: `with ${enrollmentsCte}
      select extract(dow from start_at at time zone time_zone) as day, count(*) filter (where key > 0), count(*) filter (where state = 'completed')
      from e where start_at between $2::timestamptz - interval '365 days' and $2::timestamptz
      group by 1 order by 1 limit 101`
  },
  {
    name: "occurrences by service",
    resource: "event_occurrences",
    grouped: true,
    attributes: () => ({
      fields: ["event_occurrence_count", "total_capacity", "total_visit_count", "total_completed_enrollment_count"],
      group: "service_name"
    }),
    postgres: `select s.name, count(*), sum(o.capacity), sum(vc.visits), sum(vc.completed)
      from event_occurrences o
      join services s on s.business_id = o.business_id and s.id = o.service_id
      left join lateral (
        select count(*) as visits, count(*) filter (where v.state = 'completed') as completed
        from visits v where v.business_id = o.business_id and v.event_occurrence_id = o.id) vc on true
      where o.business_id = $1 and $2::timestamptz is not null
      group by 1 order by 1 limit 101`
  },
  {
    name: "latest completed visits (detail page)",
    resource: "enrollments",
    grouped: false,
    attributes: () => ({
      fields: ["full_name", "service_name", "start_at", "state"],
      filter: ["eq", "state", "completed"],
      sort: ["start_at-"]
    }),
    postgres: `select p.first_name || ' ' || p.last_name, s.name, o.start_at, v.state
      from visits v
      join event_occurrences o on o.business_id = v.business_id and o.id = v.event_occurrence_id
      join services s on s.business_id = o.business_id and s.id = o.service_id
      join people p on p.business_id = v.business_id and p.id = v.person_id
      where v.business_id = $1 and v.state = 'completed' and $2::timestamptz is not null
      order by o.start_at desc, v.id desc limit 101`
  }
]

const post = (agent: http.Agent, port: number, token: string, host: string, urlPath: string, body: unknown) =>
  new Promise<{ status: number; json: any }>((resolve, reject) => {
    const payload = JSON.stringify(body)
    const request = http.request(
      {
        host: "127.0.0.1",
        port,
        path: urlPath,
        method: "POST",
        agent,
        headers: {
          host,
          authorization: `Bearer ${token}`,
          "content-type": "application/vnd.api+json",
          "content-length": Buffer.byteLength(payload)
        }
      },
      (response) => {
        const chunks: Array<Buffer> = []
        response.on("data", (chunk: Buffer) => chunks.push(chunk))
        response.on("end", () => resolve({ status: response.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString("utf8")) }))
      }
    )
    request.on("error", reject)
    request.end(payload)
  })

const decodeAttributes = Schema.decodeUnknownSync(QueryAttributes)

let postgres: EmbeddedServer | undefined
const children: Array<Child> = []

const main = async () => {
  fs.rmSync(benchDir, { recursive: true, force: true })
  log(`PostgreSQL: starting (${dataDir})`)
  const { databaseUrl } = await startBenchDatabase(dataDir, (server) => (postgres = server))

  log(`seeding ${ENROLLMENTS.toLocaleString("en")} enrollments over ${BUSINESSES} businesses (studio seed scale)`)
  const seeded = spawnSync(process.execPath, [path.join(root, "src/cli.ts"), "seed", "scale", "--enrollments", String(ENROLLMENTS), "--businesses", String(BUSINESSES)], {
    env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: "error" },
    encoding: "utf8",
    maxBuffer: 10_000_000
  })
  if (seeded.status !== 0) throw new Error(`seed scale failed:\n${seeded.stderr}`)
  const seed = JSON.parse(seeded.stdout) as { visits: number; waitlist_entries: number; event_occurrences: number; clients: number; seconds: number }
  log(`seeded ${(seed.visits + seed.waitlist_entries).toLocaleString("en")} enrollments in ${seed.seconds} s`)

  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 })
  pool.on("error", () => {})
  await pool.query("analyze")

  // 1. Full sync against a plain COPY-to-DuckDB of the same rows.
  log("full sync")
  const sync = await syncReports({ databaseUrl, dir: reportsDir, mode: "full" })
  const syncMs = sync.duration_ms
  const tables = [clientsTable, customFieldsTable, eventOccurrencesTable, eventOccurrenceStaffMembersTable, enrollmentsTable]
  for (const table of tables) await pool.query(`create table bench_rows_${table.name} as ${table.select("true")}`)
  const copyStarted = performance.now()
  const baselineFile = path.join(benchDir, "baseline.duckdb")
  const instance = await DuckDBInstance.create(baselineFile, DUCKDB_OPTIONS)
  const connection = await instance.connect()
  const client = await pool.connect()
  for (const table of tables) {
    const file = path.join(benchDir, `${table.name}.csv`)
    await pipeline(client.query(copyTo(`COPY bench_rows_${table.name} TO STDOUT (FORMAT csv)`)), fs.createWriteStream(file))
    await connection.run(createTableSql(table))
    const columns = table.columns.map(([name, type]) => `'${name}': '${type.replace(/ NOT NULL$/, "")}'`).join(", ")
    await connection.run(
      `INSERT INTO ${table.name} SELECT * FROM read_csv('${file}', header = false, auto_detect = false, allow_quoted_nulls = false, columns = {${columns}})`
    )
    fs.rmSync(file)
  }
  await connection.run("CHECKPOINT")
  const copyMs = performance.now() - copyStarted
  client.release()
  connection.closeSync()
  instance.closeSync()
  for (const table of tables) await pool.query(`drop table bench_rows_${table.name}`)

  // 2. Queries on the largest business.
  const { rows: [largest] } = await pool.query(
    `select b.id, b.subdomain, (select count(*) from visits v where v.business_id = b.id)::int as visits,
            (select p.account_id from staff_members s join people p on p.business_id = s.business_id and p.id = s.person_id
             where s.business_id = b.id and s.role = 'primary_owner') as account_id
     from businesses b where b.subdomain like 'scale-%' order by 3 desc limit 1`
  )
  const businessId = Number(largest.id)
  const token = await createToken(pool, Number(largest.account_id), businessId)
  const host = `${largest.subdomain}.${BASE_DOMAIN}`
  const servicePort = await freePort(40000, 49999)
  const service = await startChild("service", path.join(root, "bench/support/serve.ts"), {
    DATABASE_URL: databaseUrl,
    DATA_DIR: benchDir,
    PORT: String(servicePort),
    BASE_DOMAIN,
    LOG_LEVEL: "none",
    REPORT_RATE_LIMIT: "100000000"
  })
  children.push(service)
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
  const store = await DuckDBInstance.create(path.join(reportsDir, readCurrent(reportsDir)!.file), { ...DUCKDB_OPTIONS, access_mode: "READ_ONLY" })
  const raw = await store.connect()
  const now = new Date()

  const results: Array<{ name: string; grouped: boolean; http: number; raw: number; postgres: number; rows: number }> = []
  for (const query of QUERIES) {
    const attributes = query.attributes(now)
    const catalog = resourceCatalog(query.resource)
    if (!catalog) throw new Error(`${query.resource} is not a report resource`)
    const normalized = normalize(decodeAttributes(attributes), catalog, { customFields: [], franchiseHolding: false })
    if (normalized._tag === "Invalid") throw new Error(`${query.name}: ${JSON.stringify(normalized.problems)}`)
    const compiled = compile(normalized.query, { scope: [businessId], now })
    const timings = { http: [] as Array<number>, raw: [] as Array<number>, postgres: [] as Array<number> }
    let ours = 0
    let theirs = 0
    for (let run = 0; run <= RUNS; run++) {
      let started = performance.now()
      const response = await post(agent, service.port, token, host, `/desk/api/v3/reports/${query.resource}/queries`, {
        data: { type: "queries", attributes }
      })
      const httpMs = performance.now() - started
      if (response.status !== 200) throw new Error(`${query.name}: ${response.status} ${JSON.stringify(response.json)}`)
      ours = response.json.data.attributes.rows.length
      started = performance.now()
      await execute(raw, compiled.page)
      const rawMs = performance.now() - started
      started = performance.now()
      theirs = (await pool.query(query.postgres, [businessId, now])).rowCount ?? 0
      const postgresMs = performance.now() - started
      if (run === 0) continue // warm-up
      timings.http.push(httpMs)
      timings.raw.push(rawMs)
      timings.postgres.push(postgresMs)
    }
    // PostgreSQL's answer may carry one row more (limit + 1, as our page query does).
    if (Math.min(theirs, 100) !== Math.min(ours, 100) && !(theirs === ours + 1)) {
      throw new Error(`${query.name}: PostgreSQL answered ${theirs} rows, the endpoint ${ours}`)
    }
    results.push({ name: query.name, grouped: query.grouped, http: median(timings.http), raw: median(timings.raw), postgres: median(timings.postgres), rows: ours })
  }
  raw.closeSync()
  store.closeSync()
  agent.destroy()

  const report = {
    enrollments: seed.visits + seed.waitlist_entries,
    businesses: BUSINESSES,
    largest_business: { subdomain: largest.subdomain, visits: largest.visits },
    seed_seconds: seed.seconds,
    sync: { full_ms: syncMs, copy_baseline_ms: Math.round(copyMs), ratio: Math.round((copyMs / syncMs) * 100) / 100, target: 0.5 },
    queries: results.map((r) => ({
      name: r.name,
      rows: r.rows,
      endpoint_ms: Math.round(r.http * 10) / 10,
      raw_duckdb_ms: Math.round(r.raw * 10) / 10,
      postgres_ms: Math.round(r.postgres * 10) / 10,
      endpoint_vs_raw: Math.round((r.http / r.raw) * 100) / 100,
      postgres_vs_endpoint: Math.round((r.postgres / r.http) * 10) / 10
    }))
  }
  log("")
  log(`full sync ${(syncMs / 1000).toFixed(1)} s; plain COPY-to-DuckDB of the same rows ${(copyMs / 1000).toFixed(1)} s: ratio ${report.sync.ratio} (target ≥ 0.5)`)
  for (const r of results) {
    log(
      `${r.name.padEnd(40)} endpoint ${ms(r.http).padStart(10)}  raw DuckDB ${ms(r.raw).padStart(10)}  PostgreSQL ${ms(r.postgres).padStart(10)}  ` +
        `endpoint/raw ${(r.http / r.raw).toFixed(2)}  PostgreSQL/endpoint ${(r.postgres / r.http).toFixed(1)}×`
    )
  }
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`)
  await pool.end()
}

const shutdown = async () => {
  for (const child of children) await child.stop().catch(() => {})
  await postgres?.stop().catch(() => {})
}

main()
  .then(shutdown)
  .catch(async (error) => {
    log(error instanceof Error ? (error.stack ?? error.message) : String(error))
    await shutdown()
    process.exitCode = 1
  })
