import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Context, Duration, Effect, Layer, Metric } from "effect"
import { HttpRouter, HttpServer, HttpServerResponse } from "effect/http"
import { PrometheusMetrics } from "effect/observability"
import { SqlClient } from "effect/sql"
import { JOB_STATES, countByTask } from "../platform/jobs-admin.ts"
import * as fs from "node:fs"
import { createServer } from "node:http"
import * as path from "node:path"
import { readCurrent } from "../../reports/sync/generations.ts"
import { reportsDir } from "../../reports/store.ts"
import { processSlot } from "../platform/cluster.ts"
import { AppConfig, type AppConfigShape } from "../platform/config.ts"
import { processMetrics, runSamplers } from "../platform/metrics/process.ts"

/**
 * The metrics listener: `GET /metrics` in Prometheus text on METRICS_PORT (METRICS_HOST,
 * 127.0.0.1 by default), a listener of its own so the public API port never serves it. Unset
 * METRICS_PORT: no listener. Each scrape first reads what is read at scrape time (the process,
 * graphile-worker's tables, the webhook log, the report store), so every process reports the
 * same job and delivery numbers, then renders Effect's Metric registry.
 */
export class MetricsListener extends Context.Service<MetricsListener, {
  /** The port it listens on; undefined when METRICS_PORT is unset. */
  readonly port: number | undefined
}>()("studio/MetricsListener") {}

const gauge = (name: string, description: string, attributes?: Record<string, string>) =>
  Metric.gauge(name, attributes === undefined ? { description } : { description, attributes })

const DELIVERY_STATUSES = ["pending", "succeeded", "failed", "cancelled"] as const

/**
 * Jobs by task and state, from graphile-worker's tables: every task a worker ever registered,
 * zeros included. The states and their rule are `studio jobs`'s (src/platform/jobs-admin.ts), so
 * the console and the metrics always show the same numbers.
 */
const collectJobs = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const tasks = yield* sql<{ task: string }>`select identifier as task from graphile_worker._private_tasks`
  const counts = new Map((yield* countByTask).map((row) => [`${row.task}\u0000${row.state}`, row.n]))
  for (const { task } of tasks) {
    for (const state of JOB_STATES) {
      yield* Metric.update(gauge("studio_jobs", "Jobs in graphile-worker's queue, by task and state", { task, state }), counts.get(`${task}\u0000${state}`) ?? 0)
    }
  }
})

/** Webhook deliveries in the log (kept 30 days) by status, and the oldest undelivered event's age. */
const collectWebhooks = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ status: string; n: string }>`select status, count(*) as n from webhook_deliveries group by status`
  const counts = new Map(rows.map((row) => [row.status, Number(row.n)]))
  for (const status of DELIVERY_STATUSES) {
    yield* Metric.update(
      gauge("studio_webhook_deliveries", "Webhook deliveries in the delivery log (kept 30 days), by outcome", { outcome: status }),
      counts.get(status) ?? 0
    )
  }
  const [oldest] = yield* sql<{ age: number | null }>`
    select extract(epoch from now() - min(e.created_at))::float8 as age
    from webhook_deliveries d
    join webhook_events e on e.business_id = d.business_id and e.id = d.event_id
    where d.status = 'pending'`
  yield* Metric.update(
    gauge("studio_webhook_oldest_pending_event_age_seconds", "Age of the oldest event with a delivery still pending (0: none)"),
    Math.max(0, oldest?.age ?? 0)
  )
})

/**
 * The service's PostgreSQL connections as the server sees them (every process's pool and
 * listener, by `application_name`), by state; `waiting`: those waiting for a lock. The Effect
 * SQL pool's own counts are not reachable (docs/decisions.md).
 */
const collectConnections = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ active: string; idle: string; idle_in_transaction: string; waiting: string }>`
    select count(*) filter (where state = 'active') as active,
      count(*) filter (where state = 'idle') as idle,
      count(*) filter (where state like 'idle in transaction%') as idle_in_transaction,
      count(*) filter (where wait_event_type = 'Lock') as waiting
    from pg_stat_activity
    where datname = current_database() and application_name like 'studio-service%' and pid <> pg_backend_pid()`
  const row = rows[0]
  for (const state of ["active", "idle", "idle_in_transaction", "waiting"] as const) {
    yield* Metric.update(
      gauge("studio_db_connections", "The service's PostgreSQL connections (all its processes), by state; waiting: on a lock", { state }),
      Number(row?.[state] ?? 0)
    )
  }
})

/** The report store's published generation: its number and age (NaN before the first sync). */
const collectReportStore = (config: AppConfigShape) =>
  Effect.sync(() => {
    const dir = reportsDir(config)
    const current = readCurrent(dir)
    let age = Number.NaN
    if (current !== undefined) {
      try {
        age = Math.max(0, (Date.now() - fs.statSync(path.join(dir, current.file)).mtimeMs) / 1000)
      } catch {
        // Deleted by a sync between reading the pointer and the file: the next scrape sees the new one.
      }
    }
    return { generation: current?.generation ?? 0, age }
  }).pipe(
    Effect.flatMap(({ age, generation }) =>
      Effect.all([
        Metric.update(gauge("studio_report_store_generation", "The published report store generation (0: none yet)"), generation),
        Metric.update(gauge("studio_report_store_generation_age_seconds", "Age of the published report store generation"), age)
      ]))
  )

/** What a scrape reads from PostgreSQL: bounded, and a failure leaves the previous values (logged). */
const collectDatabase = Effect.all([collectJobs, collectWebhooks, collectConnections], { discard: true }).pipe(
  Effect.timeout(Duration.seconds(5)),
  Effect.catchCause((cause) => Effect.logWarning("metrics: reading the job and webhook tables failed", cause))
)

const metricsRoute = Layer.unwrap(
  Effect.gen(function* () {
    const config = yield* AppConfig
    const sql = yield* SqlClient.SqlClient
    const processes = processMetrics()
    const collect = Effect.all([collectDatabase, collectReportStore(config)], { discard: true, concurrency: 2 }).pipe(
      Effect.provideService(SqlClient.SqlClient, sql)
    )
    return HttpRouter.add(
      "GET",
      "/metrics",
      Effect.gen(function* () {
        processes.sample()
        runSamplers()
        yield* collect
        return HttpServerResponse.text(yield* PrometheusMetrics.format(), { contentType: "text/plain; version=0.0.4; charset=utf-8" })
      })
    )
  })
)

/**
 * The metrics listener with `routes` beside `/metrics` (the worker's probes, say). With several
 * HTTP processes on one API port, process i listens on METRICS_PORT + i.
 */
export const metricsListenerWith = <E, R>(routes: Layer.Layer<never, E, R>) =>
  Layer.unwrap(
    AppConfig.useSync((config) => {
      if (config.metricsPort === undefined) return Layer.succeed(MetricsListener)({ port: undefined })
      const port = config.metricsPort === 0 ? 0 : config.metricsPort + processSlot()
      const server = NodeHttpServer.layer(() => createServer(), { port, host: config.metricsHost ?? "127.0.0.1" })
      const address = Layer.effect(MetricsListener)(
        HttpServer.HttpServer.use((server) => Effect.succeed({ port: "port" in server.address ? server.address.port : undefined }))
      )
      return Layer.mergeAll(
        HttpRouter.serve(Layer.mergeAll(metricsRoute, routes), { disableLogger: true, disableListenLog: true }),
        address
      ).pipe(Layer.provide(server))
    })
  )

export const MetricsListenerLive = metricsListenerWith(Layer.empty)
