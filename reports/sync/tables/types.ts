/**
 * The tables of the report store, one file per report resource (as reports/catalog/): their
 * DuckDB columns and the PostgreSQL query that fills them. One denormalized table per report
 * resource, plus `custom_fields` (the definitions that `clients.custom_fields` expands to).
 * The PostgreSQL query is the one place a field's source is decided: fields whose source data
 * does not exist in the Core API yet are constants there (NULL, 0 or false, each with its
 * reason), so when that data lands only the resource's file changes.
 *
 * Instants are selected as they are: the sync's session runs in UTC (sync.ts), so PostgreSQL
 * writes `2024-06-05 00:00:00+00`, which DuckDB reads as TIMESTAMPTZ (to_char costs twice as
 * much per value, and a million rows carry several each).
 */

export interface StoreTable {
  readonly name: string
  /** Column name and DuckDB type, in the order the PostgreSQL query returns them. */
  readonly columns: ReadonlyArray<readonly [string, string]>
  /**
   * The PostgreSQL SELECT, restricted by `where` (a condition on the row's person `p` for
   * clients). COPY cannot take bind parameters, so `where` is a fixed text (see sync.ts).
   */
  readonly select: (where: string) => string
  /** The row's business in `select`'s terms (for reading a table in parts by business). */
  readonly businessIdSql: string
  /**
   * A full rebuild reads this table with hash joins only (nested loops and merge joins off for
   * its statement). For the invoice tables, whose joins on (business_id, id) pairs the planner
   * underestimates by the number of businesses at every step: it then chose nested loops and
   * merge joins with a filter that went quadratic in one business (minutes for 100,000 rows).
   * An incremental refresh reads few rows and keeps the planner's choice.
   */
  readonly rebuildWithHashJoins?: true
  /**
   * The store column a full rebuild orders each business's rows by (newest first), besides the
   * business: the date that detail pages sort by. A first page of it then lies in the business's
   * first row groups, and DuckDB's top-N skips the others by their zone maps.
   */
  readonly newestFirstBy?: string
}

/** What `rebuildWithHashJoins` sets around the table's statement, and what restores the planner after it. */
export const HASH_JOINS_ONLY = "set local enable_nestloop = off; set local enable_mergejoin = off"
export const PLANNER_JOINS = "reset enable_nestloop; reset enable_mergejoin"

export const createTableSql = (table: StoreTable) =>
  `CREATE TABLE ${table.name} (${table.columns.map(([name, type]) => `${name} ${type}`).join(", ")})`

/** "First Last", without stray spaces when a part is empty. */
export const fullName = (alias: string) => `nullif(concat_ws(' ', nullif(${alias}.first_name, ''), nullif(${alias}.last_name, '')), '')`

/**
 * A franchisee reports its holding; a holding itself; a plain business nothing. The holdings
 * are joined once (`franchiseJoin` after the business's join), not looked up per row.
 */
export const franchiseId = (business: string) => `coalesce(${business}.franchise_parent_id, holding_of_${business}.id)`
export const franchiseJoin = (business: string) =>
  `left join (select franchise_parent_id as id from businesses where franchise_parent_id is not null group by 1) holding_of_${business}
      on holding_of_${business}.id = ${business}.id`

/** An instant as the wall-clock time in a zone, for a DuckDB TIMESTAMP (the catalogs' local dates, days and times). */
export const localTime = (column: string, zone: string) => `(${column} at time zone ${zone})`

/** The business columns every report row starts with (after its key). */
export const businessColumns: ReadonlyArray<readonly [string, string]> = [
  ["business_id", "BIGINT NOT NULL"],
  ["business_name", "VARCHAR"],
  ["business_subdomain", "VARCHAR"],
  ["franchise_id", "BIGINT"],
  ["currency_code", "VARCHAR"],
  ["time_zone", "VARCHAR NOT NULL"]
]
