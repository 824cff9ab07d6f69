import { after, type OrderColumn } from "./compile.ts"
import type { CompiledSql } from "./compile-filter.ts"
import type { ParamValue } from "./normalize-values.ts"
import type { RowStream, StoreConnection } from "./store-connection.ts"

/**
 * A detail export read as consecutive ranges of its order, one sorted statement each, instead
 * of one statement sorting the whole result. DuckDB's sort holds every row's payload until the
 * last is in (a million enrollments' CSV lines: +321–336 MiB of resident memory); a range's
 * sort holds a range's. The bounds are rows of a sample of the result's order columns, sorted:
 * a range is the rows strictly after one bound and at or before the next (compile.ts `after`,
 * the keyset predicate of the pages), so the ranges cover every row once, in the pages' order,
 * whatever the sample and however many rows share a sort value.
 *
 * Reading a range is cheap when the store is laid out in the export's order: a full rebuild
 * writes each business's rows by its `newestFirstBy` date (reports/sync/full-rebuild.ts), and
 * each range also names its first sort column's interval as a plain comparison DuckDB pushes
 * into the scan, where the row groups' zone maps skip all but the range's own. Rows a refresh
 * appended since (out of order) cost a few extra row groups per range until the next rebuild;
 * they are never missed, the predicate is exact. Sorted by another column, every range reads
 * every row group's filter columns: still bounded memory, but up to one scan per range.
 */

/** What an export's request stops when it ends early (a client leaving): true when it had not finished. */
export interface Cancellable {
  cancel(): Promise<boolean>
}

/** A range's predicate over the export's relation `e`, with the parameters of its bounds. */
export interface Range {
  readonly where: string
  readonly params: Readonly<Record<string, ParamValue>>
}

/** Rows read by one statement, by default (REPORT_EXPORT_RANGE_ROWS). */
export const RANGE_ROWS = 50_000

/** Sampled rows per range: the ranges come out within a few per cent of the size asked. */
const SAMPLE_PER_RANGE = 200

/** One bound: each order column's value as text (NULL as null), cast back by `types`. */
type Bound = ReadonlyArray<string | null>

const rowOf = (name: string) => `e.${name}`

/**
 * The rows after `lo` (none: from the first) and at or before `hi` (none: to the last), and
 * the first column's interval besides, which DuckDB can check against zone maps. Only the last
 * range may hold NULLs of that column (NULLS LAST), and only it keeps `IS NULL` there.
 */
export const rangeOf = (columns: ReadonlyArray<OrderColumn>, types: ReadonlyArray<string>, lo: Bound | undefined, hi: Bound | undefined, name: string): Range => {
  const params: Record<string, ParamValue> = {}
  const literals = (bound: Bound, side: string) => (column: string) => {
    const i = columns.findIndex((c) => c.name === column)
    const value = bound[i]
    if (value === null || value === undefined) return `CAST(NULL AS ${types[i]})`
    params[`${name}${side}${i}`] = value
    return `CAST($${name}${side}${i} AS ${types[i]})`
  }
  const parts: Array<string> = []
  const first = columns[0]!
  const [min, max] = first.direction === "asc" ? [">=", "<="] : ["<=", ">="]
  if (lo !== undefined) {
    const value = literals(lo, "l")
    parts.push(after(columns, rowOf, value))
    const firstValue = value(first.name)
    if (lo[0] === null) parts.push(`${rowOf(first.name)} IS NULL`)
    else if (!first.nullable || (hi !== undefined && hi[0] !== null)) parts.push(`${rowOf(first.name)} ${min} ${firstValue}`)
    else parts.push(`(${rowOf(first.name)} ${min} ${firstValue} OR ${rowOf(first.name)} IS NULL)`)
  }
  if (hi !== undefined) {
    const value = literals(hi, "h")
    parts.push(`NOT ${after(columns, rowOf, value)}`)
    if (hi[0] !== null) parts.push(`${rowOf(first.name)} ${max} ${value(first.name)}`)
  }
  return { where: parts.length === 0 ? "TRUE" : parts.join(" AND "), params }
}

