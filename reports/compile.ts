import type { ResourceCatalog, WireType } from "./catalog/types.ts"
import type { NormalizedQuery, SortTarget } from "./normalize.ts"
import { NEWEST_ROWS } from "./sync/newest-rows.ts"
import { type CompiledSql, type Params, compileFilter, isText, makeParams } from "./compile-filter.ts"

// Golden tests pin a filter's predicate alone.

/**
 * A normalized query → DuckDB SQL with named parameters. Pure: the same query and options
 * give the same text (golden tests pin it). Identifiers and expressions come only from the
 * catalog; every value (filter values, scope, key, limit, clock) is a `$pN` parameter, cast
 * to the field's DuckDB type in the text so the type never depends on how JSON spelled it.
 *
 * Ordering and pagination. Rows are ordered by the requested sort keys, then by the
 * resource's key columns (detail) or the group value (summary), which makes the order total.
 * NULLs sort last in both directions, and text sorts case-insensitively. `starting_after`
 * names a row: its sort values are looked up (the "anchor") and the page holds the rows
 * strictly after it in that order (keyset pagination), so pages never skip or repeat rows
 * even when rows are added between requests. One extra row is fetched to tell `has_more`.
 */

export interface CompiledQuery {
  /** The page: output columns `c0..cN` (summary: `group_label` first), then `key`, then `tz` when datetimes are returned. */
  readonly page: CompiledSql
  /** `total_count` when requested. */
  readonly count: CompiledSql | undefined
  /** Whether `starting_after` names a row (asked only when the page comes back empty). */
  readonly anchorExists: CompiledSql | undefined
  /** The zone of a detail row whose `tz` is NULL (CompileOptions.timeZone). */
  readonly timeZone: string | undefined
  /** The page's order over the relation `e` (compileExport). */
  readonly exportOrder: string
  /** A detail page's order, column by column (`s0..`, `k0..`): what an export's ranges split (export-ranges.ts). */
  readonly orderColumns: ReadonlyArray<OrderColumn> | undefined
  /**
   * A first detail page sorted by the resource's `newestFirst` column, newest first, read from
   * the store's newest rows of each business (reports/sync/newest-rows.ts): `bound` answers the
   * scope's NEWEST_ROWS-th newest value there (as text), and `page` reads the rows at or after
   * it. When that is a full page (limit + 1 rows) it is the page: every row it left out sorts
   * after them. Else the runner reads `page` above.
   */
  readonly newestFirst: { readonly bound: CompiledSql; readonly page: CompiledSql } | undefined
}

export interface CompileOptions {
  /** The businesses whose rows the caller may see. */
  readonly scope: ReadonlyArray<number>
  /** The query's clock, for fields relative to today. */
  readonly now: Date
  /**
   * The zone most rows are in (the caller's business's): a detail row in it comes back without
   * its zone, and the runner writes its datetimes in this one. A page of a hundred rows then
   * reads no hundred copies of one long text (half the time spent reading the page's values).
   */
  readonly timeZone?: string
}

// ---------------------------------------------------------------------------------------------
// Ordering and keyset

export interface OrderColumn {
  /** Column of the page relation `q`. */
  readonly name: string
  readonly direction: "asc" | "desc"
  readonly nullable: boolean
}

const orderBy = (columns: ReadonlyArray<OrderColumn>, relation = "q") =>
  columns.map((c) => `${relation}.${c.name} ${c.direction === "asc" ? "ASC" : "DESC"}${c.nullable ? " NULLS LAST" : ""}`).join(", ")

/**
 * Rows of `q` strictly after the anchor `a` in the order of `columns` (the last column is
 * unique, so the order is total). With NULLS LAST, nothing is after a NULL on that column,
 * and a NULL is after every value. Never NULL itself, so its negation is "at or before".
 * `row` and `anchor` name each side's value of a column (an export's ranges: literals).
 */
