import { Effect, Layer } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { makeWorkerReadinessChecks } from "./checks.ts"

/**
 * `/healthz` and `/readyz` of a `studio worker` process, which has no API port: served on its
 * metrics listener (METRICS_PORT, src/app/metrics-server.ts), in the API's shapes. Readiness
 * is the worker's own: the database answers and the worker loop looks for jobs.
 */
export const WorkerProbesLive = Layer.unwrap(
  Effect.gen(function* () {
    const readiness = yield* makeWorkerReadinessChecks
    return Layer.mergeAll(
      HttpRouter.add("GET", "/healthz", Effect.succeed(HttpServerResponse.jsonUnsafe({ status: "ok" }))),
      HttpRouter.add(
        "GET",
        "/readyz",
        Effect.map(readiness, (checks) => {
          const failing = checks.filter((check) => check.state === "failing")
          return failing.length === 0
            ? HttpServerResponse.jsonUnsafe({ status: "ok", checks })
            : HttpServerResponse.jsonUnsafe(
              { status: "unavailable", errors: failing.map((check) => check.reason ?? check.name), checks },
              { status: 503 }
            )
        })
      )
    )
  })
)
