import { Schema } from "effect"
import * as fs from "node:fs"
import * as http from "node:http"
import * as path from "node:path"
import pg from "pg"
import { resourceCatalog } from "../reports/catalog/resources.ts"
import { compileExport } from "../reports/compile.ts"
import { QueryAttributes } from "../reports/grammar.ts"
import { normalize } from "../reports/normalize.ts"
import { openStoreFile } from "../reports/store-files.ts"
import { withLiterals } from "../reports/store-connection.ts"
import { readCurrent } from "../reports/sync/generations.ts"
import { syncReports } from "../reports/sync/sync.ts"
import type { EmbeddedServer } from "../src/platform/embedded-postgres.ts"
import { createToken } from "../test/support/factories.ts"
import { type Child, freePort, memoryOf, startBenchDatabase, startChild } from "./support/processes.ts"
import { runBench } from "./support/run.ts"
import { seedScaleBusiness } from "./support/tenants.ts"

/**
 * `npm run bench:export`: CSV export through the Reporting API against DuckDB's own COPY.
 * Seeds BENCH_ENROLLMENTS (default 1,000,000) enrollments in one business with `studio seed
 * scale`, syncs the report store, then in one run:
 *
 * 1. DuckDB's `COPY (<the compiled export SQL>) TO '<file>.csv'` on the same store file, opened
 *    as the endpoint opens it (the baseline);
 * 2. the same result as CSV through `POST /desk/api/v3/reports/enrollments/queries` with
 *    `Accept: text/csv` (the service in its own process), read to the end by this process,
 *    while the service's resident memory (VmRSS) is sampled every 20 ms.
 *
 * Targets: export rows per second ≥ 0.5× COPY's; the service's RSS growth during the export
 * ≤ 64 MiB. The export reads its result in ranges of its order (reports/export-ranges.ts). Both sides are run BENCH_RUNS (default 3) times after one warm-up; the medians count.
 */
const ENROLLMENTS = Number(process.env.BENCH_ENROLLMENTS ?? 1_000_000)
const RUNS = Number(process.env.BENCH_RUNS ?? 3)
/** `BENCH_REUSE=1`: keep the database and store a previous run built. */
const REUSE = process.env.BENCH_REUSE === "1"
const BASE_DOMAIN = "localhost"

const root = path.resolve(import.meta.dirname, "..")
const benchDir = path.join(root, ".data/bench-export")
const dataDir = path.join(benchDir, "postgres")
const reportsDir = path.join(benchDir, "reports")

const log = (message: string) => process.stderr.write(`${message}\n`)
const median = (values: ReadonlyArray<number>) => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

/** The exported query: every enrollment with the columns a spreadsheet of them usually has. */
const ATTRIBUTES = {
  fields: [
    "full_name", "email", "service_name", "service_date", "start_at", "state", "is_paid", "paid_with_type",
    "estimated_amount", "registered_at", "service_location_name", "primary_staff_name", "visit_id"
  ],
  // BENCH_EXPORT_SORT: another sort key (`full_name+`), to see an order the store is not laid out in.
  sort: [process.env.BENCH_EXPORT_SORT ?? "start_at+"]
}

/** Streams the CSV export and counts its lines; samples the service's RSS meanwhile. */
const exportOnce = (port: number, token: string, host: string, pid: number) =>
  new Promise<{ ms: number; bytes: number; lines: number; rssGrowthMiB: number }>((resolve, reject) => {
    const payload = JSON.stringify({ data: { type: "queries", attributes: ATTRIBUTES } })
    const before = memoryOf(pid)?.currentMiB ?? NaN
    let peak = before
    const sampler = setInterval(() => {
      const now = memoryOf(pid)?.currentMiB
      if (now !== undefined && now > peak) peak = now
    }, 20)
    const started = performance.now()
    const request = http.request(
      {
        host: "127.0.0.1",
        port,
        path: "/desk/api/v3/reports/enrollments/queries",
        method: "POST",
        headers: {
          host,
          authorization: `Bearer ${token}`,
          accept: "text/csv",
          "content-type": "application/vnd.api+json",
          "content-length": Buffer.byteLength(payload)
        }
      },
      (response) => {
        if (response.statusCode !== 200) {
          clearInterval(sampler)
          reject(new Error(`export answered ${response.statusCode}`))
          return
        }
        let bytes = 0
        let lines = 0
        response.on("data", (chunk: Buffer) => {
          bytes += chunk.length
          for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines += 1
        })
        response.on("end", () => {
          clearInterval(sampler)
          resolve({ ms: performance.now() - started, bytes, lines, rssGrowthMiB: peak - before })
        })
        response.on("error", reject)
      }
    )
    request.on("error", reject)
    request.end(payload)
  })

let postgres: EmbeddedServer | undefined
const children: Array<Child> = []

