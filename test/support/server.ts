import { Clock, Effect, Layer, ManagedRuntime, Option } from "effect"
import { HttpServer } from "effect/http"
import { HttpServerLive } from "../../src/app/http.ts"
import { BaseLive } from "../../src/app/layers.ts"
import { WorkerLive } from "../../workers/runner.ts"
import { MetricsListener, MetricsListenerLive } from "../../src/app/metrics-server.ts"
import { AppConfig, type AppConfigShape } from "../../src/platform/config.ts"
import * as fs from "node:fs"
import * as path from "node:path"
import pg from "pg"
import { createTestDatabase } from "./database.ts"
import { makeRequester } from "./http.ts"

export const TEST_BASE_DOMAIN = "studio.test"

let servers = 0

/**
 * The real service (the same layer graph as `npm start`) on an ephemeral port, on a fresh
 * database of its own. Rate limits are high unless a test sets them.
 */
/**
 * `worker: true` also runs the graphile-worker runner, for tests that need jobs to run;
 * `clock` replaces the wall clock of the server and its jobs (test/support/clock.ts);
 * `layer` overrides Context.Reference services (a stand-in for work not built yet).
 */
export type TestServerOptions = Partial<AppConfigShape> & {
  readonly worker?: boolean
  /** Also the metrics listener, on an ephemeral port (`metricsPort` in the answer). */
  readonly metrics?: boolean
  readonly clock?: Clock.Clock
  readonly layer?: Layer.Layer<never>
}

export const startTestServer = async (overrides: TestServerOptions = {}) => {
  const database = await createTestDatabase()
  return startTestServerOn(database.url, overrides, database.drop, database.pool)
}

/** The service on an existing database (one a CLI process wrote to, say). */
export const startTestServerOn = async (
  databaseUrl: string,
  overrides: TestServerOptions = {},
  drop: () => Promise<void> = async () => {},
  pool?: pg.Pool
) => {
  const database = { url: databaseUrl, drop, pool: pool ?? new pg.Pool({ connectionString: databaseUrl, max: 3 }) }
  const ownPool = pool === undefined
  const { worker = false, metrics = false, clock, layer, ...configOverrides } = overrides
  const ownDataDir = path.resolve(`.data/test/server-${process.pid}-${++servers}`)
  const config: AppConfigShape = {
    port: 0,
    host: "127.0.0.1",
    baseDomain: TEST_BASE_DOMAIN,
    databaseUrl: Option.some(database.url),
    // A folder of its own (report store, demo tokens): what one server leaves there (a report
    // generation hours old, say) is never another's, nor a later run's.
    dataDir: ownDataDir,
    embeddedPostgresPort: 0,
    rateLimitPerToken: 100_000,
    rateLimitPerIp: 100_000,
    rateLimitWindowSeconds: 60,
    logLevel: process.env.TEST_LOG_LEVEL ?? "none",
    workerConcurrency: 1,
    workerPollIntervalMs: 200,
    smtpUrl: Option.none(),
    mailFrom: "Studio Test <no-reply@studio.test>",
    // Webhook receivers in tests listen on loopback.
    webhooksAllowPrivateTargets: true,
    reportRateLimit: 100_000,
    reportRefreshSeconds: 30,
    ...(metrics ? { metricsPort: 0 } : {}),
    ...configOverrides
  }
  const server = worker ? Layer.merge(HttpServerLive, WorkerLive) : HttpServerLive
  // Without `metrics` the config names no METRICS_PORT: the listener layer starts nothing.
  const app = Layer.merge(server, MetricsListenerLive)
  let base = BaseLive(Layer.succeed(AppConfig)(config))
  if (clock) base = base.pipe(Layer.provideMerge(Layer.succeed(Clock.Clock)(clock)))
  if (layer) base = base.pipe(Layer.provideMerge(layer))
  const runtime = ManagedRuntime.make(app.pipe(Layer.provideMerge(base)))
  const address = await runtime.runPromise(HttpServer.HttpServer.use((server) => Effect.succeed(server.address)))
  const port = "port" in address ? address.port : 0
  const metricsPort = await runtime.runPromise(MetricsListener.use((listener) => Effect.succeed(listener.port)))
  return {
    port,
    metricsPort,
    config,
    pool: database.pool,
    databaseUrl: database.url,
    runtime,
    request: makeRequester(port, `demo.${TEST_BASE_DOMAIN}`),
    close: async () => {
      await runtime.dispose()
      fs.rmSync(ownDataDir, { recursive: true, force: true })
      if (ownPool) await database.pool.end()
      await database.drop()
    }
  }
}

export type TestServer = Awaited<ReturnType<typeof startTestServer>>
