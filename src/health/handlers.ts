import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { SqlClient } from "effect/sql"
import { apiOf } from "../shared/http-api.ts"
import { HealthApi, Unavailable } from "./api.ts"

export const HealthLive = HttpApiBuilder.group(apiOf(HealthApi), "health", (handlers) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return handlers
      .handle("live", () => Effect.succeed({ status: "ok" as const }))
      .handle("ready", () =>
        sql`select 1`.pipe(
          Effect.timeout("2 seconds"),
          Effect.as({ status: "ok" as const }),
          Effect.catchCause(() => Effect.fail(new Unavailable({ status: "unavailable", errors: ["Database unavailable"] })))
        ))
  }))
