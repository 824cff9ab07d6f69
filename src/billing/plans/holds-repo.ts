import { Effect, Schema } from "effect"
import { type SqlClient, SqlSchema } from "effect/sql"
import { orDie } from "../../shared/statements.ts"
import { HoldRow } from "./model.ts"
import { bigintArray } from "../../shared/sql-rows.ts"

/**
 * The SQL of plan holds (pauses). Part of PlansRepo (repo.ts spreads these methods in), kept
 * apart so each file reads one aggregate; same conventions: every statement names
 * `business_id`, writes run on the caller's connection.
 */
const Id = Schema.Struct({ id: Schema.Number })

export const holdsQueries = (sql: SqlClient.SqlClient) => {
  const holds = SqlSchema.findAll({
    Request: Schema.Struct({ businessId: Schema.Number, planIds: Schema.Array(Schema.Number) }),
    Result: HoldRow,
    execute: ({ businessId, planIds }) =>
      sql`select id, plan_id, start_date::text as start_date, end_date::text as end_date, created_at from plan_holds
          where business_id = ${businessId} and plan_id = any(${bigintArray(planIds)}) order by start_date, id`
  })
  const overlapping = SqlSchema.findAll({
    Request: Schema.Struct({ businessId: Schema.Number, planId: Schema.Number, startDate: Schema.String, endDate: Schema.NullOr(Schema.String) }),
    Result: Id,
    execute: ({ businessId, planId, startDate, endDate }) =>
      sql`select id from plan_holds
          where business_id = ${businessId} and plan_id = ${planId}
            and start_date <= coalesce(${endDate}::date, 'infinity'::date)
            and coalesce(end_date, 'infinity'::date) >= ${startDate}::date`
  })
  const insertHold = SqlSchema.findOne({
    Request: Schema.Struct({
      businessId: Schema.Number,
      planId: Schema.Number,
      startDate: Schema.String,
      endDate: Schema.NullOr(Schema.String),
      accountId: Schema.Number,
      now: Schema.Date
    }),
    Result: Id,
    execute: (r) =>
      sql`insert into plan_holds (business_id, plan_id, start_date, end_date, created_by_account_id, created_at, updated_at)
          values (${r.businessId}, ${r.planId}, ${r.startDate}::date, ${r.endDate}::date, ${r.accountId}, ${r.now}, ${r.now})
          returning id`
  })
  const deleteHold = SqlSchema.findAll({
    Request: Schema.Struct({ businessId: Schema.Number, planId: Schema.Number, id: Schema.Number }),
    Result: Id,
    execute: ({ businessId, planId, id }) =>
      sql`delete from plan_holds where business_id = ${businessId} and plan_id = ${planId} and id = ${id} returning id`
  })
  const holdsOf = (request: Parameters<typeof holds>[0]) => (request.planIds.length === 0 ? Effect.succeed([] as ReadonlyArray<HoldRow>) : holds(request))
  const overlappingIds = (request: Parameters<typeof overlapping>[0]) => Effect.map(overlapping(request), (rows) => rows.map((row) => row.id))
  const deleted = (request: Parameters<typeof deleteHold>[0]) => Effect.map(deleteHold(request), (rows) => rows.length > 0)

  return {
    /** The holds of plans (`planIds`), none asked for none. */
    holds: orDie(holdsOf),
    /** Holds of the plan sharing a day with [startDate, endDate] (null end: open-ended), by id. */
    overlappingHolds: orDie(overlappingIds),
    /** Answers `{ id }`. */
    insertHold: orDie(insertHold),
    /** Whether the hold existed (under this plan). */
    deleteHold: orDie(deleted)
  }
}
