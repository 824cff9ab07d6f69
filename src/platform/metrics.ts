import { Context, Metric } from "effect"
import { monitorEventLoopDelay, type PerformanceEntry, PerformanceObserver } from "node:perf_hooks"

/**
 * The service's metrics, in Effect's own Metric registry (rendered by `PrometheusMetrics` on the
 * metrics listener, src/platform/metrics-server.ts). Named by Prometheus conventions: `studio_`
 * for the service's own, units in the name, `_total` counters, durations in seconds.
 *
 * Updates on hot paths go through `updateUnsafe` with the empty context: the default registry
 * and no contextual attributes, the same registry `PrometheusMetrics.format()` reads. Label sets
 * are metric values built once and cached, so a request costs two map lookups and two updates.
 */
const NO_CONTEXT = Context.empty()

/** Latency buckets in seconds: 5 ms to 10 s. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

/** The label of a request that matched no route (refused before routing, or an unknown path). */
export const UNMATCHED_ROUTE = "unmatched"

const STATUS_CLASSES = ["1xx", "2xx", "3xx", "4xx", "5xx"] as const
const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"])
/** Routes beyond this many are counted as `unmatched`: a bound, should a route ever carry raw ids. */
const MAX_ROUTES = 2_000

/**
 * One (route, method, status class): its count and latency histogram in plain numbers, which the
 * registry reads at scrape time (`Metric.registerUnsafe`): a request pays a few increments, not
 * two registry lookups (≈ 0.3 µs through `updateUnsafe`).
 */
interface RequestSeries {
  count: number
  sum: number
  /** Per bucket of LATENCY_BUCKETS (not cumulative), the last one past the largest bound. */
  readonly buckets: Float64Array
}

const requestSeries = new Map<string, Map<string, Array<RequestSeries | undefined>>>()

const makeRequestSeries = (route: string, method: string, statusClass: string): RequestSeries => {
  const attributes = { route, method, status_class: statusClass }
  const series: RequestSeries = { count: 0, sum: 0, buckets: new Float64Array(LATENCY_BUCKETS.length + 1) }
  const ignore = () => {}
  Metric.registerUnsafe(
    Metric.counter("studio_http_requests_total", {
      description: "HTTP requests answered, by route template, method and status class",
      attributes,
      incremental: true
    }),
    NO_CONTEXT,
    { get: () => ({ count: series.count, incremental: true }), update: ignore, modify: ignore }
  )
  Metric.registerUnsafe(
    Metric.histogram("studio_http_request_duration_seconds", {
      description: "Time from a request's arrival to its answer, by route template, method and status class",
      attributes,
      boundaries: LATENCY_BUCKETS
    }),
    NO_CONTEXT,
    {
      get: () => {
        let cumulated = 0
        return {
          buckets: LATENCY_BUCKETS.map((boundary, i): [number, number] => [boundary, (cumulated += series.buckets[i]!)]),
          count: series.count,
          sum: series.sum,
          min: Number.NaN,
          max: Number.NaN
        }
      },
      update: ignore,
      modify: ignore
    }
  )
  return series
}

/** One request answered: `route` is its route template (`/api/v2/desk/visits/:id`) or UNMATCHED_ROUTE. */
export const recordRequest = (route: string | undefined, method: string, status: number, seconds: number): void => {
  let key = route ?? UNMATCHED_ROUTE
  let byMethod = requestSeries.get(key)
  if (byMethod === undefined) {
    if (requestSeries.size >= MAX_ROUTES) key = UNMATCHED_ROUTE
    byMethod = requestSeries.get(key)
    if (byMethod === undefined) requestSeries.set(key, (byMethod = new Map()))
  }
  const methodKey = METHODS.has(method) ? method : "other"
  let byClass = byMethod.get(methodKey)
  if (byClass === undefined) byMethod.set(methodKey, (byClass = []))
  const classIndex = status < 200 ? 0 : status < 300 ? 1 : status < 400 ? 2 : status < 500 ? 3 : 4
  let series = byClass[classIndex]
  if (series === undefined) byClass[classIndex] = series = makeRequestSeries(key, methodKey, STATUS_CLASSES[classIndex]!)
  series.count++
  series.sum += seconds
  let bucket = 0
  while (bucket < LATENCY_BUCKETS.length && seconds > LATENCY_BUCKETS[bucket]!) bucket++
  series.buckets[bucket]!++
}

const rateLimitRefusals = {
  ip: Metric.counter("studio_rate_limit_refusals_total", {
    description: "Requests refused with 429 by the API's rate limits, by the budget that ran out",
    attributes: { scope: "ip" },
    incremental: true
  }),
  token: Metric.counter("studio_rate_limit_refusals_total", {
    description: "Requests refused with 429 by the API's rate limits, by the budget that ran out",
    attributes: { scope: "token" },
    incremental: true
  })
}

// Both series from the start: a dashboard shows 0 rather than no data.
rateLimitRefusals.ip.valueUnsafe(NO_CONTEXT)
rateLimitRefusals.token.valueUnsafe(NO_CONTEXT)

/** A request refused by the per-IP or per-token budget. */
export const recordRateLimitRefusal = (scope: "ip" | "token"): void => rateLimitRefusals[scope].updateUnsafe(1, NO_CONTEXT)

