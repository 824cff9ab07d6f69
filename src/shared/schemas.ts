import { Effect, Option, Schema, SchemaIssue, SchemaTransformation } from "effect"
import type { MessageKey } from "./i18n.ts"
import { RequestContext } from "./request-context.ts"
import { instantOf, utcMillis } from "./zoned-time.ts"

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

/** Integer columns are 32-bit: a larger number is a 422 naming its field, not a database error. */
export const MAX_INT = 2_147_483_647

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
 * Timestamps in: ISO 8601 as a Ruby or Rails client writes it (compatibility notes; the
 * public documentation's own example sends `to=2014-09-13T07:00:0Z`). The grammar, exactly:
 *
 *   timestamp := date ("T" | " ") time [fraction] [zone]          (case-insensitive)
 *   date      := YYYY "-" M[M] "-" D[D]                            a real calendar date
 *   time      := h[h] ":" m[m] [":" s[s]]                          0-23, 0-59, 0-59
 *   fraction  := ("." | ",") 1*9 digits                            only after seconds
 *   zone      := [" "] ("Z" | "UTC" | ("+" | "-") hh [[":"] mm])    offsets up to 18:00
 *
 * A timestamp without a zone is a wall-clock time in the business's time zone (UTC on the
 * account-level host), read as Temporal's "compatible" disambiguation does. Anything else
 * (a date alone, words, out-of-range fields, an empty string) is refused.
 */
const timestampIn =
  /^(\d{4})-(\d{1,2})-(\d{1,2})[T ](\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:[.,](\d{1,9}))?)?(?: ?(Z|UTC|[+-]\d{2}(?::?\d{2})?))?$/i

/** The parts of a timestamp, before a time zone is chosen for it. */
export interface TimestampParts {
  readonly date: string
  /** Milliseconds since local midnight of `date`. */
  readonly millis: number
  /** Offset from UTC in minutes, or undefined when the timestamp names no zone. */
  readonly offsetMinutes: number | undefined
}

export const parseTimestampParts = (value: string): TimestampParts | undefined => {
  const match = timestampIn.exec(value.trim())
  if (!match) return undefined
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map((part) => Number(part ?? 0)) as [
    number, number, number, number, number, number
  ]
  if (hour > 23 || minute > 59 || second > 59 || month < 1 || month > 12 || day < 1) return undefined
  const calendar = new Date(utcMillis(year, month - 1, day))
  if (calendar.getUTCMonth() !== month - 1 || calendar.getUTCDate() !== day) return undefined
  const fraction = Math.floor(Number(`0.${match[7] ?? "0"}`) * 1000)
  const millis = ((hour * 60 + minute) * 60 + second) * 1000 + fraction
  const zone = match[8]?.toUpperCase()
  let offsetMinutes: number | undefined
  if (zone === "Z" || zone === "UTC") offsetMinutes = 0
  else if (zone !== undefined) {
    const digits = zone.slice(1).replace(":", "")
    const hours = Number(digits.slice(0, 2))
    const minutes = digits.length > 2 ? Number(digits.slice(2)) : 0
    if (minutes > 59 || hours * 60 + minutes > 18 * 60) return undefined
    offsetMinutes = (zone[0] === "-" ? -1 : 1) * (hours * 60 + minutes)
  }
  return { date: calendar.toISOString().slice(0, 10), millis, offsetMinutes }
}

/** The instant of a timestamp; one without a zone is read in `timeZone`. */
export const parseTimestamp = (value: string, timeZone = "UTC"): Date | undefined => {
  const parts = parseTimestampParts(value)
  if (parts === undefined) return undefined
  if (parts.offsetMinutes !== undefined) {
    return new Date(Date.parse(`${parts.date}T00:00:00Z`) + parts.millis - parts.offsetMinutes * 60_000)
  }
  const minutes = Math.floor(parts.millis / 60_000)
  return new Date(instantOf(parts.date, minutes, timeZone) + (parts.millis - minutes * 60_000))
}

/** Timestamps out: UTC, second precision, with the `Z` designator. */
export const formatTimestamp = (date: Date): string => date.toISOString().replace(/\.\d{3}Z$/, "Z")