export const after = (
  columns: ReadonlyArray<OrderColumn>,
  row: (name: string) => string = (name) => `q.${name}`,
  anchor: (name: string) => string = (name) => `a.${name}`
): string => {
  const strictly = (c: OrderColumn) => {
    const op = c.direction === "asc" ? ">" : "<"
    const [q, a] = [row(c.name), anchor(c.name)]
    return c.nullable ? `(${a} IS NOT NULL AND (${q} IS NULL OR ${q} ${op} ${a}))` : `${q} ${op} ${a}`
  }
  const equal = (c: OrderColumn) => (c.nullable ? `${row(c.name)} IS NOT DISTINCT FROM ${anchor(c.name)}` : `${row(c.name)} = ${anchor(c.name)}`)
  let predicate = strictly(columns[columns.length - 1]!)
  for (let i = columns.length - 2; i >= 0; i--) {
    predicate = `(${strictly(columns[i]!)} OR (${equal(columns[i]!)} AND ${predicate}))`
  }
  return predicate
}

/** Text sorts case-insensitively; other types by value. */
const sortExpression = (sql: string, type: WireType) => (isText(type) ? `lower(${sql})` : sql)

/** The opaque key of a summary row: its group value, readable when short. */
const groupKey = (g: string) =>
  `CASE WHEN ${g} IS NULL THEN 'null' WHEN length(CAST(${g} AS VARCHAR)) <= 200 THEN 'v:' || CAST(${g} AS VARCHAR) ` +
  `ELSE 'h:' || md5(CAST(${g} AS VARCHAR)) END`

const scopeCondition = (catalog: ResourceCatalog, scope: ReadonlyArray<number>, p: Params) =>
  scope.length === 0 ? "FALSE" : `${catalog.businessIdSql} IN (${scope.map((id) => p.add(id, "BIGINT")).join(", ")})`

const whereClause = (query: NormalizedQuery, options: CompileOptions, p: Params) => {
  const scope = scopeCondition(query.catalog, options.scope, p)
  return query.filter ? `${scope} AND ${compileFilter(query.filter, p)}` : scope
}

const hasDatetime = (columns: ReadonlyArray<{ readonly type: WireType }>) => columns.some((c) => c.type === "datetime")

// ---------------------------------------------------------------------------------------------

export const compile = (query: NormalizedQuery, options: CompileOptions): CompiledQuery =>
  query.mode === "detail" ? compileDetail(query, options) : compileSummary(query, options)

/**
 * Every row of the query's result, in the order its pages come in (the page statement without
 * its anchor and its LIMIT): what an export streams. Same columns as a page (`c0..`, `key`, `tz`).
 */
export interface CompiledExport extends CompiledSql {
  /** The zone of a row whose `tz` is NULL (CompiledQuery.timeZone). */
  readonly timeZone: string | undefined
  /** Whether rows carry `tz` (after `key`). */
  readonly withTz: boolean
  /** The rows' order over `e`: `SELECT … FROM (sql) e ORDER BY <order>`. */
  readonly order: string
  /** That order column by column, for a detail export (its rows can be read range by range); undefined for summary rows. */
  readonly orderColumns: ReadonlyArray<OrderColumn> | undefined
}

/**
 * Every row of the query's result, unordered, with the columns of a page (`c0..`, `key`, `tz`)
 * and the ones it is ordered by (`s0..`, `k0..`): an export writes each row's values (a CSV
 * line, Parquet columns) and orders them around the statement by `order`, the order of the
 * pages. Ordering the rows inside and writing them outside would take a second sort, or a
 * window numbering the rows, as much memory again as the result.
 */
export const compileExport = (query: NormalizedQuery, options: CompileOptions): CompiledExport => {
  const whole = { ...query, startingAfter: undefined, totalCount: false }
  const compiled = whole.mode === "detail" ? compileDetail(whole, options, true) : compileSummary(whole, options, true)
  const withTz = whole.mode === "detail" ? hasDatetime(whole.columns) : whole.group.type === "datetime"
  return { ...compiled.page, timeZone: compiled.timeZone, withTz, order: compiled.exportOrder, orderColumns: compiled.orderColumns }
}

/** Detail queries sort by row values only (normalize.ts). */
const rowSql = (target: SortTarget): string => {
  if (target.kind === "aggregate") throw new Error("aggregate sort in a detail query")
  return target.column.sql
}

