import { Metric } from "effect"
import { NO_CONTEXT } from "./context.ts"

// ---------------------------------------------------------------------------------------------
// Jobs, from the worker processes (graphile-worker's events: workers/runner.ts)

interface JobSeries {
  readonly duration: Metric.Histogram<number>
  readonly succeeded: Metric.Counter<number>
  readonly failed: Metric.Counter<number>
  readonly permanentlyFailed: Metric.Counter<number>
}

const JOB_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300]
const jobSeries = new Map<string, JobSeries>()
const jobRuns = (task: string, outcome: string) =>
  Metric.counter("studio_job_runs_total", {
    description: "Job runs in this worker process, by task and outcome (failure: it threw and will be retried or failed for good)",
    attributes: { task, outcome },
    incremental: true
  })
const seriesOfJob = (task: string): JobSeries => {
  let series = jobSeries.get(task)
  if (series === undefined) {
    jobSeries.set(
      task,
      (series = {
        duration: Metric.histogram("studio_job_run_duration_seconds", {
          description: "Job run durations in this worker process, by task",
          attributes: { task },
          boundaries: JOB_BUCKETS
        }),
        succeeded: jobRuns(task, "success"),
        failed: jobRuns(task, "failure"),
        permanentlyFailed: Metric.counter("studio_job_permanent_failures_total", {
          description: "Jobs that ran out of attempts in this worker process, by task",
          attributes: { task },
          incremental: true
        })
      })
    )
  }
  return series
}

/** Every task's series from the worker's start, at zero: a task that never ran still shows. */
export const registerJobTasks = (tasks: ReadonlyArray<string>): void => {
  for (const task of tasks) {
    const series = seriesOfJob(task)
    series.duration.valueUnsafe(NO_CONTEXT)
    series.succeeded.valueUnsafe(NO_CONTEXT)
    series.failed.valueUnsafe(NO_CONTEXT)
    series.permanentlyFailed.valueUnsafe(NO_CONTEXT)
  }
}

/** A job run ended: `seconds` since graphile-worker handed it to the worker. */
export const recordJobRun = (task: string, outcome: "success" | "failure", seconds: number): void => {
  const series = seriesOfJob(task)
  series.duration.updateUnsafe(seconds, NO_CONTEXT)
  ;(outcome === "success" ? series.succeeded : series.failed).updateUnsafe(1, NO_CONTEXT)
}

export const recordJobPermanentFailure = (task: string): void => seriesOfJob(task).permanentlyFailed.updateUnsafe(1, NO_CONTEXT)

// ---------------------------------------------------------------------------------------------
// Report syncs (in the process that ran them: the worker, or `studio sync`)

const reportSync = (mode: string) => ({
  duration: Metric.gauge("studio_report_sync_last_duration_seconds", {
    description: "Duration of this process's last report sync, by mode",
    attributes: { mode }
  }),
  rows: Metric.gauge("studio_report_sync_last_rows", {
    description: "Rows written by this process's last report sync (the changed rows of an incremental one), by mode",
    attributes: { mode }
  }),
  at: Metric.gauge("studio_report_sync_last_timestamp_seconds", {
    description: "When this process's last report sync ended (Unix time), by mode",
    attributes: { mode }
  })
})
const reportSyncs = { full: reportSync("full"), incremental: reportSync("incremental") }

/** The worker's report sync series from its start (0 until its first sync). */
export const registerReportSync = (): void => {
  for (const series of Object.values(reportSyncs)) {
    series.duration.valueUnsafe(NO_CONTEXT)
    series.rows.valueUnsafe(NO_CONTEXT)
    series.at.valueUnsafe(NO_CONTEXT)
  }
}

export const recordReportSync = (mode: "full" | "incremental", seconds: number, rows: number): void => {
  const series = reportSyncs[mode]
  series.duration.updateUnsafe(seconds, NO_CONTEXT)
  series.rows.updateUnsafe(rows, NO_CONTEXT)
  series.at.updateUnsafe(Date.now() / 1000, NO_CONTEXT)
}

// ---------------------------------------------------------------------------------------------
// Webhook delivery attempts (in the worker that made them: src/webhooks/delivery.ts)

const WEBHOOK_OUTCOMES = ["succeeded", "retry", "gone", "failed"] as const
type WebhookOutcome = (typeof WEBHOOK_OUTCOMES)[number]
const webhookAttempts = Object.fromEntries(
  WEBHOOK_OUTCOMES.map((outcome) => [
    outcome,
    Metric.counter("studio_webhook_delivery_attempts_total", {
      description: "Webhook delivery attempts made by this worker, by outcome (retry: failed, another attempt scheduled; gone: 410, the subscription disabled; failed: out of attempts)",
      attributes: { outcome },
      incremental: true
    })
  ])
) as Record<WebhookOutcome, Metric.Counter<number>>
const webhookLatency = Metric.histogram("studio_webhook_delivery_duration_seconds", {
  description: "Time a receiver took to answer a delivery attempt (or to fail it)",
  boundaries: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15]
})

/** The worker's webhook series from its start, at zero. */
export const registerWebhookAttempts = (): void => {
  for (const counter of Object.values(webhookAttempts)) counter.valueUnsafe(NO_CONTEXT)
  webhookLatency.valueUnsafe(NO_CONTEXT)
}

export const recordWebhookAttempt = (outcome: WebhookOutcome, seconds: number): void => {
  webhookAttempts[outcome].updateUnsafe(1, NO_CONTEXT)
  webhookLatency.updateUnsafe(seconds, NO_CONTEXT)
}
