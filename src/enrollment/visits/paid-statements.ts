import { Schema } from "effect"
import { type SqlClient, SqlSchema } from "effect/sql"
import { orDie } from "../../shared/statements.ts"
import { bigintArray } from "../../shared/sql-rows.ts"

/**
 * A visit's paid mirror (`punch_id`, `paid_for_by`), declared here so the visits table has one
 * writer. Billing's punches set and clear it in the transaction that inserts or deletes the
 * punch (src/billing/punches/repo.ts builds these on its own connection: the punches repo sits
 * above visits, and VisitsRepo itself needs billing's auto-pay, so it is not a dependency).
 */
const Ids = Schema.Array(Schema.Number)

export const visitPaidStatements = (sql: SqlClient.SqlClient) => {
  const markPaid = SqlSchema.void({
    Request: Schema.Struct({ businessId: Schema.Number, id: Schema.Number, punchId: Schema.Number, paidForBy: Schema.String, now: Schema.Date }),
    execute: ({ businessId, id, punchId, paidForBy, now }) =>
      sql`update visits set punch_id = ${punchId}, paid_for_by = ${paidForBy}, updated_at = ${now}
          where business_id = ${businessId} and id = ${id}`
  })
  const markUnpaid = SqlSchema.void({
    Request: Schema.Struct({ businessId: Schema.Number, ids: Ids, now: Schema.Date }),
    execute: ({ businessId, ids, now }) =>
      sql`update visits set punch_id = null, paid_for_by = null, updated_at = ${now}
          where business_id = ${businessId} and id = any(${bigintArray(ids)})`
  })
  return {
    /** The visit is paid by the punch; `paidForBy` is the plan's name (what the visit shows). */
    markPaid: orDie(markPaid),
    /** The visits' punches are gone: unpaid again. */
    markUnpaid: orDie(markUnpaid)
  }
}
