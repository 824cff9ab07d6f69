import { PgClient } from "@effect/sql-pg"
import { Effect, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { postgresCpuMs, postmasterPid } from "./support/cpu.ts"
import { startBenchDatabase } from "./support/processes.ts"
import { benchRun, log } from "./support/run.ts"

/**
 * `npm run bench:pg-transport`: what one round trip costs over the embedded cluster's Unix socket
 * against loopback TCP, through the service's own SQL client (@effect/sql-pg): BENCH_QUERIES
 * (default 20,000) one-row statements, BENCH_CONCURRENCY (default 8) at a time, on one cluster,
 * three rounds each, alternating (TCP, socket, ...). Per statement: the client's CPU (this process)
 * and PostgreSQL's (the postmaster's tree), from the kernel's counters.
 *
 * Last line: `ratio socket_vs_tcp <statements/s over the socket ÷ over TCP>`, the best round of each (the first warms the JIT).
 */
const QUERIES = Number(process.env.BENCH_QUERIES ?? 20_000)
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8)

const run = benchRun("bench-pg-transport")

interface Round {
  readonly perSecond: number
  readonly clientUs: number
  readonly postgresUs: number
}

const round = (url: string, postmaster: number): Promise<Round> =>
  Effect.runPromise(
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      // Every connection open and every statement prepared before the clock starts.
      yield* Effect.forEach(Array.from({ length: CONCURRENCY * 4 }, (_, i) => i), (i) => sql`select ${i}::int as n`, { concurrency: CONCURRENCY })
      const cpuBefore = process.cpuUsage()
      const postgresBefore = postgresCpuMs(postmaster)
      const started = performance.now()
      yield* Effect.forEach(Array.from({ length: QUERIES }, (_, i) => i), (i) => sql`select ${i}::int as n`, { concurrency: CONCURRENCY, discard: true })
      const seconds = (performance.now() - started) / 1000
      const cpu = process.cpuUsage(cpuBefore)
      return {
        perSecond: QUERIES / seconds,
        clientUs: (cpu.user + cpu.system) / QUERIES,
        postgresUs: ((postgresCpuMs(postmaster) - postgresBefore) * 1000) / QUERIES
      }
    }).pipe(
      Effect.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: CONCURRENCY })),
      Effect.scoped
    )
  )

const main = async () => {
  const { databaseUrl } = await startBenchDatabase(run.dataDir, (started) => (run.postgres = started))
  const overSocket = new URL(databaseUrl)
  if (!overSocket.searchParams.has("host")) throw new Error(`the cluster has no socket (its folder's path is too long?): ${run.dataDir}`)
  const overTcp = new URL(databaseUrl)
  overTcp.searchParams.delete("host")
  const postmaster = postmasterPid(run.dataDir)
  if (postmaster === undefined) throw new Error("no postmaster.pid")
  const rounds: Record<"tcp" | "socket", Array<Round>> = { tcp: [], socket: [] }
  for (let i = 0; i < 3; i++) {
    for (const [name, url] of [["tcp", overTcp], ["socket", overSocket]] as const) {
      const measured = await round(url.toString(), postmaster)
      rounds[name].push(measured)
      log(`  ${name.padEnd(6)} ${measured.perSecond.toFixed(0).padStart(6)}/s  client ${measured.clientUs.toFixed(1)} µs  PostgreSQL ${measured.postgresUs.toFixed(1)} µs per statement`)
    }
  }
  const best = (name: "tcp" | "socket") => rounds[name].reduce((a, b) => (b.perSecond > a.perSecond ? b : a))
  const tcp = best("tcp")
  const socket = best("socket")
  console.log(`bench:pg-transport — ${QUERIES} statements per round, ${CONCURRENCY} at a time, the best of three rounds`)
  for (const [name, r] of [["loopback TCP", tcp], ["Unix socket", socket]] as const) {
    console.log(`  ${name.padEnd(12)} ${r.perSecond.toFixed(0).padStart(6)}/s  client ${r.clientUs.toFixed(1)} µs  PostgreSQL ${r.postgresUs.toFixed(1)} µs per statement`)
  }
  console.log(`ratio socket_vs_tcp ${(socket.perSecond / tcp.perSecond).toFixed(3)}`)
}

main()
  .then(run.cleanUp)
  .catch(async (error) => {
    log(String(error instanceof Error ? error.stack : error))
    await run.cleanUp()
    process.exit(1)
  })
