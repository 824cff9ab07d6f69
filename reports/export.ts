import { Effect, Scope, Stream } from "effect"
import { HttpServerResponse } from "effect/http"
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { recordReportExport } from "../src/platform/metrics/exports.ts"
import type { WireType } from "./catalog/types.ts"
import type { PreparedExport } from "./service.ts"
import type { Cancellable } from "./export-ranges.ts"

/**
 * Exports of a report query's whole result, on the query endpoint itself (`Accept`):
 *
 * - CSV (RFC 4180): a header row of the field names, then every row as the JSON pages have it
 *   (the same wire values: cents as integers, booleans `t`/`f`, datetimes with their offset),
 *   written by DuckDB's CSV writer range by range of the export's order into the export folder
 *   and streamed from there (export-csv.ts, export-ranges.ts): memory is a range's.
 *   NULL is an empty field; an empty text is `""`, so the two stay apart. A range is
 *   `start/end` (ISO 8601's interval), a missing end left empty. CRLF line ends, UTF-8, no BOM.
 * - Parquet: written by DuckDB (`COPY … TO … (FORMAT parquet)`) into the process's export
 *   folder, then streamed from the file, which is removed once the response ends.
 *
 * A client that goes away interrupts the request's fiber; the request scope's finalizer then
 * interrupts the DuckDB query (`connection.interrupt()`), waits for it to stop and gives the
 * connection back, and removes the files.
 */

export type ExportFormat = "csv" | "parquet"

export const CSV = "text/csv"
export const PARQUET = "application/vnd.apache.parquet"

/**
 * What `Accept` asks for: JSON (also for no header, `*\/*`, `application/*`), CSV, Parquet, or
 * undefined when none of them is acceptable (406). Media ranges are tried by their `q`, then in
 * the client's order; `q=0` refuses one.
 */
export const negotiate = (accept: string | undefined): "json" | ExportFormat | undefined => {
  if (accept === undefined || accept.trim() === "") return "json"
  const ranges = accept.split(",").flatMap((entry, order) => {
    const [type = "", ...parameters] = entry.split(";").map((part) => part.trim().toLowerCase())
    const q = parameters.find((p) => p.startsWith("q="))
    const weight = q === undefined ? 1 : Number(q.slice(2))
    return type === "" || !(weight > 0) ? [] : [{ type, weight, order }]
  })
  ranges.sort((a, b) => b.weight - a.weight || a.order - b.order)
  for (const { type } of ranges) {
    switch (type) {
      case "*/*":
      case "application/*":
      case "application/json":
      case "application/vnd.api+json":
        return "json"
      case "text/*":
      case "text/csv":
        return "csv"
      case PARQUET:
        return "parquet"
    }
  }
  return undefined
}

/** `<resource>-<data_as_of>.<extension>`, as an attachment. */
export const disposition = (resource: string, dataAsOf: string, extension: string) =>
  `attachment; filename="${`${resource}-${dataAsOf}.${extension}`.replaceAll(/["\\\r\n]/g, "_")}"`

/**
 * Ends the stream when the request ends: a stream that did not finish is interrupted (the
 * client left, or writing failed), counted, and its connection left idle for the next query.
 */
export const stopWithRequest = (rows: Cancellable, format: ExportFormat) =>
  Effect.addFinalizer(() =>
    Effect.promise(async () => {
      if (await rows.cancel()) recordReportExport(format, "cancelled")
    }))

// ---------------------------------------------------------------------------------------------
// Parquet

/**
 * The Parquet file's columns: the field names, each of the DuckDB type of its wire type —
 * cents as BIGINT, datetimes as TIMESTAMPTZ (instants, UTC-adjusted in Parquet), dates DATE,
 * times TIME, booleans BOOLEAN, floats DOUBLE, text and enums VARCHAR; a range stays the list
 * of its two ends. Sums come out of DuckDB as HUGEINT or DECIMAL: the cast keeps the file's
 * schema that of the catalog whatever the aggregate.
 */
const PARQUET_TYPES: Readonly<Record<WireType, string | undefined>> = {
  boolean: "BOOLEAN",
  currency: "BIGINT",
  integer: "BIGINT",
  float: "DOUBLE",
  date: "DATE",
  datetime: "TIMESTAMPTZ",
  time: "TIME",
  enum: "VARCHAR",
  string: "VARCHAR",
  range: undefined
}

const identifier = (name: string) => `"${name.replaceAll('"', '""')}"`

export const parquetCopySql = (prepared: PreparedExport, file: string) => {
  const columns = prepared.fields.map((field, i) => {
    const type = PARQUET_TYPES[field.type]
    return `${type === undefined ? `e.x${i}` : `CAST(e.x${i} AS ${type})`} AS ${identifier(field.name)}`
  })
  // The compiled statement's columns by position: `group_label` then `c0..` for summary rows.
  const source = prepared.summary ? ["group_label", ...prepared.fields.slice(1).map((_, i) => `c${i}`)] : prepared.fields.map((_, i) => `c${i}`)
  return {
    sql: `COPY (SELECT ${columns.join(", ")} FROM (SELECT e.*, ${source.map((c, i) => `${c} AS x${i}`).join(", ")} FROM (${prepared.compiled.sql}) e) e ` +
      `ORDER BY ${prepared.compiled.order}) ` +
      `TO '${file.replaceAll("'", "''")}' (FORMAT parquet)`,
    params: prepared.compiled.params
  }
}

export const parquetResponse = Effect.fn("Reports.exportParquet")(function* (
  resource: string,
  prepared: PreparedExport,
  exportDir: string,
  headers: Record<string, string>
) {
  const file = path.join(exportDir, `${randomUUID()}.parquet`)
  const scope = yield* Scope.Scope
  yield* Scope.addFinalizer(scope, Effect.sync(() => fs.rmSync(file, { force: true })))
  // The COPY runs as a stream of its one summary row, so leaving cancels it as it does a CSV's rows.
  const copy = prepared.connection.stream(parquetCopySql(prepared, file))
  yield* stopWithRequest(copy, "parquet")
  yield* Effect.promise(async () => {
    while ((await copy.next()) !== undefined) {}
  })
  recordReportExport("parquet", "completed")
  const { size } = fs.statSync(file)
  const body = Stream.fromAsyncIterable(fs.createReadStream(file, { highWaterMark: 256 * 1024 }), (error) => error).pipe(
    Stream.map((chunk) => chunk as Uint8Array),
    Stream.orDie
  )
  return HttpServerResponse.stream(body, {
    status: 200,
    headers: { ...headers, "content-disposition": disposition(resource, prepared.dataAsOf, "parquet") },
    contentType: PARQUET,
    contentLength: size
  })
})
