import { Metric } from "effect"
import { monitorEventLoopDelay, type PerformanceEntry, PerformanceObserver } from "node:perf_hooks"
import { NO_CONTEXT } from "./context.ts"

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
