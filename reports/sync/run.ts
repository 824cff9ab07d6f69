import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { AppConfig } from "../../src/platform/config.ts"
import { recordReportSync } from "../../src/platform/metrics/jobs.ts"
import { ReportSyncJob } from "../jobs.ts"
import { DatabaseUrl } from "../../src/platform/database.ts"
import { reportsDir } from "../store.ts"
import { type SyncMode, syncReports } from "./sync.ts"

/** A sync of the report store on the service's configuration (worker task and CLI). */
export const runReportSync = Effect.fn("Reports.sync")(function* (mode: SyncMode) {
  const config = yield* AppConfig
  const databaseUrl = yield* DatabaseUrl
  const summary = yield* Effect.tryPromise(() => syncReports({ databaseUrl, dir: reportsDir(config), mode }))
  recordReportSync(mode, summary.duration_ms / 1000, Object.values(summary.rows).reduce((sum, n) => sum + n, 0))
  yield* Effect.logInfo("report store synced").pipe(
    Effect.annotateLogs({
      mode,
      outcome: summary.outcome,
      generation: summary.generation,
      rows: summary.rows,
      duration_ms: summary.duration_ms
    })
  )
  return summary
})

/**
 * Keeps reports within a minute of the Core API: after each incremental refresh the next is
 * queued `reportRefreshSeconds` later (the crontab adds one every minute as well, which
 * restarts the chain should a job be lost). The job key keeps one pending refresh at most.
 */
export const scheduleNextRefresh = Effect.gen(function* () {
  const config = yield* AppConfig
  const sql = yield* SqlClient.SqlClient
  yield* sql`select (graphile_worker.add_job(
      ${ReportSyncJob.name}::text, '{"mode":"incremental"}'::json,
      queue_name => 'reports',
      run_at => now() + make_interval(secs => ${config.reportRefreshSeconds}),
      job_key => 'report_sync_incremental', job_key_mode => 'replace'
    )).id`.pipe(Effect.orDie)
})
