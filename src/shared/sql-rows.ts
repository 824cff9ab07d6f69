import { Array as Arr } from "effect"

/**
 * Rows for `sql.insert`, which takes a non-empty list of records: undefined when there is
 * nothing to insert, so callers write `if (rows) yield* sql\`insert ... ${sql.insert(rows)}\``.
 */
export const insertRows = <A extends object>(rows: ReadonlyArray<A>): Arr.NonEmptyReadonlyArray<Record<string, unknown>> | undefined => {
  const records: Array<Record<string, unknown>> = rows.map((row) => Object.fromEntries(Object.entries(row)))
  return Arr.isReadonlyArrayNonEmpty(records) ? records : undefined
}
