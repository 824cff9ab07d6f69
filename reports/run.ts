import { formatZoned } from "../src/shared/zoned-time.ts"
import {
  type DuckDBConnection,
  DuckDBDateValue,
  DuckDBListValue,
  DuckDBTimestampTZValue,
  DuckDBTimeValue,
  type DuckDBValue
} from "@duckdb/node-api"
import { Schema } from "effect"
import type { CatalogContext, WireType } from "./catalog/types.ts"
import type { CompiledQuery } from "./compile.ts"
import type { NormalizedQuery, ResponseField } from "./normalize.ts"
import type { QueryProblem } from "./problems.ts"
import { QueryRefusals } from "./refusals.ts"
import type { StoreConnection } from "./store-connection.ts"

/**
 * Runs a compiled query on a store connection (prepared statements, named parameters) and
 * turns the rows into the spec's wire types: booleans `t`/`f`, currency and integers as
 * numbers, dates `YYYY-MM-DD`, datetimes ISO 8601 with the row's offset, times `HH:MM:SS`,
 * ranges as two-element arrays.
 */

export type WireValue = string | number | null | ReadonlyArray<string | null>

export interface QueryPage {
  readonly fields: ReadonlyArray<ResponseField>
  readonly rows: ReadonlyArray<ReadonlyArray<WireValue>>
  readonly hasMore: boolean
  readonly lastKey: string | null
  readonly totalCount: number | undefined
  /** Seconds spent in DuckDB. */
  readonly duration: number
}

export type RunResult =
  | { readonly _tag: "Ok"; readonly page: QueryPage }
  | { readonly _tag: "Invalid"; readonly problems: ReadonlyArray<QueryProblem> }

/**
 * The page's rows (limit + 1 at most): a first page sorted newest first is read from the
 * scope's newest rows when they fill it (compile.ts, `newestFirst`), else from all rows. The
 * newest rows are a small table: they are read on the store's quick lane.
 */
export const readPage = async (connection: StoreConnection, query: NormalizedQuery, compiled: CompiledQuery) => {
  if (compiled.newestFirst) {
    const bound = await connection.remember(compiled.newestFirst.bound, "quick")
    if (bound !== null) {
      const { sql, params } = compiled.newestFirst.page
      const rows = await connection.execute({ sql, params: { ...params, bound } }, "quick")
      if (rows.length > query.limit) return rows
    }
  }
  return connection.execute(compiled.page)
}

export const runQuery = async (connection: StoreConnection, query: NormalizedQuery, compiled: CompiledQuery): Promise<RunResult> => {
  const started = performance.now()
  const raw = await readPage(connection, query, compiled)
  if (raw.length === 0 && compiled.anchorExists) {
    const [[n] = []] = await connection.execute(compiled.anchorExists)
    if (Number(n ?? 0) === 0) return { _tag: "Invalid", problems: [QueryRefusals.startingAfterUnknown.message()] }
  }
  const totalCount = compiled.count ? Number((await connection.execute(compiled.count))[0]?.[0] ?? 0) : undefined
  const duration = (performance.now() - started) / 1000

  const hasMore = raw.length > query.limit
  const pageRows = hasMore ? raw.slice(0, query.limit) : raw
  const width = query.fields.length
  const toRow = wireRow(query.fields.map((f) => f.type), compiled.timeZone)
  const rows = pageRows.map(toRow)
  const last = pageRows[pageRows.length - 1]
  return {
    _tag: "Ok",
    page: {
      fields: query.fields,
      rows,
      hasMore,
      lastKey: last === undefined ? null : String(last[width]),
      totalCount,
      duration: Math.round(duration * 1e6) / 1e6
    }
  }
}

const CustomFieldRow = Schema.Struct({
  id: Schema.Number,
  name: Schema.String,
  data_type: Schema.Literals(["select", "text", "boolean"])
})
const decodeCustomFields = Schema.decodeUnknownSync(Schema.Array(CustomFieldRow))

/** Custom fields of the businesses in scope, from the store, in display order (what `custom_fields` expands to). */
export const readCustomFields = async (
  connection: DuckDBConnection,
  businessIds: ReadonlyArray<number>
): Promise<CatalogContext["customFields"]> => {
  const reader = await connection.runAndReadAll(
    `SELECT CAST(id AS DOUBLE) AS id, name, data_type FROM custom_fields
     WHERE business_id IN (${businessIds.map((_, i) => `$${i + 1}`).join(", ")}) ORDER BY position, id`,
    [...businessIds]
  )
  return decodeCustomFields(reader.getRowObjects())
}

// ---------------------------------------------------------------------------------------------
// Wire types

/**
 * A result row (`c0..cN`, `key`, then `tz` when datetimes are returned) → its wire values: the
 * datetimes in the row's zone, else in `timeZone` (the caller's, left out of its rows: compile.ts).
 */
export const wireRow = (types: ReadonlyArray<WireType>, timeZone: string | undefined) => {
  const width = types.length
  return (row: ReadonlyArray<DuckDBValue>): Array<WireValue> => {
    const tz = row.length > width + 1 ? String(row[width + 1] ?? timeZone ?? "UTC") : "UTC"
    return types.map((type, i) => toWire(row[i] ?? null, type, tz))
  }
}

export const toWire = (value: DuckDBValue, type: WireType, timeZone: string): WireValue => {
  if (value === null || value === undefined) return null
  switch (type) {
    case "boolean":
      return value === true ? "t" : "f"
    case "integer":
    case "currency":
      return Number(value)
    case "float":
      return Number(value)
    case "date":
      return value instanceof DuckDBDateValue ? value.toString() : String(value)
    case "time":
      return value instanceof DuckDBTimeValue ? value.toString() : String(value)
    case "datetime":
      return value instanceof DuckDBTimestampTZValue ? formatDateTime(value.micros, timeZone) : String(value)
    case "range":
      return value instanceof DuckDBListValue ? value.items.map((item) => (item === null ? null : String(item))) : null
    case "enum":
    case "string":
      return String(value)
  }
}

/** `2015-07-06T09:30:00-07:00`: the wall time in `timeZone` with its offset (spec: datetimes carry their zone). */
export const formatDateTime = (micros: bigint, timeZone: string): string => {
  const millis = Number(micros / 1000n)
  try {
    return formatZoned(millis, timeZone)
  } catch {
    return formatZoned(millis, "UTC")
  }
}