/**
 * Every timestamp parameter and body field. A timestamp without a zone needs the business's
 * time zone, which only the request knows: decoding reads it from `RequestContext` (a
 * reference the request pipeline provides before any decoding), so handlers always get an
 * instant and no endpoint has a conversion step of its own to forget.
 */
export const TimestampInput = Schema.String.annotate({
  description:
    "ISO 8601 timestamp: a Z or an offset with or without a colon (2015-07-06T00:00:00-0700); " +
    "without an offset, in the business's time zone. Rails-style lenient forms are accepted: " +
    "one-digit fields (2014-09-13T7:0:0Z), no seconds, a space instead of T (2014-09-13 07:00)."
})
  .check(Schema.makeFilter((s: string) => parseTimestampParts(s) !== undefined, message("field_must_be_timestamp")))
  .pipe(
    Schema.decodeTo(
      Schema.Date,
      SchemaTransformation.transformEffect({
        decode: (s: string) =>
          RequestContext.use((context) =>
            Effect.succeed(
              parseTimestamp(s, Option.match(context.business, { onNone: () => "UTC", onSome: (b) => b.time_zone }))!
            )
          ),
        encode: (date: Date) => Effect.succeed(formatTimestamp(date))
      })
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

/**
 * A list parameter of a query: its comma-delimited text (spec common rule 5), decoded by
 * `text`. The same key repeated (`ids=1&ids=2`, as Python's requests writes a list) is the
 * same list (`1,2`); the array form Ruby, Rails and PHP clients send (`ids[]=1&ids[]=2`,
 * `ids[0]=1`) is folded into the comma form before routing (shared/query-lists.ts). So
 * every list parameter reads the three forms alike, and a value it cannot read is a 400.
 */
export const listParam = <T, RD, RE>(text: Schema.Codec<T, string, RD, RE>, description: string) =>
  Schema.Union([Schema.String, Schema.Array(Schema.String)])
    .annotate({ description: `${description}; also name[]=a&name[]=b, or the name repeated` })
    .pipe(
      Schema.decodeTo(
        text,
        SchemaTransformation.transform<string, string | ReadonlyArray<string>>({
          decode: (value) => (typeof value === "string" ? value : value.join(",")),
          encode: (list) => list
        })
      )
    )

/** Comma-delimited list of ids (`1,2,3`), spec common rule 5. */
export const IdListFromString = listParam(
  Schema.String.check(Schema.isPattern(/^\s*[1-9]\d{0,14}(\s*,\s*[1-9]\d{0,14})*\s*$/, message("field_must_be_positive_integer")))
    .pipe(
      Schema.decodeTo(
        Schema.Array(Schema.Int),
        SchemaTransformation.transform({
          decode: (s: string): ReadonlyArray<number> => s.split(",").map((part) => Number(part.trim())),
          encode: (ids: ReadonlyArray<number>) => ids.join(",")
        })
      ),
      Schema.annotate(message("field_must_be_positive_integer"))
    ),
  "Comma-delimited positive integer ids (1,2,3)"
)

/** A person in a path (`/people/:person_id/...`): an id, or `me` for the caller's own person. */
export const PersonTargetParam = Schema.Union([
  Schema.Literal("me"),
  IdFromString
]).annotate({ description: "A person id, or `me`" })
export type PersonTarget = typeof PersonTargetParam.Type

/**
 * A comma-delimited list of known values (`state`, `service_types`), decoded to the distinct
 * values given; a blank list is `blank`. An unknown value is a 400 naming the allowed ones.
 */
export const ValuesFromString = <const V extends string>(values: ReadonlyArray<V>, blank: ReadonlyArray<V>, description: string) => {
  const Value = Schema.Literals(values)
  const parts = (list: string) => list.split(",").map((part) => part.trim()).filter((part) => part !== "")
  const known = (part: string): part is V => (values as ReadonlyArray<string>).includes(part)
  return listParam(
    Schema.String.check(Schema.makeFilter((list) => parts(list).every(known) || new SchemaIssue.InvalidType(Value.ast, list)))
      .pipe(
        Schema.decodeTo(
          Schema.Array(Value),
          SchemaTransformation.transform({
            decode: (list: string): ReadonlyArray<V> => (list.trim() === "" ? blank : [...new Set(parts(list).filter(known))]),
            encode: (list: ReadonlyArray<V>) => list.join(",")
          })
        )
      ),
    description
  )
}
