import type { Refusal } from "../../src/shared/refusals.ts"

/**
 * What a report resource offers: its detail fields, summary fields, groupings and logical
 * fields, each with its wire type and the DuckDB expression it reads. Every SQL identifier a
 * compiled query contains comes from here (never from the request), so a catalog entry is
 * also the allow-list that makes injection through a field name impossible.
 *
 * Expressions are written over the row alias `r`, a row of the resource's `source` relation.
 */

/** The wire types of the spec ("Field types"). */
export const WIRE_TYPES = ["boolean", "currency", "date", "datetime", "time", "range", "enum", "float", "integer", "string"] as const
export type WireType = (typeof WIRE_TYPES)[number]

/** A row-level value: a detail field, a grouping, or an instance of a logical field. */
export interface ColumnDef {
  readonly name: string
  readonly type: WireType
  /** DuckDB expression over `r`. */
  readonly sql: string
  /** The bounded set of an `enum` field (filters are checked against it). */
  readonly values?: ReadonlyArray<string>
  /** A human label, shown in the response `fields` (instances of logical fields). */
  readonly label?: string
}

/** An aggregate over the rows of a group. */
export interface SummaryDef {
  readonly name: string
  readonly type: WireType
  /** DuckDB aggregate expression over `r`. */
  readonly sql: string
}

/** Facts a query needs that come from the caller's data rather than from the catalog. */
export interface CatalogContext {
  /** Custom fields of the businesses in scope, in display order. */
  readonly customFields: ReadonlyArray<{
    readonly id: number
    readonly name: string
    readonly data_type: "select" | "text" | "boolean"
  }>
  /** The caller's business is a franchise holding (it has franchisees). */
  readonly franchiseHolding: boolean
}

/** A requested name that expands to several instance fields (clients' `custom_fields`). */
export interface LogicalDef {
  readonly name: string
  /** The instance fields, or the refusal (reports/refusals.ts) when the expansion is not supported. */
  readonly expand: (context: CatalogContext) => ReadonlyArray<ColumnDef> | { readonly unsupported: Refusal }
  /** Recognises an instance field requested (or filtered, sorted) by its own name. */
  readonly instance: (name: string, context: CatalogContext) => ColumnDef | undefined
}

export interface ResourceCatalog {
  readonly resource: string
  /**
   * The relation the resource reads, aliased `r` by the compiler. It may reference the
   * parameter `$now` (the query's clock), for fields relative to "today".
   */
  readonly source: string
  /** Business of a row: scoping to the caller's business (and franchisees) filters on it. */
  readonly businessIdSql: string
  /** The row's `key` (string, unique across the resource, at most 255 characters). */
  readonly keySql: string
  /**
   * Non-null columns that order rows uniquely and consistently with `keySql`: the tie-breaker
   * that makes keyset pagination total under any sort.
   */
  readonly keyOrder: ReadonlyArray<string>
  /** IANA zone of a row, used to write its datetimes with their offset. */
  readonly timeZoneSql: string
  /**
   * A datetime column whose first detail page, sorted by it newest first, is read from the
   * store's table of each business's newest rows (`source`, reports/sync/newest-rows.ts) when
   * they fill it (compile.ts, `newestFirst`).
   */
  readonly newestFirst?: { readonly sql: string; readonly source: string }
  readonly detail: ReadonlyMap<string, ColumnDef>
  readonly summary: ReadonlyMap<string, SummaryDef>
  readonly groupings: ReadonlyMap<string, ColumnDef>
  readonly logical: ReadonlyMap<string, LogicalDef>
}

// ---------------------------------------------------------------------------------------------
// Builders shared by the resources

export const column = (name: string, type: WireType, sql = `r.${name}`, values?: ReadonlyArray<string>): ColumnDef =>
  values === undefined ? { name, type, sql } : { name, type, sql, values }

export const summary = (name: string, type: WireType, sql: string): SummaryDef => ({ name, type, sql })

export const byName = <T extends { readonly name: string }>(items: ReadonlyArray<T>): ReadonlyMap<string, T> => {
  const map = new Map<string, T>()
  for (const item of items) {
    if (map.has(item.name)) throw new Error(`duplicate catalog name ${item.name}`)
    map.set(item.name, item)
  }
  return map
}

/** Detail fields every resource has (spec, "General rules"). */
export const commonDetail = (options: { readonly currency: boolean }): ReadonlyArray<ColumnDef> => [
  column("business_id", "integer"),
  column("business_name", "string"),
  column("business_subdomain", "string"),
  column("franchise_id", "integer"),
  ...(options.currency ? [column("currency_code", "string")] : []),
  column("key", "string")
]

/** Summary fields every resource has. The two `_summary` fields list the businesses of the group. */
export const commonSummary: ReadonlyArray<SummaryDef> = [
  summary("business_id_summary", "string", "array_to_string(list_sort(list_distinct(list(r.business_id))), ',')"),
  summary("business_subdomain_summary", "string", "array_to_string(list_sort(list_distinct(list(r.business_subdomain))), ',')"),
  summary("total_count", "integer", "count(*)")
]

/** Groupings every resource has. */
export const commonGroupings: ReadonlyArray<ColumnDef> = [
  column("business_id", "integer"),
  column("business_name", "string"),
  column("business_subdomain", "string")
]

/** The five date buckets of a base date (spec: `<b>_month_start_date` and so on). */
export const dateBuckets = (base: string, dateSql: string): ReadonlyArray<ColumnDef> => [
  column(`${base}_month_start_date`, "date", `CAST(date_trunc('month', ${dateSql}) AS DATE)`),
  column(`${base}_quarter_start_date`, "date", `CAST(date_trunc('quarter', ${dateSql}) AS DATE)`),
  // ISO weeks start on Monday.
  column(`${base}_week_mon_start_date`, "date", `CAST(date_trunc('week', ${dateSql}) AS DATE)`),
  // dayofweek: Sunday = 0, so subtracting it lands on the Sunday that starts the week.
  column(`${base}_week_sun_start_date`, "date", `CAST(${dateSql} - CAST(dayofweek(${dateSql}) AS INTEGER) AS DATE)`),
  column(`${base}_year_start_date`, "date", `CAST(date_trunc('year', ${dateSql}) AS DATE)`)
]

/** A count of rows where a boolean field is true. */
export const countTrue = (name: string, field: string): SummaryDef => summary(name, "integer", `count(*) FILTER (WHERE r.${field})`)

/** A sum of an integer or currency field; an empty group sums to 0. */
export const total = (name: string, type: WireType, field: string): SummaryDef =>
  summary(name, type, `coalesce(sum(r.${field}), 0)`)
