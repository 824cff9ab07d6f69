import { offsetAt } from "../src/shared/zoned-time.ts"

/**
 * A zone's offsets over the instants an export writes, so its datetimes are formatted by
 * arithmetic instead of a time zone conversion per value. DuckDB's `timezone(zone, instant)`
 * asks ICU's calendar for every value (with the offset text built around it, about 3 s of CPU
 * for a million rows' two datetimes: more than COPY spends on the whole row). A zone has a few
 * offsets a year: each of its periods is one constant, the wall time `instant + offset`
 * formatted by `strftime` with the offset's text written into the format, and a value finds its
 * period by comparisons against the transitions (a CASE of a few branches, vectorised).
 */

const DAY_MS = 86_400_000
const WEEK_MS = 7 * DAY_MS

/** Beyond these, a column keeps DuckDB's conversion (decades of DST: a deep CASE; a century of weeks: a long search). */
const MAX_PERIODS = 64
const MAX_SPAN_MS = 100 * 365 * DAY_MS

/** From `from` (epoch ms; the first period from the span's start) on, the zone's offset in ms. */
export interface ZonePeriod {
  readonly from: number
  readonly offsetMs: number
}

/** The first instant in (lo, hi] (whole seconds) whose offset is not `before`'s, by bisection. */
const transitionIn = (lo: number, hi: number, before: number, zone: string): number => {
  while (hi - lo > 1000) {
    const mid = lo + Math.floor((hi - lo) / 2000) * 1000
    if (offsetAt(mid, zone) === before) lo = mid
    else hi = mid
  }
  return hi
}

/**
 * The periods of `zone` between two instants (epoch ms), as the JSON pages' offsetAt gives them,
 * or undefined when there are too many (or the zone is unknown): the caller then converts each
 * value in DuckDB. Offsets are sampled a week apart and every day of a week whose ends differ:
 * no zone changes its offset twice in a week.
 */
export const zonePeriods = (zone: string, fromMs: number, toMs: number): ReadonlyArray<ZonePeriod> | undefined => {
  if (!(toMs >= fromMs) || toMs - fromMs > MAX_SPAN_MS) return undefined
  const from = Math.floor(fromMs / 1000) * 1000
  try {
    const periods: Array<ZonePeriod> = [{ from, offsetMs: offsetAt(from, zone) }]
    for (let weekStart = from; weekStart < toMs; weekStart += WEEK_MS) {
      const weekEnd = Math.min(weekStart + WEEK_MS, Math.ceil(toMs / 1000) * 1000)
      if (offsetAt(weekEnd, zone) === periods[periods.length - 1]!.offsetMs) continue
      for (let dayStart = weekStart; dayStart < weekEnd; dayStart += DAY_MS) {
        const dayEnd = Math.min(dayStart + DAY_MS, weekEnd)
        const before = periods[periods.length - 1]!.offsetMs
        if (offsetAt(dayEnd, zone) === before) continue
        const at = transitionIn(dayStart, dayEnd, before, zone)
        periods.push({ from: at, offsetMs: offsetAt(at, zone) })
        if (periods.length > MAX_PERIODS) return undefined
      }
    }
    return periods
  } catch {
    // An unknown zone (a RangeError from Intl): DuckDB's conversion decides, as before.
    return undefined
  }
}

/** `Z`, `-07:00`, `+05:45`: an offset as zoned-time.ts `formatZoned` writes it (rounded to the minute). */
export const offsetText = (offsetMs: number): string => {
  const minutes = Math.round(offsetMs / 60_000)
  if (minutes === 0) return "Z"
  const pad = (n: number) => String(n).padStart(2, "0")
  return `${minutes < 0 ? "-" : "+"}${pad(Math.floor(Math.abs(minutes) / 60))}:${pad(Math.abs(minutes) % 60)}`
}

/**
 * A datetime's JSON text by its periods: `micros` its epoch microseconds (BIGINT, not NULL).
 * The CASE halves the periods at each level, so a value meets log2(periods) comparisons.
 */
export const periodsSql = (micros: string, periods: ReadonlyArray<ZonePeriod>): string => {
  const leaf = ({ offsetMs }: ZonePeriod) =>
    `strftime(make_timestamp(${micros} + ${offsetMs * 1000}), '%Y-%m-%dT%H:%M:%S${offsetText(offsetMs)}')`
  const tree = (lo: number, hi: number): string => {
    if (hi - lo === 1) return leaf(periods[lo]!)
    const mid = (lo + hi) >> 1
    return `CASE WHEN ${micros} < ${periods[mid]!.from * 1000} THEN ${tree(lo, mid)} ELSE ${tree(mid, hi)} END`
  }
  return tree(0, periods.length)
}
