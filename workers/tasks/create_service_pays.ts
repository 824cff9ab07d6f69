import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { CreateServicePaysJob } from "../../src/billing/staff-pay/jobs.ts"
import { createServicePays } from "../../src/billing/staff-pay/service.ts"

/** The service pays of an occurrence whose attendance was completed (src/billing/staff-pay/service.ts); exactly once however often it runs. */
export const createServicePaysTask = (payload: unknown) =>
  Effect.gen(function* () {
    const { business_id, event_occurrence_id } = yield* CreateServicePaysJob.decode(payload)
    const sql = yield* SqlClient.SqlClient
    const recorded = yield* sql.withTransaction(createServicePays(business_id, [event_occurrence_id])).pipe(Effect.orDie)
    yield* Effect.logInfo("service pays recorded").pipe(Effect.annotateLogs({ event_occurrence_id, recorded }))
  })
