/**
 * Wall-clock time in a named (IANA) time zone, for the schedule: recurring classes happen at
 * 09:00 local time whatever the offset that day, "today" is the business's today, and an
 * availability date is a location's date. Dates are `YYYY-MM-DD` strings and times `HH:MM`
 * (or `HH:MM:SS`); instants are epoch milliseconds. Pure functions: callers read "now" from
 * Effect's Clock.
 */

export interface LocalDateTime {
  readonly date: string
  /** Minutes since local midnight, 0..1439. */
  readonly minutes: number
}

const formatters = new Map<string, Intl.DateTimeFormat>()
const formatterOf = (timeZone: string): Intl.DateTimeFormat => {
  let formatter = formatters.get(timeZone)
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit"
    })
    if (formatters.size < 1_000) formatters.set(timeZone, formatter)
  }
  return formatter
}

const pad = (n: number, width = 2) => String(n).padStart(width, "0")

interface Fields {
  readonly year: number
  readonly month: number
  readonly day: number
  readonly hour: number
  readonly minute: number
  readonly second: number
}

const intlFieldsAt = (instant: number, timeZone: string): Fields => {
  const parts: Record<string, number> = {}
  for (const part of formatterOf(timeZone).formatToParts(new Date(instant))) {
    if (part.type !== "literal") parts[part.type] = Number(part.value)
  }
  return {
    year: parts["year"]!,
    month: parts["month"]!,
    day: parts["day"]!,
    hour: parts["hour"]! % 24,
    minute: parts["minute"]!,
    second: parts["second"]!
  }
}

const floorSecond = (instant: number) => instant - (((instant % 1000) + 1000) % 1000)

const intlOffsetAt = (instant: number, timeZone: string): number => {
  const f = intlFieldsAt(instant, timeZone)
  const wall = utcMillis(f.year, f.month - 1, f.day, f.hour * 60 + f.minute) + f.second * 1000
  return wall - floorSecond(instant)
}

const DAY_MS = 86_400_000

/**
 * `Date.UTC(year, monthIndex, day) + minutes`, without Date.UTC's rule that reads years 0–99 as
 * 1900–1999 (`0001-01-03` stays year 1). Months and days past their end roll over as in Date.UTC.
 */
export const utcMillis = (year: number, monthIndex: number, day: number, minutes = 0): number => {
  const date = new Date(0)
  date.setUTCFullYear(year, monthIndex, day)
  return date.getTime() + minutes * 60_000
}

/**
 * Offsets by zone and UTC day, for days whose offset is the same at their first and last second
 * (a zone changes its offset a few times a year at most, never twice in a day): a report page
 * formats a hundred instants, and Intl takes microseconds for each.
 */
const dayOffsets = new Map<string, number>()

/** The zone's offset from UTC at an instant, in milliseconds (positive east of Greenwich). */
export const offsetAt = (instant: number, timeZone: string): number => {
  const day = Math.floor(instant / DAY_MS)
  const key = `${day} ${timeZone}`
  const known = dayOffsets.get(key)
  if (known !== undefined) return known
  const offset = intlOffsetAt(day * DAY_MS, timeZone)
  // The day of a change: the instant's own offset, not kept.
  if (intlOffsetAt(day * DAY_MS + DAY_MS - 1000, timeZone) !== offset) return intlOffsetAt(instant, timeZone)
  if (dayOffsets.size >= 100_000) dayOffsets.clear()
  dayOffsets.set(key, offset)
  return offset
}

/**
 * The fields of a wall-clock time given as UTC milliseconds (second precision), computed from
 * its days since 1970 in the proleptic Gregorian calendar (H. Hinnant's civil_from_days), as
 * Date's UTC getters answer them in half the time (a report page writes a hundred datetimes).
 */
const wallFields = (wallMs: number): Fields => {
  const days = Math.floor(wallMs / DAY_MS)
  const seconds = Math.floor((wallMs - days * DAY_MS) / 1000)
  const z = days + 719_468
  const era = Math.floor(z / 146_097)
  const dayOfEra = z - era * 146_097
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365)
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100))
  const shiftedMonth = Math.floor((5 * dayOfYear + 2) / 153)
  const month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
  return {
    year: yearOfEra + era * 400 + (month <= 2 ? 1 : 0),
    month,
    day: dayOfYear - Math.floor((153 * shiftedMonth + 2) / 5) + 1,
    hour: Math.floor(seconds / 3600),
    minute: Math.floor(seconds / 60) % 60,
    second: seconds % 60
  }
}

const TWO_DIGITS = Array.from({ length: 100 }, (_, n) => pad(n))

