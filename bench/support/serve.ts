import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Effect, Layer, Option } from "effect"
import { HttpServer } from "effect/http"
import * as path from "node:path"
import { HttpServerLive } from "../../src/app/http.ts"
import { BaseLive } from "../../src/app/layers.ts"
import { AppConfig, readAppConfig } from "../../src/platform/config.ts"
import { MetricsListenerLive } from "../../src/app/metrics-server.ts"

/**
 * The service as `npm start` builds it (the same HTTP layer and layer graph: token auth, host
 * tenancy, rate limits, locale; the metrics listener with METRICS_PORT, OTLP export with
 * OTEL_EXPORTER_OTLP_ENDPOINT), without the demo seed and the worker, for the benchmark.
 * Settings are the service's own (environment and defaults) with the benchmark's on top;
 * rate limits are so high that every request is counted and none is refused.
 * Prints `ready <port>` once it accepts connections; SIGTERM closes it.
 */
const databaseUrl = process.env.DATABASE_URL
if (!databaseUrl) throw new Error("DATABASE_URL is required")

const ConfigLive = Layer.effect(AppConfig)(
  Effect.map(Effect.orDie(readAppConfig), (defaults) =>
    AppConfig.of({
      ...defaults,
      port: Number(process.env.PORT ?? 0),
      host: "127.0.0.1",
      baseDomain: process.env.BASE_DOMAIN ?? "localhost",
      databaseUrl: Option.some(databaseUrl),
      dataDir: path.resolve(process.env.DATA_DIR ?? ".data/bench"),
      rateLimitPerToken: 10_000_000,
      rateLimitPerIp: 10_000_000,
      rateLimitWindowSeconds: 60,
      logLevel: process.env.LOG_LEVEL ?? "none"
    }))
)

// The metrics listener as `studio serve` adds it: nothing unless METRICS_PORT is set (bench:api's metrics target).
const ServiceLive = Layer.merge(HttpServerLive, MetricsListenerLive).pipe(Layer.provideMerge(BaseLive(ConfigLive)))

const program = Effect.gen(function* () {
  const server = yield* HttpServer.HttpServer
  const port = "port" in server.address ? server.address.port : 0
  process.stdout.write(`ready ${port}\n`)
  return yield* Effect.never
})

NodeRuntime.runMain(Effect.provide(program, ServiceLive))
