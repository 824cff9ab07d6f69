import { addDays, daysBetween, instantOf, minutesOf, weekdayOf } from "../../shared/zoned-time.ts"

/**
 * The dates an event's recurrence produces, and the instants of a session on a date. Pure:
 * the materializer and the event's wire shape (first start, last end) share it.
 */
export interface RecurrenceRule {
  readonly frequency: "once" | "weekly"
  readonly weekdays: ReadonlyArray<number>
  readonly interval_weeks: number
  readonly start_date: string
  readonly end_date: string | null
  readonly session_count: number | null
}

/** Safety bound for schedules without an end: nobody materializes more than ~27 years ahead. */
const MAX_DAYS = 10_000

/**
 * The session dates in `[from, to]` (inclusive local dates), in order. A weekly rule with a
 * `session_count` counts its sessions from `start_date`, so a course keeps the same run
 * whatever window is asked for.
 */
export const sessionDates = (rule: RecurrenceRule, from: string, to: string): ReadonlyArray<string> => {
  if (rule.frequency === "once") return rule.start_date >= from && rule.start_date <= to ? [rule.start_date] : []
  const days = new Set(rule.weekdays)
  if (days.size === 0) return []
  // Weeks run Sunday to Saturday; `interval_weeks` counts from the week of start_date.
  const firstWeekStart = addDays(rule.start_date, -weekdayOf(rule.start_date))
  const last = rule.end_date !== null && rule.end_date < to ? rule.end_date : to
  const dates: Array<string> = []
  let count = 0
  // Counted runs must be walked from the start; otherwise jump near `from`.
  let date = rule.session_count !== null || from <= rule.start_date ? rule.start_date : from
  for (let steps = 0; date <= last && steps < MAX_DAYS; steps++, date = addDays(date, 1)) {
    if (!days.has(weekdayOf(date))) continue
    const week = Math.floor(daysBetween(firstWeekStart, date) / 7)
    if (week % rule.interval_weeks !== 0) continue
    count++
    if (rule.session_count !== null && count > rule.session_count) break
    if (date >= from) dates.push(date)
  }
  return dates
}

/** The first session date, or null when the rule produces none. */
export const firstSessionDate = (rule: RecurrenceRule): string | null =>
  sessionDates(rule, rule.start_date, addDays(rule.start_date, rule.frequency === "once" ? 0 : 7 * rule.interval_weeks + 7))[0] ?? null

/** The last session date; null for a schedule without end (or one that produces none). */
export const lastSessionDate = (rule: RecurrenceRule): string | null => {
  if (rule.frequency === "once") return rule.start_date
  if (rule.end_date === null && rule.session_count === null) return null
  const to = rule.end_date ?? addDays(rule.start_date, Math.min(MAX_DAYS, (rule.session_count ?? 0) * 7 * rule.interval_weeks + 7))
  const dates = sessionDates(rule, rule.start_date, to)
  return dates.length === 0 ? null : dates[dates.length - 1]!
}

/**
 * The start and end instants of the session on a local date. An end time not after the start
 * time ends on the next day (a late-night class).
 */
export const sessionInstants = (
  date: string,
  startTime: string,
  endTime: string,
  timeZone: string
): { readonly startAt: number; readonly endAt: number } => {
  const start = minutesOf(startTime)
  let end = minutesOf(endTime)
  if (end <= start) end += 1440
  const startAt = instantOf(date, start, timeZone)
  let endAt = instantOf(date, end, timeZone)
  // A gap swallowing the end (a class ending 02:30 on a spring-forward night) cannot end before it starts.
  if (endAt <= startAt) endAt = startAt + (end - start) * 60_000
  return { startAt, endAt }
}