const main = async () => {
  const reusing = REUSE && fs.existsSync(path.join(dataDir, "PG_VERSION")) && readCurrent(reportsDir) !== undefined
  if (!reusing) fs.rmSync(benchDir, { recursive: true, force: true })
  log(`PostgreSQL: starting (${dataDir})`)
  const { databaseUrl } = await startBenchDatabase(dataDir, (server) => (postgres = server))
  if (!reusing) {
    seedScaleBusiness(databaseUrl, ENROLLMENTS)
    log("full sync")
    await syncReports({ databaseUrl, dir: reportsDir, mode: "full" })
  }
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 })
  pool.on("error", () => {})
  const { rows: [business] } = await pool.query(
    `select b.id, b.subdomain, b.time_zone,
            (select p.account_id from staff_members s join people p on p.business_id = s.business_id and p.id = s.person_id
             where s.business_id = b.id and s.role = 'primary_owner') as account_id
     from businesses b where b.subdomain like 'scale-%' order by b.id limit 1`
  )
  const businessId = Number(business.id)
  const token = await createToken(pool, Number(business.account_id), businessId)
  const host = `${business.subdomain}.${BASE_DOMAIN}`

  // The compiled SQL the endpoint streams, for COPY.
  const normalized = normalize(Schema.decodeUnknownSync(QueryAttributes)(ATTRIBUTES), resourceCatalog("enrollments")!, { customFields: [], franchiseHolding: false })
  if (normalized._tag === "Invalid") throw new Error(JSON.stringify(normalized.problems))
  const compiled = compileExport(normalized.query, { scope: [businessId], now: new Date(), timeZone: String(business.time_zone) })
  // The rows in the order of the pages (compiled.order), as the export writes them.
  const sql = withLiterals({ sql: `SELECT * FROM (${compiled.sql}) e ORDER BY ${compiled.order}`, params: compiled.params })
  if (sql === undefined) throw new Error("the export statement cannot be written with literals")

  const storeFile = path.join(reportsDir, readCurrent(reportsDir)!.file)
  const copyFile = path.join(benchDir, "copy.csv")
  const copyOnce = async () => {
    // The reader's own limits, but allowed to write the baseline's file.
    const store = await openStoreFile(storeFile, undefined, [benchDir])
    const connection = await store.instance.connect()
    try {
      const started = performance.now()
      const reader = await connection.runAndReadAll(`COPY (${sql}) TO '${copyFile}' (FORMAT csv, HEADER true)`)
      const ms = performance.now() - started
      return { ms, rows: Number(reader.getRows()[0]?.[0] ?? 0) }
    } finally {
      connection.closeSync()
      store.quick.closeSync()
      store.instance.closeSync()
      fs.rmSync(copyFile, { force: true })
    }
  }

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
  const pid = service.process.pid!

  log("warm-up: one COPY, one export")
  const copyRows = (await copyOnce()).rows
  const warm = await exportOnce(service.port, token, host, pid)
  if (warm.lines !== copyRows + 1) throw new Error(`the export has ${warm.lines} lines, COPY ${copyRows} rows + a header`)

  const copies: Array<number> = []
  const exports: Array<number> = []
  const growths: Array<number> = []
  let bytes = 0
  for (let run = 0; run < RUNS; run++) {
    copies.push((await copyOnce()).ms)
    const answer = await exportOnce(service.port, token, host, pid)
    exports.push(answer.ms)
    growths.push(answer.rssGrowthMiB)
    bytes = answer.bytes
    log(`run ${run + 1}: COPY ${copies[run]!.toFixed(0)} ms, export ${answer.ms.toFixed(0)} ms, RSS growth ${answer.rssGrowthMiB.toFixed(1)} MiB`)
  }
  const copyMs = median(copies)
  const exportMs = median(exports)
  const copyRate = copyRows / (copyMs / 1000)
  const exportRate = copyRows / (exportMs / 1000)
  const ratio = Math.round((exportRate / copyRate) * 100) / 100
  const growth = Math.round(Math.max(...growths) * 10) / 10
  const met = (ok: boolean) => (ok ? "met" : "NOT met")
  log("")
  log(`rows ${copyRows.toLocaleString("en")}, CSV ${(bytes / 1024 / 1024).toFixed(1)} MiB`)
  log(`COPY ${copyMs.toFixed(0)} ms (${Math.round(copyRate).toLocaleString("en")} rows/s); export ${exportMs.toFixed(0)} ms (${Math.round(exportRate).toLocaleString("en")} rows/s)`)
  log(`export/COPY ${ratio} (target ≥ 0.5: ${met(ratio >= 0.5)}); RSS growth ${growth} MiB (target ≤ 64: ${met(growth <= 64)})`)
  process.stdout.write(`ratio export_vs_copy ${ratio}\nrss_growth_mib ${growth}\n`)
  await pool.end()
}

runBench(main, () => ({ children, postgres }))
