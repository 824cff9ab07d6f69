import { Cause, Effect, Stream } from "effect"
import { HttpServerResponse } from "effect/http"
import { recordReportExport } from "../src/platform/metrics/exports.ts"
import type { WireType } from "./catalog/types.ts"
import { CSV, disposition, stopWithRequest } from "./export.ts"
import type { WireValue } from "./run.ts"
import type { PreparedExport } from "./service.ts"

/**
 * The CSV export (RFC 4180): a header row of the field names, then every row with the values
 * the JSON pages have (run.ts `toWire`): cents as integers, booleans `t`/`f`, dates
 * `YYYY-MM-DD`, datetimes in the row's zone with its offset (`Z` in UTC), floats as JavaScript
 * writes numbers. NULL is an empty field and an empty text `""`, so the two stay apart; a range
 * is `start/end` (ISO 8601's interval), a missing end left empty. CRLF line ends, UTF-8, no BOM.
 * Values are written as they are, without a spreadsheet's formula escaping: the file is data.
 *
 * DuckDB writes each line itself (one VARCHAR per row, in the result's order) and the stream
 * joins a chunk's lines: turning every DuckDB value into a JavaScript one cost about ten times
 * DuckDB's own work (1 M rows of 13 fields: 21 s against 2.3 s on the benchmark's store).
 * Lines aggregated into blocks in DuckDB (`string_agg` by 2,048 rows) were faster still, but
 * the aggregate holds the whole result: 780 MiB for a million rows. Memory stays DuckDB's sort
 * and one chunk.
 */

const NEEDS_QUOTES = /[",\r\n]/

/** One field as JavaScript writes it (the header row; the rows' SQL below writes the same). */
export const csvField = (value: WireValue): string => {
  if (value === null) return ""
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : ""
  const text = typeof value === "string" ? value : value.map((end) => end ?? "").join("/")
  return text === "" || NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text
}

export const csvLine = (values: ReadonlyArray<WireValue>): string => `${values.map(csvField).join(",")}\r\n`

const literal = (text: string) => `'${text.replaceAll("'", "''")}'`

/** A text (or NULL) as a CSV field: quoted when empty or holding a comma, a quote or a line break. */
const quotedSql = (text: string) =>
  `CASE WHEN ${text} IS NULL THEN '' WHEN ${text} = '' OR contains(${text}, ',') OR contains(${text}, '"') OR contains(${text}, chr(10)) ` +
  `OR contains(${text}, chr(13)) THEN '"' || replace(${text}, '"', '""') || '"' ELSE ${text} END`

/**
 * `2015-07-06T09:30:00-07:00`, as zoned-time.ts `formatZoned` writes it (offset rounded to the
 * minute, `Z` for none), from the instant and its wall time in the row's zone (`local`).
 */
const datetimeSql = (value: string, local: string) => {
  const minutes = `CAST(round((epoch(${local}) - epoch(${value})) / 60) AS BIGINT)`
  const offset =
    `CASE WHEN ${minutes} = 0 THEN 'Z' ELSE (CASE WHEN ${minutes} < 0 THEN '-' ELSE '+' END) || ` +
    `lpad(CAST(abs(${minutes}) // 60 AS VARCHAR), 2, '0') || ':' || lpad(CAST(abs(${minutes}) % 60 AS VARCHAR), 2, '0') END`
  return `CASE WHEN ${value} IS NULL THEN '' ELSE replace(left(CAST(${local} AS VARCHAR), 19), ' ', 'T') || ${offset} END`
}

/** A column of the export's rows as a CSV field, for its wire type; `local`: a datetime's wall time in its zone. */
export const fieldSql = (value: string, type: WireType, local: string): string => {
  switch (type) {
    case "string":
    case "enum":
      return quotedSql(`CAST(${value} AS VARCHAR)`)
    case "boolean":
      return `CASE WHEN ${value} IS NULL THEN '' WHEN ${value} THEN 't' ELSE 'f' END`
    case "integer":
    case "currency":
    case "date":
    case "time":
      return `coalesce(CAST(${value} AS VARCHAR), '')`
    case "float": {
      // JavaScript writes a whole number without `.0`, as DuckDB does not.
      const number = `CAST(${value} AS DOUBLE)`
      return `CASE WHEN ${number} IS NULL OR isinf(${number}) OR isnan(${number}) THEN '' ` +
        `WHEN ${number} = trunc(${number}) AND abs(${number}) < 1e15 THEN CAST(CAST(${number} AS BIGINT) AS VARCHAR) ELSE CAST(${number} AS VARCHAR) END`
    }
    case "datetime":
      return datetimeSql(value, local)
    case "range":
      return `CASE WHEN ${value} IS NULL THEN '' ELSE ${quotedSql(`coalesce(CAST(${value}[1] AS VARCHAR), '') || '/' || coalesce(CAST(${value}[2] AS VARCHAR), '')`)} END`
  }
}

/** The export's rows as CSV lines, in order. */
export const csvLinesSql = (prepared: PreparedExport) => {
  const { compiled, fields, summary } = prepared
  const columns = summary ? ["e.group_label", ...fields.slice(1).map((_, i) => `e.c${i}`)] : fields.map((_, i) => `e.c${i}`)
  // A datetime's wall time, once per value (`l0..`): in the row's zone, the caller's when the row
  // names none (NULL `tz`), UTC for rows without `tz` (as run.ts). The caller's zone is a
  // constant, bound once; a zone read from the row is looked up again for every value (a
  // million datetimes: 40 s against 1 s), and most rows are in the caller's (compile.ts).
  const fallback = literal(compiled.timeZone ?? "UTC")
  const locals = columns.map((column, i) =>
    fields[i]!.type !== "datetime" ? undefined
    : compiled.withTz ? `CASE WHEN e.tz IS NULL THEN timezone(${fallback}, ${column}) ELSE timezone(e.tz, ${column}) END AS l${i}`
    : `timezone('UTC', ${column}) AS l${i}`)
  const withLocals = `SELECT e.*${locals.map((local) => (local === undefined ? "" : `, ${local}`)).join("")} FROM (${compiled.sql}) e`
  const line = `concat(${columns.map((column, i) => fieldSql(column, fields[i]!.type, `e.l${i}`)).join(", ',', ")}, chr(13), chr(10))`
  return { sql: `SELECT ${line} AS line FROM (${withLocals}) e ORDER BY ${compiled.order}`, params: compiled.params }
}

export const csvResponse = Effect.fn("Reports.exportCsv")(function* (
  resource: string,
  prepared: PreparedExport,
  headers: Record<string, string>
) {
  const lines = prepared.connection.stream(csvLinesSql(prepared))
  yield* stopWithRequest(lines, "csv")
  const pull = Effect.flatMap(Effect.promise(() => lines.nextTexts()), (text) => {
    if (text === undefined) {
      recordReportExport("csv", "completed")
      return Cause.done()
    }
    return Effect.succeed([Buffer.from(text, "utf8")] as const)
  })
  const header = Buffer.from(csvLine(prepared.fields.map((field) => field.name)), "utf8")
  const body = Stream.concat(Stream.succeed(header), Stream.fromPull(Effect.succeed(pull)))
  return HttpServerResponse.stream(body, {
    status: 200,
    headers: { ...headers, "content-disposition": disposition(resource, prepared.dataAsOf, "csv") },
    contentType: `${CSV}; charset=utf-8; header=present`
  })
})
