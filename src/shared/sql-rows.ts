import { Array as Arr, Effect, Schema } from "effect"
import type { SqlClient } from "effect/sql"

/**
 * Rows for `sql.insert`, which takes a non-empty list of records: undefined when there is
 * nothing to insert, so callers write `if (rows) yield* sql\`insert ... ${sql.insert(rows)}\``.
 */
export const insertRows = <A extends object>(rows: ReadonlyArray<A>): Arr.NonEmptyReadonlyArray<Record<string, unknown>> | undefined => {
  const records: Array<Record<string, unknown>> = rows.map((row) => Object.fromEntries(Object.entries(row)))
  return Arr.isReadonlyArrayNonEmpty(records) ? records : undefined
}

const decodeIds = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ id: Schema.Number })))

/** Inserts a tenant's rows (business_id added to each) and returns their ids in the order given. */
export const insertTenantRows = (sql: SqlClient.SqlClient, table: string, businessId: number, rows: ReadonlyArray<object>) => {
  const records = insertRows(rows.map((row) => ({ business_id: businessId, ...row })))
  return records === undefined
    ? Effect.succeed([] as ReadonlyArray<number>)
    : sql`insert into ${sql(table)} ${sql.insert(records)} returning id`.pipe(
      Effect.flatMap(decodeIds),
      Effect.map((ids): ReadonlyArray<number> => ids.map((row) => row.id)),
      Effect.orDie
    )
}
