import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Cause, Console, Effect, Layer } from "effect"
import { DemoCallbackLive } from "./tools/demo/callback.ts"
import { demoPresent } from "./tools/demo/lock.ts"
import { seedDemo } from "./tools/demo/seed.ts"
import { DEMO_CLIENT_ID, DEMO_SUBDOMAIN, demoRedirectUri } from "./tools/demo/document.ts"
import { HttpServerLive, httpServerWith } from "./app/http.ts"
import { BaseLive } from "./app/layers.ts"
import { AppConfig } from "./platform/config.ts"
import { migrateDatabase } from "./platform/startup.ts"
import { MetricsListenerLive } from "./app/metrics-server.ts"
import { WorkerLive } from "../workers/runner.ts"

/**
 * `npm start`: PostgreSQL (embedded unless DATABASE_URL is set), migrations, the demo
 * business (never with NODE_ENV=production), then the HTTP server and the graphile-worker
 * runner in one process.
 * SIGINT/SIGTERM interrupt the program: the server stops accepting and drains, the worker
 * finishes its jobs, then the embedded PostgreSQL stops.
 */
const program = Effect.gen(function* () {
  const startedAt = performance.now()
  const config = yield* AppConfig
  yield* migrateDatabase
  if (config.production) return yield* startProduction(startedAt)
  const demo = yield* seedDemo
  yield* Layer.build(Layer.mergeAll(httpServerWith(DemoCallbackLive), WorkerLive, MetricsListenerLive))
  const port = config.port === 80 ? "" : `:${config.port}`
  const base = `http://${config.baseDomain}${port}`
  const business = `http://${demo.subdomain}.${config.baseDomain}${port}`
  yield* Console.log(
    [
      "",
      `Studio Service is ready (${Math.round(performance.now() - startedAt)} ms).`,
      "",
      `  API docs         ${base}/api/docs   (OpenAPI: ${base}/api/openapi.json)`,
      `  Business host    ${business}`,
      "",
      "Try:",
      `  curl -s '${base}/api/v2/front/business?client_id=${demo.clientId}' -H 'Host: ${demo.subdomain}.${config.baseDomain}'`,
      `  curl -s '${business}/api/v2/desk/locations' -H 'Authorization: Bearer ${demo.ownerToken}'`,
      `  curl -s '${business}/api/v2/front/locations' -H 'Authorization: Bearer ${demo.clientToken}'`,
      "",
      "OAuth, in a browser (log in as owner@demo.test):",
      `  ${business}/oauth/authorize?client_id=${demo.clientId}&response_type=code&redirect_uri=${encodeURIComponent(demoRedirectUri(config))}`,
      "",
      `Tokens: owner@demo.test (owner) ${demo.ownerToken}`,
      `        client@demo.test (client) ${demo.clientToken}`,
      `Demo accounts' password: ${demo.password}`,
      ""
    ].join("\n")
  )
  return yield* Effect.never
})

/**
 * NODE_ENV=production (the image's setting): no demo business, no demo application, no
 * callback page and nothing secret printed. The operator creates the first business and its
 * owner with the CLI (README, "Production"). A database that still holds the demo from an
 * earlier version is named in a warning: its accounts share a published password.
 */
const startProduction = Effect.fn("Main.startProduction")(function* (startedAt: number) {
  yield* Layer.build(Layer.mergeAll(HttpServerLive, WorkerLive, MetricsListenerLive))
  const config = yield* AppConfig
  if (yield* demoPresent) {
    yield* Effect.logWarning(
      `this production database holds the demo business "${DEMO_SUBDOMAIN}" or the demo OAuth application "${DEMO_CLIENT_ID}", ` +
        "whose password and secret are published: take them away with `studio seed lock-demo`"
    )
  }
  yield* Console.log(
    `Studio Service is ready (${Math.round(performance.now() - startedAt)} ms) on ${config.host}:${config.port}, production mode: no demo. ` +
      "Create a business and its owner with: studio business create --subdomain S --name N --owner-email E"
  )
  return yield* Effect.never
})

/** A start that cannot happen (port taken, database unreachable) is one clear line, exit code 1. */
const explainStartupFailure = <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.catchCause(self, (cause) =>
    Cause.hasInterruptsOnly(cause)
      ? Effect.failCause(cause)
      : Effect.sync(() => {
          const error = Cause.squash(cause)
          const reason = error instanceof Error ? [error.message, (error.cause as Error | undefined)?.message].filter(Boolean).join(": ") : String(error)
          process.stderr.write(`error: Studio Service could not start: ${reason}\n`)
          process.exit(1)
        }))

program.pipe(Effect.scoped, Effect.provide(BaseLive()), explainStartupFailure, NodeRuntime.runMain)
