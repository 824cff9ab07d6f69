import { Array as Arr, Effect, Schema } from "effect"
import { type SqlClient, SqlSchema } from "effect/sql"

/**
 * Rows for `sql.insert`, which takes a non-empty list of records: undefined when there is
 * nothing to insert, so callers write `if (rows) yield* sql\`insert ... ${sql.insert(rows)}\``.
 */
export const insertRows = <A extends object>(rows: ReadonlyArray<A>): Arr.NonEmptyReadonlyArray<Record<string, unknown>> | undefined => {
  const records: Array<Record<string, unknown>> = rows.map((row) => Object.fromEntries(Object.entries(row)))
  return Arr.isReadonlyArrayNonEmpty(records) ? records : undefined
}

/** The request of a statement that inserts prepared rows (`sql.insert(records)`): what insertRows gives. */
export const InsertRecords = Schema.NonEmptyArray(Schema.Record(Schema.String, Schema.Unknown))

/** A row that is just an id (inserts `returning id`). */
export const IdRow = Schema.Struct({ id: Schema.Number })

/** Inserts a tenant's rows (business_id added to each) and returns their ids in the order given. */
export const insertTenantRows = (sql: SqlClient.SqlClient, table: string, businessId: number, rows: ReadonlyArray<object>) => {
  const records = insertRows(rows.map((row) => ({ business_id: businessId, ...row })))
  if (records === undefined) return Effect.succeed([] as ReadonlyArray<number>)
  const insert = SqlSchema.findAll({
    Request: InsertRecords,
    Result: IdRow,
    execute: (request) => sql`insert into ${sql(table)} ${sql.insert(request)} returning id`
  })
  return insert(records).pipe(Effect.map((ids): ReadonlyArray<number> => ids.map((row) => row.id)), Effect.orDie)
}

/**
 * Ids bound as one `bigint[]` parameter: `id = any(${bigintArray(ids)})`. The SQL driver infers
 * an array parameter's element type from its values (int4 for numbers within 32 bits, int8
 * beyond) and refuses an array that mixes the two, so `[1, 2147483648]` bound as numbers fails
 * before it reaches PostgreSQL. As bigints every id array is int8[], whatever its values. Every
 * array of ids a statement binds goes through here (test/http/bad-input-sweep.test.ts).
 */
export const bigintArray = (ids: ReadonlyArray<number>): Array<bigint> => ids.map(BigInt)
