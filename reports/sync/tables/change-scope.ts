/**
 * What an incremental refresh (reports/sync/incremental-refresh.ts) reads again of a store
 * table, declared beside the table's columns and query: the change logs that concern it, the
 * condition of its query over them, and which of the store's rows the rows read replace.
 *
 * A change log is PostgreSQL's record of what changed since the last refresh, as
 * `(business_id, id)` pairs: the refresh fills it into a temporary table in its snapshot
 * (`$1` = changed since), the logs a log reads first. The tables' conditions name those
 * temporary tables, so a log shared by several tables (the changed people, occurrences or
 * invoices) is read once.
 */

export interface ChangeLog {
  /** The temporary table it fills (`report_changed_<what>`). */
  readonly table: string
  /** `(business_id, id)` pairs, `$1` = changed since. */
  readonly sql: string
  /** Logs its query reads: filled before it. */
  readonly after: ReadonlyArray<ChangeLog>
}

export const changeLog = (table: string, sql: string, after: ReadonlyArray<ChangeLog> = []): ChangeLog => ({ table, sql, after })

/** `(business_id, id)` of `row` is among the pairs of `logs` (one at least). */
export const inLogs = (row: string, logs: ReadonlyArray<ChangeLog>) =>
  `${row} in (${logs.map((log) => `select business_id, id from ${log.table}`).join(" union ")})`

/**
 * Rows read in the refresh's snapshot into a DuckDB table of their own (as CSV, like the
 * tables' rows): what a `within` replacement's condition names besides the fresh rows.
 */
export interface RefreshScope {
  readonly name: string
  readonly columns: ReadonlyArray<readonly [string, string]>
  /** Over the change logs' temporary tables. */
  readonly sql: string
}

/**
 * Which rows of the store the rows read replace:
 * - `key`: those of the same key (a row never disappears between rebuilds);
 * - `whole`: all of them (a small table read whole);
 * - `within`: every row `rows(alias, fresh)` holds (`fresh(table)`: the relation of a table's rows
 *   read), so a row gone from PostgreSQL goes from the store too.
 */
export type Replacement =
  | { readonly kind: "key" }
  | { readonly kind: "whole" }
  | { readonly kind: "within"; readonly rows: (alias: string, fresh: (table: string) => string) => string }

export interface ChangeScope {
  /** The change logs `where` names. */
  readonly logs: ReadonlyArray<ChangeLog>
  /** The condition the table's `select` reads the changed rows with. */
  readonly where: string
  readonly replaces: Replacement
  /** The scope `replaces` names, read with the rows. */
  readonly scope?: RefreshScope
  /**
   * Whether the table's refreshed rows (for a table read whole: those that differ) tell which
   * businesses' monthly metrics to recompute (reports/sync/monthly-metrics.ts), its scope's too.
   */
  readonly metrics: boolean
}

/** A small table read whole at every refresh. */
export const readWhole = (metrics: boolean): ChangeScope => ({ logs: [], where: "true", replaces: { kind: "whole" }, metrics })

/** The logs every scope names, each once and after the logs it reads. */
export const logsInOrder = (scopes: ReadonlyArray<ChangeScope>): Array<ChangeLog> => {
  const ordered: Array<ChangeLog> = []
  const visit = (log: ChangeLog) => {
    if (ordered.includes(log)) return
    log.after.forEach(visit)
    ordered.push(log)
  }
  scopes.forEach((scope) => scope.logs.forEach(visit))
  return ordered
}
