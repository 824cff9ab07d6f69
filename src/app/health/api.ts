import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { docs } from "../../shared/docs.ts"

/** One readiness check: its state and, when failing, why (src/app/health/checks.ts). */
export const ReadinessCheck = Schema.Struct({
  name: Schema.Literals(["database", "migrations", "worker", "reports"]),
  state: Schema.Literals(["ok", "failing"]),
  reason: Schema.optional(Schema.String),
  detail: Schema.optional(Schema.String)
})

export class Unavailable extends Schema.Error<Unavailable>("Unavailable")(
  { status: Schema.Literal("unavailable"), errors: Schema.Array(Schema.String), checks: Schema.Array(ReadinessCheck) },
  { httpApiStatus: 503, description: "A check fails: `errors` says why, one line per failing check; `checks` lists them all" }
) {}

export const HealthApi = HttpApiGroup.make("health")
  .add(
    HttpApiEndpoint.get("live", "/healthz", { success: Schema.Struct({ status: Schema.Literal("ok") }) }).annotateMerge(
      docs("Liveness", "The process serves HTTP. Answers on any host.")
    )
  )
  .add(
    HttpApiEndpoint.get("ready", "/readyz", {
      success: Schema.Struct({ status: Schema.Literal("ok"), checks: Schema.Array(ReadinessCheck) }),
      error: Unavailable
    }).annotateMerge(
      docs(
        "Readiness",
        "200 when every check passes, 503 when one fails; both list `checks` (name, state, and the reason of a failing one): `database` answers, `migrations` not behind the code, `worker` (in a process that runs one) looking for jobs, `reports` data not older than its limit. Answers on any host."
      )
    )
  )
  .annotateMerge(docs("Health"))
