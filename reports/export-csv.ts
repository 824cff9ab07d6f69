import { Effect, Stream } from "effect"
import { HttpServerResponse } from "effect/http"
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { recordExportStatement, recordReportExport } from "../src/platform/metrics/exports.ts"
import type { WireType } from "./catalog/types.ts"
import type { CompiledSql } from "./compile-filter.ts"
import { periodsSql, type ZonePeriod, zonePeriods } from "./export-zones.ts"
import { CSV, disposition, stopWithRequest } from "./export.ts"
import { RANGE_ROWS, type Range, RangedExport } from "./export-ranges.ts"
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
 * DuckDB writes the rows itself: each value is made the JSON's text in SQL (NULL stays NULL),
 * and its CSV writer (`COPY … TO … (FORMAT csv)`) quotes and joins them into a file in the
 * process's export folder, range by range of the export's order (export-ranges.ts), which is
 * streamed from there and removed. While one range's file is sent, the next one is written.
 * Reading every value into JavaScript cost about ten times DuckDB's own work (21 s against
 * 2.3 s for a million rows); lines built in SQL and read as one text a row still spent more
 * in the expressions building them than the writer spends on the same rows (6.0 s of CPU
 * against 3.4 s for COPY sorting and writing a million rows), most of it converting each
 * datetime to its zone: a datetime of the rows in the caller's zone is now written by that
 * zone's periods over the export's span (export-zones.ts), found once per export.
 */

