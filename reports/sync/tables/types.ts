import type { ChangeScope } from "./change-scope.ts"

/**
 * The tables of the report store, one file per report resource (as reports/catalog/): their
 * DuckDB columns and the query that fills them. One denormalized table per report resource,
 * plus `custom_fields` (the definitions that `clients.custom_fields` expands to). The query is
 * the one place a field's source is decided: fields whose source data does not exist in the
 * Core API yet are constants there (NULL, 0 or false, each with its reason), so when that data
 * lands only the resource's file changes.
 *
 * One query, two engines: a full rebuild runs it on DuckDB over mirrors of the PostgreSQL tables
 * (full-rebuild.ts), an incremental refresh on PostgreSQL for the rows that changed. It is
 * written in the SQL both share (DuckDB has no initcap or trim_scale; `/` on integers divides
 * exactly there), and the tests check that a refresh right after a rebuild finds every row
 * equal. Instants are selected as they are: both sessions run in UTC, so PostgreSQL writes
 * `2024-06-05 00:00:00+00`, which DuckDB reads as TIMESTAMPTZ. Text that orders a list (names
 * in `string_agg`) is ordered `collate "C"`, by bytes: DuckDB's order, whatever collation the
 * PostgreSQL database has (en_US would put "adam" before "Zed" on the refresh's path only).
 */

export interface StoreTable {
  readonly name: string
  /** Column name and DuckDB type, in the order the PostgreSQL query returns them. */
  readonly columns: ReadonlyArray<readonly [string, string]>
  /**
   * The SELECT, restricted by `where` (a condition on the row's person `p` for clients; `true`
   * in a full rebuild). COPY cannot take bind parameters, so `where` is a fixed text (see sync.ts).
   */
  readonly select: (where: string) => string
  /** What an incremental refresh reads again of it, and which rows that replaces (change-scope.ts). */
  readonly changes: ChangeScope
  /**
   * The store column a full rebuild orders each business's rows by (newest first), besides the
   * business: the date that detail pages sort by. A first page of it then lies in the business's
   * first row groups, and DuckDB's top-N skips the others by their zone maps.
   */
  readonly newestFirstBy?: string
  /**
   * The row's id among its business's rows (the catalog's key order after the business): the
   * table then has a companion of each business's newest rows, stored in the order of a page
   * sorted newest first (reports/sync/newest-rows.ts).
   */
  readonly newestRowsBy?: string
}

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

/**
 * A card type as words ("master_card" → "Master Card"): the four brands by name, any other with
 * its first letter capitalized. Written with functions both PostgreSQL and DuckDB have (DuckDB
 * has no initcap), as every table's SQL runs on both (full-rebuild.ts).
 */
export const cardTypeLabel = (column: string) =>
  `case ${column} when 'visa' then 'Visa' when 'master_card' then 'Master Card' when 'american_express' then 'American Express' ` +
  `when 'discover' then 'Discover' else upper(left(replace(${column}, '_', ' '), 1)) || lower(substr(replace(${column}, '_', ' '), 2)) end`

/**
 * The businesses with their calendar date today as `today`, worked out once per business: per
 * row it was a time zone conversion for every plan and every date rule (7 of person_plans' 25 s
 * on DuckDB at 5 million enrollments).
 */
export const businessesToday = "(select bt.*, (now() at time zone bt.time_zone)::date as today from businesses bt)"
