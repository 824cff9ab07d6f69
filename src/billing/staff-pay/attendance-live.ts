import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { AttendanceCompleted } from "../../schedule/event-occurrences/attendance.ts"
import { enqueueServicePays } from "./service.ts"

/** Staff pay's answer to the schedule's AttendanceCompleted port: the service pays job, enqueued in the caller's transaction. */
export const AttendanceCompletedLive = Layer.effect(AttendanceCompleted)(
  Effect.gen(function* () {
    // Only the SQL client: the caller's fiber keeps its own transaction connection.
    const services = Context.pick(SqlClient.SqlClient)(yield* Effect.context<SqlClient.SqlClient>())
    return {
      payServices: (businessId, occurrenceId) => enqueueServicePays(businessId, occurrenceId).pipe(Effect.orDie, Effect.provideContext(services))
    }
  })
)
