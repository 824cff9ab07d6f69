import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { docs } from "../shared/docs.ts"

export class Unavailable extends Schema.Error<Unavailable>("Unavailable")(
  { status: Schema.Literal("unavailable"), errors: Schema.Array(Schema.String) },
  { httpApiStatus: 503, description: "A dependency (the database) does not answer" }
) {}

export const HealthApi = HttpApiGroup.make("health")
  .add(
    HttpApiEndpoint.get("live", "/healthz", { success: Schema.Struct({ status: Schema.Literal("ok") }) }).annotateMerge(
      docs("Liveness", "The process serves HTTP. Answers on any host.")
    )
  )
  .add(
    HttpApiEndpoint.get("ready", "/readyz", {
      success: Schema.Struct({ status: Schema.Literal("ok") }),
      error: Unavailable
    }).annotateMerge(docs("Readiness", "The database answers. Answers on any host."))
  )
  .annotateMerge(docs("Health"))