/** `Z`, `-07:00`, `+05:45` by offset in milliseconds (a handful in use). */
const offsetTexts = new Map<number, string>()
const offsetText = (offsetMs: number): string => {
  let text = offsetTexts.get(offsetMs)
  if (text === undefined) {
    const offset = Math.round(offsetMs / 60_000)
    text = offset === 0 ? "Z" : `${offset < 0 ? "-" : "+"}${pad(Math.floor(Math.abs(offset) / 60))}:${pad(Math.abs(offset) % 60)}`
    if (offsetTexts.size < 1_000) offsetTexts.set(offsetMs, text)
  }
  return text
}

/**
 * `2015-07-06T09:30:00-07:00`: the wall time of an instant in `timeZone`, with its offset
 * (second precision). Throws a RangeError for an unknown zone.
 */
export const formatZoned = (instant: number, timeZone: string): string => {
  const offsetMs = offsetAt(instant, timeZone)
  const f = wallFields(instant + offsetMs)
  return `${pad(f.year, 4)}-${TWO_DIGITS[f.month]}-${TWO_DIGITS[f.day]}T${TWO_DIGITS[f.hour]}:${TWO_DIGITS[f.minute]}:${TWO_DIGITS[f.second]}${offsetText(offsetMs)}`
}

/** The local date and minute of the day of an instant. */
export const localAt = (instant: number, timeZone: string): LocalDateTime => {
  const f = wallFields(instant + offsetAt(instant, timeZone))
  return { date: `${pad(f.year, 4)}-${pad(f.month)}-${pad(f.day)}`, minutes: f.hour * 60 + f.minute }
}

/** The local date of an instant. */
export const localDateAt = (instant: number, timeZone: string): string => localAt(instant, timeZone).date

const parseDate = (date: string): { y: number; m: number; d: number } => {
  const [y, m, d] = date.split("-").map(Number)
  return { y: y!, m: m!, d: d! }
}

/** `HH:MM` or `HH:MM:SS` → minutes since midnight (seconds dropped). */
export const minutesOf = (time: string): number => {
  const [h, m] = time.split(":").map(Number)
  return h! * 60 + m!
}

/** Minutes since midnight → `HH:MM`. */
export const timeOf = (minutes: number): string => `${pad(Math.floor(minutes / 60))}:${pad(minutes % 60)}`

/**
 * The instant a wall-clock time happens in a zone. Like Temporal's "compatible"
 * disambiguation: a time skipped by a spring-forward gap moves forward by the gap (02:30
 * becomes 03:30), a time repeated by a fall-back overlap is the earlier of the two.
 * `minutes` may exceed a day (1440 + 30 is 00:30 on the next date).
 */
export const instantOf = (date: string, minutes: number, timeZone: string): number => {
  const { y, m, d } = parseDate(date)
  const wall = utcMillis(y, m - 1, d, minutes)
  const before = offsetAt(wall - DAY_MS, timeZone)
  const after = offsetAt(wall + DAY_MS, timeZone)
  const earlier = wall - before
  const later = wall - after
  const fits = (candidate: number) => {
    const local = localAt(candidate, timeZone)
    return utcMillis(...dateParts(local.date), local.minutes) === wall
  }
  const candidates = [Math.min(earlier, later), Math.max(earlier, later)].filter(fits)
  if (candidates.length > 0) return candidates[0]!
  // In a gap: the offset in force before the transition puts the time after it.
  return earlier
}

const dateParts = (date: string): [number, number, number] => {
  const { y, m, d } = parseDate(date)
  return [y, m - 1, d]
}

/** The first instant of a local date (local midnight, or the first time after a gap). */
export const startOfDay = (date: string, timeZone: string): number => instantOf(date, 0, timeZone)

/** The first instant of the next local date: days are half-open intervals. */
export const endOfDay = (date: string, timeZone: string): number => startOfDay(addDays(date, 1), timeZone)

/** Calendar arithmetic on `YYYY-MM-DD` dates. */
export const addDays = (date: string, days: number): string =>
  new Date(utcMillis(...dateParts(date)) + days * DAY_MS).toISOString().slice(0, 10)

/** Whole days from `from` to `to` (negative when `to` is earlier). */
export const daysBetween = (from: string, to: string): number =>
  Math.round((utcMillis(...dateParts(to)) - utcMillis(...dateParts(from))) / DAY_MS)

/** 0 = Sunday .. 6 = Saturday, as PostgreSQL's `extract(dow ...)`. */
export const weekdayOf = (date: string): number => new Date(utcMillis(...dateParts(date))).getUTCDay()

/** The last day of the date's month. */
export const endOfMonth = (date: string): string => {
  const { y, m } = parseDate(date)
  return new Date(utcMillis(y, m, 0)).toISOString().slice(0, 10)
}

/** Whether a `YYYY-MM-DD` string names a real calendar date. */
export const isCalendarDate = (date: string): boolean => {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) return false
  const parsed = new Date(`${date}T00:00:00Z`)
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().startsWith(date)
}

export const WEEKDAYS = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"] as const
export type Weekday = (typeof WEEKDAYS)[number]
