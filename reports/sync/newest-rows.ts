import type { StoreTable } from "./tables/types.ts"

/**
 * The newest rows of a store table with `newestRowsBy` (invoices, invoice items): a companion
 * table `<name>_newest` holding each business's rows dated at or after its NEWEST_ROWS-th newest
 * `newestFirstBy` date (ties included), stored by business, then newest first, then by id.
 *
 * It answers the first page of a detail query sorted newest first (reports/compile.ts,
 * `newestFirst`). For one business its rows are stored in the page's order, so the page is
 * its first matching rows: DuckDB keeps a table's order in a query without ORDER BY (the
 * readers' `preserve_insertion_order`), and the top-N sort it saves is most of such a page's
 * time (1.0 → 0.5 ms on the 5-million store). It is computed from the table itself, at the
 * end of a full rebuild and of every incremental refresh that publishes a generation: a
 * refresh appends its rows at the table's end, out of that order, and so does not patch it.
 *
 * Why every row of a page is there: a business's rows left out are older than all of its rows
 * kept. A scope's NEWEST_ROWS-th newest date (the page's bound) is no older than any of its
 * businesses' own, so every row of the scope at or after the bound is kept.
 *
 * Its size: NEWEST_ROWS rows per business, plus any tied with the oldest of them (a business
 * with fewer dated rows has them all there): 4,155 invoices of 2,173,282 on the 5-million store.
 */
export const NEWEST_ROWS = 1024

/** The statements that (re)build the newest rows of the tables that have them, from the tables themselves. */
export const newestRowsStatements = (tables: ReadonlyArray<StoreTable>): ReadonlyArray<string> =>
  tables.flatMap(({ name, newestFirstBy: date, newestRowsBy: id }) =>
    date === undefined || id === undefined
      ? []
      : [
          `CREATE OR REPLACE TABLE ${name}_newest AS
           SELECT r.* FROM ${name} r
           JOIN (SELECT business_id, list_min(max(${date}, ${NEWEST_ROWS})) AS bound FROM ${name} WHERE ${date} IS NOT NULL GROUP BY business_id) b
             ON b.business_id = r.business_id AND r.${date} >= b.bound
           ORDER BY r.business_id, r.${date} DESC, r.${id}`
        ])