/** Bounds splitting a sorted sample of `sampled` rows into `ranges` ranges, equal ones dropped. */
export const boundsOf = (sample: ReadonlyArray<Bound>, ranges: number): Array<Bound> => {
  const bounds: Array<Bound> = []
  for (let j = 1; j < ranges; j++) {
    const bound = sample[Math.floor((j * sample.length) / ranges)]
    const previous = bounds[bounds.length - 1]
    if (bound !== undefined && (previous === undefined || bound.some((value, i) => value !== previous[i]))) bounds.push(bound)
  }
  return bounds
}

/**
 * Runs an export range by range on the request's connection: `ranges` reads the count and the
 * sample, `run` each range's statement (the caller writes it). All are streamed statements, so
 * a client leaving interrupts whichever runs, and no statement starts after `cancel`.
 */
export class RangedExport implements Cancellable {
  private readonly connection: StoreConnection
  private readonly source: CompiledSql
  private readonly columns: ReadonlyArray<OrderColumn> | undefined
  private readonly rangeRows: number
  private current: RowStream | undefined
  private done = false

  /** `source`: the export's rows (compiled.sql, with `s0..`, `k0..`); `columns`: its order, undefined for rows never split. */
  constructor(connection: StoreConnection, source: CompiledSql, columns: ReadonlyArray<OrderColumn> | undefined, rangeRows: number) {
    this.connection = connection
    this.source = source
    this.columns = columns
    this.rangeRows = Math.max(1, Math.floor(rangeRows))
  }

  get cancelled(): boolean {
    return this.done
  }

  /** Stops the statement running, if any; true when the export had not finished. */
  async cancel(): Promise<boolean> {
    if (this.done) return false
    this.done = true
    await this.current?.cancel()
    return true
  }

  /** The export ran to its end: a later `cancel` is no cancellation. */
  finish() {
    this.done = true
  }

  /** Runs a statement to its end (one at a time), its rows read whole; refused once cancelled. */
  async run(statement: CompiledSql): Promise<Array<Array<unknown>>> {
    if (this.done) throw new Error("export cancelled")
    const stream = this.connection.stream(statement)
    this.current = stream
    const rows: Array<Array<unknown>> = []
    for (let chunk = await stream.next(); chunk !== undefined; chunk = await stream.next()) rows.push(...chunk)
    if (this.done) throw new Error("export cancelled")
    this.current = undefined
    return rows
  }

  /**
   * The ranges, in the export's order: one (undefined, every row) for summary rows and for
   * results of at most `rangeRows` rows, else about one per `rangeRows` rows.
   */
  async ranges(): Promise<Array<Range | undefined>> {
    const columns = this.columns
    if (columns === undefined) return [undefined]
    const { sql, params } = this.source
    const [counted] = await this.run({ sql: `SELECT count(*) FROM (${sql}) e`, params })
    const count = Number(counted?.[0] ?? 0)
    if (count <= this.rangeRows) return [undefined]
    const ranges = Math.ceil(count / this.rangeRows)
    const names = columns.map((c) => c.name)
    const sample = await this.run({
      sql: `SELECT ${names.map((n) => `CAST(e.${n} AS VARCHAR)`).join(", ")}, ${names.map((n) => `typeof(e.${n})`).join(", ")} ` +
        `FROM (SELECT ${names.map(rowOf).join(", ")} FROM (${sql}) e USING SAMPLE reservoir(${Math.min(count, ranges * SAMPLE_PER_RANGE)} ROWS)) e ` +
        `ORDER BY ${columns.map((c) => `e.${c.name} ${c.direction === "asc" ? "ASC" : "DESC"}${c.nullable ? " NULLS LAST" : ""}`).join(", ")}`,
      params
    })
    if (sample.length === 0) return [undefined]
    const types = sample[0]!.slice(names.length).map(String)
    const bounds = boundsOf(sample.map((row) => row.slice(0, names.length).map((value) => (value === null ? null : String(value)))), ranges)
    return [...bounds, undefined].map((hi, j) => rangeOf(columns, types, bounds[j - 1], hi, `r${j}`))
  }
}