const compileDetail = (query: Extract<NormalizedQuery, { mode: "detail" }>, options: CompileOptions, unbounded = false): CompiledQuery => {
  const { catalog } = query
  const sortColumns = query.sort.map((key, i) => ({
    sql: sortExpression(rowSql(key.target), key.type),
    order: { name: `s${i}`, direction: key.direction, nullable: true } satisfies OrderColumn
  }))
  const keyColumns = catalog.keyOrder.map((sql, i) => ({ sql, order: { name: `k${i}`, direction: "asc", nullable: false } satisfies OrderColumn }))
  const order = [...sortColumns, ...keyColumns].map((c) => c.order)
  const orderSelect = [...sortColumns, ...keyColumns].map((c) => `${c.sql} AS ${c.order.name}`)
  const withTz = hasDatetime(query.columns)

  const timeZone = withTz ? options.timeZone : undefined
  const select = (p: Params) => [
    ...query.columns.map((c, i) => `${c.sql} AS c${i}`),
    `${catalog.keySql} AS key`,
    ...(withTz ? [`${timeZone === undefined ? catalog.timeZoneSql : `nullif(${catalog.timeZoneSql}, ${p.add(timeZone, "VARCHAR")})`} AS tz`] : []),
    ...orderSelect
  ]
  const outputs = [...query.columns.map((_, i) => `q.c${i}`), "q.key", ...(withTz ? ["q.tz"] : [])]
  /**
   * The page's statement; from the newest rows, `newest` gives their table and the bound that
   * narrows the filter, and whether the table's own order is the page's (no sort needed).
   */
  const pageStatement = (newest?: { source: string; narrow: string; inStoredOrder: boolean }): CompiledSql => {
    const page = makeParams(options.now)
    const where = whereClause(query, options, page)
    let sql = `WITH q AS (SELECT ${select(page).join(", ")} FROM ${newest?.source ?? catalog.source} r WHERE ${newest ? `${where} AND ${newest.narrow}` : where})`
    if (query.startingAfter !== undefined) {
      // The anchor is looked up without the filter: a row that stopped matching still marks the place.
      const anchorWhere = `${scopeCondition(catalog, options.scope, page)} AND ${catalog.keySql} = ${page.add(query.startingAfter, "VARCHAR")}`
      sql += `, a AS (SELECT ${orderSelect.join(", ")} FROM ${catalog.source} r WHERE ${anchorWhere})`
      sql += ` SELECT ${outputs.join(", ")} FROM q, a WHERE ${after(order)}`
    } else {
      sql += ` SELECT ${[...outputs, ...(unbounded ? order.map((c) => `q.${c.name}`) : [])].join(", ")} FROM q`
    }
    // An export orders the rows around the statement (`exportOrder`), after writing them.
    if (unbounded) return page.statement(sql)
    if (!newest?.inStoredOrder) sql += ` ORDER BY ${orderBy(order)}`
    sql += ` LIMIT ${page.add(query.limit + 1, "BIGINT")}`
    return page.statement(sql)
  }

  let count: CompiledSql | undefined
  if (query.totalCount) {
    const p = makeParams(options.now)
    count = p.statement(`SELECT count(*) AS n FROM ${catalog.source} r WHERE ${whereClause(query, options, p)}`)
  }
  let anchorExists: CompiledSql | undefined
  if (query.startingAfter !== undefined) {
    const p = makeParams(options.now)
    const where = `${scopeCondition(catalog, options.scope, p)} AND ${catalog.keySql} = ${p.add(query.startingAfter, "VARCHAR")}`
    anchorExists = p.statement(`SELECT count(*) AS n FROM ${catalog.source} r WHERE ${where}`)
  }
  const first = query.sort[0]
  const newest = catalog.newestFirst
  let newestFirst: CompiledQuery["newestFirst"]
  if (newest && query.startingAfter === undefined && first?.direction === "desc" && first.target.kind !== "aggregate" && first.target.column.sql === newest.sql) {
    const p = makeParams(options.now)
    const bound = p.statement(
      `SELECT CAST(min(d) AS VARCHAR) FROM (SELECT ${newest.sql} AS d FROM ${newest.source} r ` +
        `WHERE ${scopeCondition(catalog, options.scope, p)} ORDER BY d DESC LIMIT ${NEWEST_ROWS})`
    )
    newestFirst = {
      bound,
      page: pageStatement({
        source: newest.source,
        narrow: `${newest.sql} >= CAST($bound AS TIMESTAMPTZ)`,
        // One business's newest rows are stored by the date, newest first, then by the key:
        // the page's order when the date is its only sort key. Several businesses interleave.
        inStoredOrder: options.scope.length === 1 && query.sort.length === 1
      })
    }
  }
  return { page: pageStatement(), count, anchorExists, newestFirst, timeZone, exportOrder: orderBy(order, "e"), orderColumns: order }
}

