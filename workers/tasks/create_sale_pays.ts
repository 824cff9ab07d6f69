import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { CreateSalePaysJob } from "../../src/billing/staff-pay/jobs.ts"
import { createSalePays } from "../../src/billing/staff-pay/service.ts"

/** The commission pay of a closed invoice (src/billing/staff-pay/service.ts); exactly once however often it runs. */
export const createSalePaysTask = (payload: unknown) =>
  Effect.gen(function* () {
    const { business_id, invoice_id } = yield* CreateSalePaysJob.decode(payload)
    const sql = yield* SqlClient.SqlClient
    const recorded = yield* sql.withTransaction(createSalePays(business_id, [invoice_id])).pipe(Effect.orDie)
    yield* Effect.logInfo("sale pays recorded").pipe(Effect.annotateLogs({ invoice_id, recorded }))
  })
