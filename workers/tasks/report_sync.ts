import { Effect } from "effect"
import { ReportSyncJob } from "../../reports/jobs.ts"
import { runReportSync, scheduleNextRefresh } from "../../reports/sync/run.ts"

/**
 * Builds the report store: `full` rebuilds it into a new generation (nightly, and when a
 * query finds no store), `incremental` applies the rows changed since the last sync and
 * queues the next refresh. A failure fails the job, which graphile-worker retries.
 */
export const reportSyncTask = (payload: unknown) =>
  Effect.gen(function* () {
    const { mode = "incremental" } = yield* ReportSyncJob.decode(payload)
    yield* runReportSync(mode)
    if (mode === "incremental") yield* scheduleNextRefresh
  })
