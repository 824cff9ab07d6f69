import { Schema, SchemaTransformation } from "effect"
import type { MessageKey } from "./i18n.ts"

/**
 * Field schemas shared by every endpoint. Each carries a `messageKey` annotation: the
 * translated message the error formatter (shared/issues.ts) shows when a value does not fit.
 * Query strings and form bodies deliver strings, JSON bodies numbers and booleans: inputs
 * accept both, outputs are always the JSON type.
 */
const message = (key: MessageKey) => ({ messageKey: key })

const positiveDigits = /^[1-9]\d{0,14}$/

/**
 * A positive integer in a path or query, written in digits. The description sits on the
 * string side, which is what OpenAPI shows for parameters.
 */
export const positiveIntParam = (description: string) =>
  Schema.String.annotate({ description: `${description} (a positive integer, in digits)` })
    .check(Schema.isPattern(positiveDigits, { ...message("field_must_be_positive_integer"), expected: "a positive integer" }))
    .pipe(Schema.decodeTo(Schema.Int, SchemaTransformation.numberFromString))

/** A record id in a path or query. */
export const IdFromString = positiveIntParam("Record id")

/** An integer given as a JSON number or a string of digits (form bodies, lenient clients). */
export const IntInput = Schema.Union([
  Schema.Int,
  Schema.String.check(Schema.isPattern(/^-?\d{1,15}$/)).pipe(Schema.decodeTo(Schema.Int, SchemaTransformation.numberFromString))
]).annotate({ ...message("field_must_be_integer"), description: "An integer (a JSON number, or digits in a string)" })

/** A boolean given as JSON true/false or as a form/query string (`true`, `false`, `1`, `0`, `t`, `f`). */
const truthy = new Set(["true", "1", "t", "yes", "on"])
const falsy = new Set(["false", "0", "f", "no", "off"])
export const BooleanInput = Schema.Union([
  Schema.Boolean,
  Schema.String.check(
    Schema.makeFilter((s: string) => truthy.has(s.toLowerCase()) || falsy.has(s.toLowerCase()))
  ).pipe(
    Schema.decodeTo(
      Schema.Boolean,
      SchemaTransformation.transform({ decode: (s: string) => truthy.has(s.toLowerCase()), encode: (b: boolean) => String(b) })
    )
  )
]).annotate({ ...message("field_must_be_boolean"), description: "true or false" })

/**
 * Timestamps in: ISO 8601 with a `Z` or an offset, with or without a colon
 * (`2015-07-06T00:00:00-0700`, spec compatibility notes).
 */
const timestampIn = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)(Z|[+-]\d{2}(?::?\d{2})?)$/i
export const parseTimestamp = (value: string): Date | undefined => {
  const match = timestampIn.exec(value.trim())
  if (!match) return undefined
  let offset = match[3]!.toUpperCase()
  if (offset !== "Z") {
    const sign = offset[0]
    const hhmm = offset.slice(1).replace(":", "")
    offset = `${sign}${hhmm.slice(0, 2)}:${hhmm.length > 2 ? hhmm.slice(2) : "00"}`
  }
  const date = new Date(`${match[1]}T${match[2]}${offset}`)
  return Number.isNaN(date.getTime()) ? undefined : date
}

/** Timestamps out: UTC, second precision, with the `Z` designator. */
export const formatTimestamp = (date: Date): string => date.toISOString().replace(/\.\d{3}Z$/, "Z")

export const TimestampInput = Schema.String.annotate({
  description: "ISO 8601 timestamp with a Z or an offset, with or without a colon (2015-07-06T00:00:00-0700)"
})
  .check(Schema.makeFilter((s: string) => parseTimestamp(s) !== undefined, message("field_must_be_timestamp")))
  .pipe(
    Schema.decodeTo(
      Schema.Date,
      SchemaTransformation.transform({ decode: (s: string) => parseTimestamp(s)!, encode: formatTimestamp })
    ),
    Schema.annotate(message("field_must_be_timestamp"))
  )

/** A timestamp in a response: a UTC ISO 8601 string. */
export const Timestamp = Schema.String.annotate({
  description: "UTC timestamp, ISO 8601 (2015-07-06T07:00:00Z)",
  examples: ["2015-07-06T07:00:00Z"]
})

/** A date (no time) in and out: `YYYY-MM-DD`. */
export const DateString = Schema.String.check(
  Schema.isPattern(/^\d{4}-\d{2}-\d{2}$/, message("field_must_be_date"))
).annotate({ ...message("field_must_be_date"), description: "Date, YYYY-MM-DD" })

/** Comma-delimited list of ids (`1,2,3`), spec common rule 5. */
export const IdListFromString = Schema.String.annotate({ description: "Comma-delimited positive integer ids (1,2,3)" })
  .check(Schema.isPattern(/^\s*[1-9]\d{0,14}(\s*,\s*[1-9]\d{0,14})*\s*$/, message("field_must_be_positive_integer")))
  .pipe(
    Schema.decodeTo(
      Schema.Array(Schema.Int),
      SchemaTransformation.transform({
        decode: (s: string): ReadonlyArray<number> => s.split(",").map((part) => Number(part.trim())),
        encode: (ids: ReadonlyArray<number>) => ids.join(",")
      })
    ),
    Schema.annotate(message("field_must_be_positive_integer"))
  )