const NEEDS_QUOTES = /[",\r\n]/

/** One field as JavaScript writes it (the header row; DuckDB's writer quotes the rows the same). */
export const csvField = (value: WireValue): string => {
  if (value === null) return ""
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : ""
  const text = typeof value === "string" ? value : value.map((end) => end ?? "").join("/")
  return text === "" || NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text
}

export const csvLine = (values: ReadonlyArray<WireValue>): string => `${values.map(csvField).join(",")}\r\n`

const literal = (text: string) => `'${text.replaceAll("'", "''")}'`

/**
 * `2015-07-06T09:30:00-07:00`, as zoned-time.ts `formatZoned` writes it (offset rounded to the
 * minute, `Z` for none), from the instant and its wall time in the row's zone (`local`).
 */
const datetimeSql = (value: string, local: string) => {
  const minutes = `CAST(round((epoch(${local}) - epoch(${value})) / 60) AS BIGINT)`
  const offset =
    `CASE WHEN ${minutes} = 0 THEN 'Z' ELSE (CASE WHEN ${minutes} < 0 THEN '-' ELSE '+' END) || ` +
    `lpad(CAST(abs(${minutes}) // 60 AS VARCHAR), 2, '0') || ':' || lpad(CAST(abs(${minutes}) % 60 AS VARCHAR), 2, '0') END`
  return `CASE WHEN ${value} IS NOT NULL THEN replace(left(CAST(${local} AS VARCHAR), 19), ' ', 'T') || ${offset} END`
}

/**
 * A column of the export's rows as the JSON's text for its wire type, NULL for NULL (the
 * writer leaves that field empty and quotes an empty text); `local`: a datetime's wall time in its zone.
 */
export const textSql = (value: string, type: WireType, local: string): string => {
  switch (type) {
    case "string":
    case "enum":
    case "integer":
    case "currency":
    case "date":
    case "time":
      return `CAST(${value} AS VARCHAR)`
    case "boolean":
      return `CASE WHEN ${value} THEN 't' WHEN NOT ${value} THEN 'f' END`
    case "float": {
      // JavaScript writes a whole number without `.0`, as DuckDB does not.
      const number = `CAST(${value} AS DOUBLE)`
      return `CASE WHEN ${number} IS NULL OR isinf(${number}) OR isnan(${number}) THEN NULL ` +
        `WHEN ${number} = trunc(${number}) AND abs(${number}) < 1e15 THEN CAST(CAST(${number} AS BIGINT) AS VARCHAR) ELSE CAST(${number} AS VARCHAR) END`
    }
    case "datetime":
      return datetimeSql(value, local)
    case "range":
      return `CASE WHEN ${value} IS NOT NULL THEN coalesce(CAST(${value}[1] AS VARCHAR), '') || '/' || coalesce(CAST(${value}[2] AS VARCHAR), '') END`
  }
}

/** The export's columns as the compiled statement names them (`group_label` then `c0..` for summary rows). */
const columnsOf = ({ fields, summary }: PreparedExport) =>
  summary ? ["e.group_label", ...fields.slice(1).map((_, i) => `e.c${i}`)] : fields.map((_, i) => `e.c${i}`)

/** Per column, the periods of the zone its datetimes are written in when a row names none (export-zones.ts). */
export type ColumnZones = ReadonlyArray<ReadonlyArray<ZonePeriod> | undefined>

/**
 * The zone a row without `tz` is written in: the caller's when rows carry `tz` (NULL when it is
 * the caller's), UTC for rows without (as run.ts).
 */
const rowZone = (prepared: PreparedExport) => (prepared.compiled.withTz ? prepared.compiled.timeZone ?? "UTC" : "UTC")

/**
 * Each datetime column's instants, first and last (epoch ms), of the whole export: the span its
 * zone's periods must cover. Other columns (and a datetime column of plain TIMESTAMPs, which
 * the periods do not describe) keep DuckDB's conversion.
 */
export const columnZones = async (prepared: PreparedExport, run: (statement: CompiledSql) => Promise<Array<Array<unknown>>>): Promise<ColumnZones> => {
  const columns = columnsOf(prepared)
  const datetimes = columns.flatMap((column, i) => (prepared.fields[i]!.type === "datetime" ? [{ column, i }] : []))
  if (datetimes.length === 0) return columns.map(() => undefined)
  const [row] = await run({
    sql: `SELECT ${datetimes.map(({ column }) => `min(epoch_ms(${column})), max(epoch_ms(${column})), any_value(typeof(${column}))`).join(", ")} ` +
      `FROM (${prepared.compiled.sql}) e`,
    params: prepared.compiled.params
  })
  const zone = rowZone(prepared)
  const zones: Array<ReadonlyArray<ZonePeriod> | undefined> = columns.map(() => undefined)
  datetimes.forEach(({ i }, j) => {
    const [min, max, type] = [row?.[3 * j], row?.[3 * j + 1], row?.[3 * j + 2]]
    if (min === null || min === undefined || type !== "TIMESTAMP WITH TIME ZONE") return
    zones[i] = zonePeriods(zone, Number(min), Number(max))
  })
  return zones
}

/**
 * The export's rows (those `range` holds, or all) as the JSON's texts, in order, written by
 * DuckDB as CSV lines into `file`. `zones`: the datetime columns' periods (columnZones).
 */
export const csvCopySql = (prepared: PreparedExport, file: string, range?: Range, zones: ColumnZones = []): CompiledSql => {
  const { compiled, fields } = prepared
  const columns = columnsOf(prepared)
  // A datetime of a row in its own zone (`tz`) is converted by DuckDB (`l0..`, its wall time);
  // in the zone rows without `tz` share, by its periods (`u0..`, its epoch microseconds). Each
  // once per value. A zone read from the row is looked up again for every value (a million
  // datetimes: 40 s against 1 s), and most rows are in the caller's (compile.ts).
  const fallback = literal(rowZone(prepared))
  const ownZone = (column: string) => `timezone(e.tz, ${column})`
  const extras = columns.flatMap((column, i) => {
    if (fields[i]!.type !== "datetime") return []
    if (zones[i] !== undefined) return [`epoch_us(${column}) AS u${i}`, ...(compiled.withTz ? [`CASE WHEN e.tz IS NOT NULL THEN ${ownZone(column)} END AS l${i}`] : [])]
    return [compiled.withTz ? `CASE WHEN e.tz IS NULL THEN timezone(${fallback}, ${column}) ELSE ${ownZone(column)} END AS l${i}` : `timezone('UTC', ${column}) AS l${i}`]
  })
  const withLocals = `SELECT e.*${extras.map((extra) => `, ${extra}`).join("")} FROM (${compiled.sql}) e` +
    (range === undefined ? "" : ` WHERE ${range.where}`)
  const texts = columns.map((column, i) => {
    const periods = zones[i]
    if (fields[i]!.type !== "datetime" || periods === undefined) return `${textSql(column, fields[i]!.type, `e.l${i}`)} AS t${i}`
    const byPeriods = periodsSql(`e.u${i}`, periods)
    return compiled.withTz
      ? `CASE WHEN ${column} IS NULL THEN NULL WHEN e.tz IS NULL THEN ${byPeriods} ELSE ${datetimeSql(column, `e.l${i}`)} END AS t${i}`
      : `CASE WHEN ${column} IS NOT NULL THEN ${byPeriods} END AS t${i}`
  })
  return {
    sql: `COPY (SELECT ${texts.join(", ")} FROM (${withLocals}) e ORDER BY ${compiled.order}) ` +
      `TO ${literal(file)} (FORMAT csv, HEADER false, NEW_LINE '\\r\\n')`,
    params: { ...compiled.params, ...range?.params }
  }
}

/** Bytes a file is read by; above the socket's high-water mark (16 KiB), see fileChunks. */
const CHUNK_BYTES = 64 * 1024

/**
 * Reads a written range's file to the end, then removes it, into two buffers used in turn.
 * Buffers read anew for every chunk stay allocated until V8 collects them, which it puts off
 * until tens of MiB are garbage; texts instead fill V8's young generation (the process grew
 * by 83–120 MiB, then 40–74 MiB that way). A full buffer is reused safely: the response writer
 * (effect's Node server) waits for the socket's `drain` before it asks for the next chunk when
 * a write returns false, which a chunk larger than the socket's high-water mark always does,
 * and `drain` comes once every byte before it was handed to the system. A shorter chunk (a
 * file's end) may still be queued when the next is read: it is copied.
 */
async function* fileChunks(file: string, buffers: ReadonlyArray<Buffer>): AsyncGenerator<Uint8Array> {
  const handle = await fs.promises.open(file, "r")
  try {
    for (let turn = 0; ; turn++) {
      const buffer = buffers[turn % buffers.length]!
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null)
      if (bytesRead === 0) return
      yield bytesRead === buffer.length ? buffer : Buffer.from(buffer.subarray(0, bytesRead))
    }
  } finally {
    await handle.close()
    fs.rmSync(file, { force: true })
  }
}

