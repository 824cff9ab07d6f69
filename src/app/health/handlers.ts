import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { apiOf } from "../../shared/http-api.ts"
import { HealthApi, Unavailable } from "./api.ts"
import { makeReadinessChecks } from "./checks.ts"

export const HealthLive = HttpApiBuilder.group(apiOf(HealthApi), "health", (handlers) =>
  Effect.gen(function* () {
    const readiness = yield* makeReadinessChecks
    return handlers
      .handle("live", () => Effect.succeed({ status: "ok" as const }))
      .handle("ready", () =>
        Effect.gen(function* () {
          const checks = yield* readiness
          const failing = checks.filter((check) => check.state === "failing")
          if (failing.length > 0) {
            return yield* Effect.fail(
              new Unavailable({ status: "unavailable", errors: failing.map((check) => check.reason ?? check.name), checks })
            )
          }
          return { status: "ok" as const, checks }
        }))
  }))
