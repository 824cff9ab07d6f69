import { Effect, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { localDateAt } from "../../shared/zoned-time.ts"

/** What the demo's seeders share: the business's day, whether a table already has its rows, counted statements. */
export interface BusinessDay {
  readonly now: Date
  readonly timeZone: string
  /** The business-local date of `now` (YYYY-MM-DD). */
  readonly today: string
}

export const businessDay = (businessId: number, nowMs: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    SqlSchema.findOne({
      Request: Schema.Number,
      Result: Schema.Struct({ time_zone: Schema.String }),
      execute: (id) => sql`select time_zone from businesses where id = ${id}`
    })(businessId)).pipe(
      Effect.map((row): BusinessDay => ({ now: new Date(nowMs), timeZone: row.time_zone, today: localDateAt(nowMs, row.time_zone) }))
    )

/** Whether the business already has rows in `table` (the seeders write only into an empty one). */
export const hasRows = (table: "plans" | "invoices", businessId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    SqlSchema.findAll({
      Request: Schema.Number,
      Result: Schema.Struct({ n: Schema.Number }),
      execute: (id) => sql`select 1 as n from ${sql.literal(table)} where business_id = ${id} limit 1`
    })(businessId)).pipe(Effect.map((rows) => rows.length > 0))

/** Runs a statement ending in `select count(*)::int as n ...` (its parameters `$1`...) and answers n. */
export const counted = (statement: string, params: ReadonlyArray<unknown>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    SqlSchema.findOne({
      Request: Schema.Array(Schema.Unknown),
      Result: Schema.Struct({ n: Schema.Number }),
      execute: (values) => sql.unsafe(statement, [...values])
    })(params)).pipe(Effect.map((row) => row.n))