const compileSummary = (query: Extract<NormalizedQuery, { mode: "summary" }>, options: CompileOptions, unbounded = false): CompiledQuery => {
  const { catalog, group } = query
  // Aggregates only sorted by are computed too, as `x0..`; requested ones are `c0..`.
  const extra: Array<string> = []
  const sortColumns = query.sort.map((key, i): { sql: string; order: OrderColumn } => {
    let ref: string
    if (key.target.kind === "aggregate") {
      const wanted = key.target.summary
      const at = query.columns.findIndex((c) => c.name === wanted.name)
      if (at >= 0) ref = `g.c${at}`
      else {
        ref = `g.x${extra.length}`
        extra.push(`${wanted.sql} AS x${extra.length}`)
      }
    } else {
      ref = "g.group_label"
    }
    return { sql: sortExpression(ref, key.type), order: { name: `s${i}`, direction: key.direction, nullable: true } }
  })
  // Without a sort, summary rows come in group order; the group value itself breaks ties.
  if (sortColumns.length === 0 && (group.type === "string" || group.type === "enum")) {
    sortColumns.push({ sql: "lower(g.group_label)", order: { name: "s0", direction: "asc", nullable: true } })
  }
  const order = [...sortColumns.map((c) => c.order), { name: "group_label", direction: "asc", nullable: true } satisfies OrderColumn]
  const withTz = group.type === "datetime"

  const grouped = (p: Params) => {
    const select = [
      `${group.sql} AS group_label`,
      ...query.columns.map((c, i) => `${c.sql} AS c${i}`),
      ...extra,
      ...(withTz ? [`any_value(${catalog.timeZoneSql}) AS tz`] : [])
    ]
    return `g AS (SELECT ${select.join(", ")} FROM ${catalog.source} r WHERE ${whereClause(query, options, p)} GROUP BY 1)`
  }
  const keyed = `q AS (SELECT g.*, ${[...sortColumns.map((c) => `${c.sql} AS ${c.order.name}`), `${groupKey("g.group_label")} AS key`].join(", ")} FROM g)`

  const page = makeParams(options.now)
  const outputs = ["q.group_label", ...query.columns.map((_, i) => `q.c${i}`), "q.key", ...(withTz ? ["q.tz"] : [])]
  let sql = `WITH ${grouped(page)}, ${keyed}`
  if (query.startingAfter !== undefined) {
    const anchorColumns = order.map((c) => c.name).join(", ")
    sql += `, a AS (SELECT ${anchorColumns} FROM q WHERE q.key = ${page.add(query.startingAfter, "VARCHAR")})`
    sql += ` SELECT ${outputs.join(", ")} FROM q, a WHERE ${after(order)}`
  } else {
    sql += ` SELECT ${[...outputs, ...(unbounded ? sortColumns.map((c) => `q.${c.order.name}`) : [])].join(", ")} FROM q`
  }
  if (!unbounded) sql += ` ORDER BY ${orderBy(order)} LIMIT ${page.add(query.limit + 1, "BIGINT")}`

  let count: CompiledSql | undefined
  if (query.totalCount) {
    const p = makeParams(options.now)
    count = p.statement(
      `SELECT count(*) AS n FROM (SELECT ${group.sql} AS group_label FROM ${catalog.source} r WHERE ${whereClause(query, options, p)} GROUP BY 1)`
    )
  }
  let anchorExists: CompiledSql | undefined
  if (query.startingAfter !== undefined) {
    const p = makeParams(options.now)
    anchorExists = p.statement(`WITH ${grouped(p)}, ${keyed} SELECT count(*) AS n FROM q WHERE q.key = ${p.add(query.startingAfter, "VARCHAR")}`)
  }
  return { page: page.statement(sql), count, anchorExists, newestFirst: undefined, timeZone: undefined, exportOrder: orderBy(order, "e"), orderColumns: undefined }
}

