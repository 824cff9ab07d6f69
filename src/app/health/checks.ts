import { Cause, Duration, Effect } from "effect"
import { SqlClient } from "effect/sql"
import { readCurrent } from "../../../reports/sync/generations.ts"
import { reportsDir } from "../../../reports/store.ts"
import { AppConfig } from "../../platform/config.ts"
import { listMigrations } from "../../platform/migrator.ts"
import { type Heartbeat, WorkerHeartbeat } from "../../platform/worker-heartbeat.ts"

/**
 * What `/readyz` checks, each answering its state and, when failing, why: the database answers;
 * its migrations are not behind this code; this process's worker loop (if it runs one) looks for
 * jobs; the report store's data is not older than its limit. Each check is bounded by
 * CHECK_TIMEOUT, so a probe never hangs on a database that does not answer.
 */

export interface Check {
  readonly name: "database" | "migrations" | "worker" | "reports"
  readonly state: "ok" | "failing"
  readonly reason?: string
  readonly detail?: string
}

const CHECK_TIMEOUT = Duration.seconds(2)

/** The worker loop is stuck when it has not looked for a job for this long (and runs none). */
export const workerTickLimitMs = (pollIntervalMs: number) => Math.max(10_000, 5 * pollIntervalMs)

/**
 * The report store's data is stale when its last sync read PostgreSQL longer ago than this: ten
 * refresh intervals, at least 5 minutes (a full rebuild of a large store takes minutes).
 */
export const reportAgeLimitSeconds = (refreshSeconds: number) => Math.max(300, 10 * refreshSeconds)

const ok = (name: Check["name"], detail?: string): Check => ({ name, state: "ok", ...(detail ? { detail } : {}) })
const failing = (name: Check["name"], reason: string): Check => ({ name, state: "failing", reason })

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error)).split("\n")[0]!

const bounded = <E>(name: Check["name"], what: string, check: Effect.Effect<Check, E>): Effect.Effect<Check> =>
  check.pipe(
    Effect.timeoutOrElse({ duration: CHECK_TIMEOUT, orElse: () => Effect.succeed(failing(name, `${what} did not answer within 2 s`)) }),
    // No log line: probes come every few seconds, and the answer already says why.
    Effect.catchCause((cause) => Effect.succeed(failing(name, `${what} failed: ${messageOf(Cause.squash(cause))}`)))
  )

/** The database answers `select 1` (bounded). */
const databaseCheck = (sql: SqlClient.SqlClient) =>
  bounded("database", "the database", sql`select 1`.pipe(Effect.as(ok("database")))).pipe(
    Effect.map((check) => (check.state === "failing" ? { ...check, reason: `database unreachable: ${check.reason}` } : check))
  )

/** This process's worker loop looks for jobs (or runs some), and its pool has not died. */
const workerCheck = (heartbeat: Heartbeat, pollIntervalMs: number) =>
  Effect.sync((): Check => {
    if (!heartbeat.started) return failing("worker", "the worker has not started")
    if (heartbeat.fatal !== undefined) return failing("worker", `the worker pool stopped: ${heartbeat.fatal}`)
    const limitMs = workerTickLimitMs(pollIntervalMs)
    const silentMs = Date.now() - heartbeat.lastTickAt
    if (heartbeat.jobsRunning > 0 || silentMs <= limitMs) return ok("worker", `${heartbeat.jobsRunning} jobs running`)
    return failing("worker", `the worker loop has not looked for jobs for ${Math.round(silentMs / 1000)} s (limit ${limitMs / 1000} s)`)
  })

/**
 * A `studio worker` process's own readiness (on its metrics listener): the database answers and
 * its worker loop ticks. Migrations and the report store are the API's concern.
 */
export const makeWorkerReadinessChecks = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const config = yield* AppConfig
  const heartbeat = yield* WorkerHeartbeat
  return Effect.all([databaseCheck(sql), workerCheck(heartbeat, config.workerPollIntervalMs)], { concurrency: "unbounded" }).pipe(
    Effect.withSpan("Health.workerReadiness")
  )
})

export const makeReadinessChecks = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const config = yield* AppConfig
  const heartbeat = yield* WorkerHeartbeat
  const startedAt = Date.now()
  const codeMigrations = listMigrations().map((migration) => migration.version)

  const database = databaseCheck(sql)

  const migrations = bounded(
    "migrations",
    "reading schema_migrations",
    Effect.gen(function* () {
      const rows = yield* sql<{ readonly version: string }>`select version from schema_migrations`
      const applied = new Set(rows.map((row) => row.version))
      const missing = codeMigrations.filter((version) => !applied.has(version))
      if (missing.length > 0) {
        return failing("migrations", `migrations behind the code: ${missing.join(", ")} not applied (run \`studio migrate\`)`)
      }
      // A database migrated by a newer release is not a reason to stop serving (forward-only, additive).
      const ahead = [...applied].filter((version) => !codeMigrations.includes(version))
      return ok("migrations", `${applied.size} applied${ahead.length > 0 ? `; ${ahead.length} newer than this code` : ""}`)
    })
  )

  const worker = workerCheck(heartbeat, config.workerPollIntervalMs)

  const reports = Effect.try({
    try: (): Check => {
      const limit = reportAgeLimitSeconds(config.reportRefreshSeconds)
      const current = readCurrent(reportsDir(config))
      if (current === undefined) {
        // A new installation has no store until its first sync: not a failure until the limit has passed.
        const up = Math.round((Date.now() - startedAt) / 1000)
        return up <= limit ? ok("reports", "no report generation yet") : failing("reports", `no report generation after ${up} s (limit ${limit} s)`)
      }
      const age = Math.max(0, Math.round((Date.now() - Date.parse(current.synced_at)) / 1000))
      return age <= limit
        ? ok("reports", `generation ${current.generation}, synced ${age} s ago`)
        : failing("reports", `the report generation ${current.generation} is ${age} s old (limit ${limit} s)`)
    },
    catch: (error) => error
  }).pipe(Effect.catch((error) => Effect.succeed(failing("reports", `cannot read the report store: ${messageOf(error)}`))))

  /** Every check that applies to this process, concurrently. */
  return Effect.suspend(() =>
    Effect.all([database, migrations, ...(heartbeat.started ? [worker] : []), reports], { concurrency: "unbounded" })
  ).pipe(Effect.withSpan("Health.readiness"))
})
