import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Effect, Layer, Option } from "effect"
import { HttpServer } from "effect/http"
import * as path from "node:path"
import { HttpServerLive } from "../../src/http.ts"
import { BaseLive } from "../../src/layers.ts"
import { AppConfig, readAppConfig } from "../../src/platform/config.ts"

/**
 * The service as `npm start` builds it (the same HTTP layer and layer graph: token auth, host
 * tenancy, rate limits, locale), without the demo seed and the worker, for the benchmark.
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

const ServiceLive = HttpServerLive.pipe(Layer.provideMerge(BaseLive(ConfigLive)))

const program = Effect.gen(function* () {
  const server = yield* HttpServer.HttpServer
  const port = "port" in server.address ? server.address.port : 0
  process.stdout.write(`ready ${port}\n`)
  return yield* Effect.never
})

NodeRuntime.runMain(Effect.provide(program, ServiceLive))