/** Report exports by format and how they ended: `cancelled` when the client left and the query was interrupted. */
const EXPORT_OUTCOMES = ["completed", "cancelled"] as const
const reportExports = Object.fromEntries(
  (["csv", "parquet"] as const).map((format) => [
    format,
    Object.fromEntries(
      EXPORT_OUTCOMES.map((outcome) => [
        outcome,
        Metric.counter("studio_report_exports_total", {
          description: "Report exports (CSV, Parquet) by how they ended: cancelled when the client disconnected and the query was interrupted",
          attributes: { format, outcome },
          incremental: true
        })
      ])
    )
  ])
) as Record<"csv" | "parquet", Record<(typeof EXPORT_OUTCOMES)[number], Metric.Counter<number>>>
for (const byOutcome of Object.values(reportExports)) for (const counter of Object.values(byOutcome)) counter.valueUnsafe(NO_CONTEXT)

export const recordReportExport = (format: "csv" | "parquet", outcome: (typeof EXPORT_OUTCOMES)[number]): void =>
  reportExports[format][outcome].updateUnsafe(1, NO_CONTEXT)

// ---------------------------------------------------------------------------------------------
// The process: resident memory, event-loop delay and garbage collection

const residentMemory = Metric.gauge("process_resident_memory_bytes", { description: "Resident memory size in bytes" })
const heapUsed = Metric.gauge("nodejs_heap_used_bytes", { description: "V8 heap in use, in bytes" })
const eventLoopDelay = {
  p50: Metric.gauge("nodejs_eventloop_delay_p50_seconds", { description: "Median event-loop delay since the previous scrape" }),
  p99: Metric.gauge("nodejs_eventloop_delay_p99_seconds", { description: "99th percentile event-loop delay since the previous scrape" }),
  max: Metric.gauge("nodejs_eventloop_delay_max_seconds", { description: "Largest event-loop delay since the previous scrape" })
}
const GC_KINDS: Record<number, string> = { 1: "scavenge", 2: "mark_sweep_compact", 4: "incremental_marking", 8: "weak_callbacks" }
const gcDurations = new Map<string, Metric.Histogram<number>>()
const gcDuration = (kind: string) => {
  let metric = gcDurations.get(kind)
  if (metric === undefined) {
    gcDurations.set(
      kind,
      (metric = Metric.histogram("nodejs_gc_duration_seconds", {
        description: "Garbage collection pauses, by kind",
        attributes: { kind },
        boundaries: [0.001, 0.01, 0.1, 1, 2, 5]
      }))
    )
  }
  return metric
}

let processMonitor: { readonly sample: () => void } | undefined

/**
 * Starts watching the event loop and the garbage collector (once per process) and returns the
 * sampler a scrape calls: memory now, event-loop delay percentiles since the previous scrape.
 */
export const processMetrics = (): { readonly sample: () => void } => {
  if (processMonitor !== undefined) return processMonitor
  const delay = monitorEventLoopDelay({ resolution: 20 })
  delay.enable()
  const gc = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const detail = (entry as PerformanceEntry & { readonly detail?: { readonly kind?: number } }).detail
      const kind = GC_KINDS[detail?.kind ?? 0] ?? "other"
      gcDuration(kind).updateUnsafe(entry.duration / 1000, NO_CONTEXT)
    }
  })
  gc.observe({ entryTypes: ["gc"] })
  gcDuration("scavenge").valueUnsafe(NO_CONTEXT)
  gcDuration("mark_sweep_compact").valueUnsafe(NO_CONTEXT)
  processMonitor = {
    sample: () => {
      residentMemory.updateUnsafe(process.memoryUsage.rss(), NO_CONTEXT)
      heapUsed.updateUnsafe(process.memoryUsage().heapUsed, NO_CONTEXT)
      // The histogram is in nanoseconds; emptied so each scrape covers the time since the previous one.
      if (delay.count > 0) {
        eventLoopDelay.p50.updateUnsafe(delay.percentile(50) / 1e9, NO_CONTEXT)
        eventLoopDelay.p99.updateUnsafe(delay.percentile(99) / 1e9, NO_CONTEXT)
        eventLoopDelay.max.updateUnsafe(delay.max / 1e9, NO_CONTEXT)
      }
      delay.reset()
    }
  }
  return processMonitor
}

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
// Samplers a scrape runs first (values read, not counted: a pool's sizes, say)

const samplers = new Set<() => void>()

/** Runs `sample` at each scrape of this process until the returned function removes it. */
export const sampleAtScrape = (sample: () => void): (() => void) => {
  samplers.add(sample)
  sample()
  return () => void samplers.delete(sample)
}

export const runSamplers = (): void => {
  for (const sample of samplers) sample()
}

const workerPool = {
  inUse: Metric.gauge("studio_worker_db_pool_connections", {
    description: "Connections of the worker's PostgreSQL pool (graphile-worker's), by state",
    attributes: { state: "in_use" }
  }),
  idle: Metric.gauge("studio_worker_db_pool_connections", {
    description: "Connections of the worker's PostgreSQL pool (graphile-worker's), by state",
    attributes: { state: "idle" }
  }),
  waiting: Metric.gauge("studio_worker_db_pool_waiting_clients", {
    description: "Callers waiting for a connection of the worker's PostgreSQL pool"
  })
}

/** The worker's node-postgres pool (workers/runner.ts): its counts at each scrape. */
export const sampleWorkerPool = (pool: { readonly totalCount: number; readonly idleCount: number; readonly waitingCount: number }) =>
  sampleAtScrape(() => {
    workerPool.inUse.updateUnsafe(pool.totalCount - pool.idleCount, NO_CONTEXT)
    workerPool.idle.updateUnsafe(pool.idleCount, NO_CONTEXT)
    workerPool.waiting.updateUnsafe(pool.waitingCount, NO_CONTEXT)
  })

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
