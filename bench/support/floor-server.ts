import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Effect, Layer } from "effect"
import { HttpRouter, HttpServer } from "effect/http"
import { HttpApiBuilder, type HttpApi, type HttpApiGroup } from "effect/http-api"
import { createServer } from "node:http"
import { DatabaseLive } from "../../src/app/layers.ts"
import { AppConfig, readAppConfig } from "../../src/platform/config.ts"

const ConfigLive = Layer.effect(AppConfig)(Effect.orDie(readAppConfig))

/**
 * A floor's HttpApi (bench/support/floor.ts, floor-write.ts) on the smallest Effect server: its
 * handlers and the services they call, on the service's SQL client and configuration, on PORT
 * (else a free one), no logger. `runFloor` runs it and prints `ready <port>` once it listens.
 */
export const floorServer = <Id extends string, Groups extends HttpApiGroup.Constraint, A, E, R, S, E2, R2>(
  api: HttpApi.HttpApi<Id, Groups>,
  handlers: Layer.Layer<A, E, R>,
  services: Layer.Layer<S, E2, R2>
) =>
  HttpRouter.serve(HttpApiBuilder.layer(api).pipe(Layer.provide(handlers)), { disableLogger: true, disableListenLog: true }).pipe(
    Layer.provideMerge(NodeHttpServer.layer(createServer, { port: Number(process.env.PORT ?? 0), host: "127.0.0.1" })),
    Layer.provide(services),
    Layer.provide(DatabaseLive),
    Layer.provide(ConfigLive)
  )

const printReady = Effect.gen(function* () {
  const server = yield* HttpServer.HttpServer
  process.stdout.write(`ready ${"port" in server.address ? server.address.port : 0}\n`)
  return yield* Effect.never
})

/** Runs a floor server until the process is stopped. */
export const runFloor = <E>(server: Layer.Layer<HttpServer.HttpServer, E>) => NodeRuntime.runMain(Effect.provide(printReady, server))