/**
 * The ranges' files in order: the next range is written while the one before is sent, so
 * DuckDB and the socket work at once; at most two files exist at a time.
 */
async function* rangeChunks(exporter: RangedExport, prepared: PreparedExport, exportDir: string, files: Set<string>): AsyncGenerator<Uint8Array> {
  const ranges = await exporter.ranges()
  // Read in one statement (summary rows, or at most a range's rows), an export converts each
  // datetime: the periods' extra scan (the aggregate again, for summary rows) and their search (up
  // to a tenth of a second over decades of DST) cost more than converting that many values.
  const zones = ranges.length > 1 && !exporter.cancelled ? await columnZones(prepared, (statement) => exporter.run(statement)) : []
  const buffers = [Buffer.allocUnsafe(CHUNK_BYTES), Buffer.allocUnsafe(CHUNK_BYTES)]
  const name = randomUUID()
  const write = async (j: number) => {
    const file = path.join(exportDir, `${name}-${j}.csv`)
    files.add(file)
    await exporter.run(csvCopySql(prepared, file, ranges[j], zones))
    recordExportStatement()
    return file
  }
  let next: Promise<string> | undefined = write(0)
  for (let j = 0; next !== undefined; j++) {
    const file: string = await next
    next = j + 1 < ranges.length && !exporter.cancelled ? write(j + 1) : undefined
    // A failed write of the next range is seen when it is awaited, not as unhandled meanwhile.
    next?.catch(() => {})
    yield* fileChunks(file, buffers)
    files.delete(file)
  }
  exporter.finish()
  recordReportExport("csv", "completed")
}

export const csvResponse = Effect.fn("Reports.exportCsv")(function* (
  resource: string,
  prepared: PreparedExport,
  exportDir: string,
  headers: Record<string, string>,
  rangeRows: number = RANGE_ROWS
) {
  const { compiled } = prepared
  const exporter = new RangedExport(prepared.connection, compiled, compiled.orderColumns, rangeRows)
  const files = new Set<string>()
  yield* Effect.addFinalizer(() => Effect.sync(() => files.forEach((file) => fs.rmSync(file, { force: true }))))
  yield* stopWithRequest(exporter, "csv")
  const header = Buffer.from(csvLine(prepared.fields.map((field) => field.name)), "utf8")
  const rows = Stream.fromAsyncIterable(rangeChunks(exporter, prepared, exportDir, files), (error) => error).pipe(Stream.orDie)
  return HttpServerResponse.stream(Stream.concat(Stream.succeed(header as Uint8Array), rows), {
    status: 200,
    headers: { ...headers, "content-disposition": disposition(resource, prepared.dataAsOf, "csv") },
    contentType: `${CSV}; charset=utf-8; header=present`
  })
})
