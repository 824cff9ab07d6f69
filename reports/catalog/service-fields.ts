import { type ColumnDef, type SummaryDef, column, dateBuckets, summary, total } from "./types.ts"

/**
 * Fields the scheduling resources (enrollments, event occurrences, their staff members)
 * share: the service and the occurrence's time. A row stores `start_at`/`end_at` as instants
 * and `time_zone` as the event location's zone (the business's without a location); the
 * service date, weekday and time are read in that zone (spec: dates and times are in the time
 * zone of the event location).
 */

export const SERVICE_STATES = ["active", "deleted"] as const
export const SERVICE_TYPES = ["appointment", "course", "group_class"] as const
/** Weekdays as the spec numbers them: 0 is Sunday. */
export const WEEKDAYS = ["0", "1", "2", "3", "4", "5", "6"] as const
export const ENROLLMENT_STATES = [
  "completed",
  "expired",
  "late_canceled",
  "noshowed",
  "registered",
  "removed",
  "reserved",
  "waiting"
] as const

/**
 * The start as a wall-clock time where the occurrence takes place, computed once by the sync
 * (PostgreSQL's `at time zone`): converting per row in DuckDB costs twenty times the query.
 */
const localStart = "r.local_start_at"
export const serviceDate = `CAST(${localStart} AS DATE)`
const durationMinutes = "date_diff('minute', r.start_at, r.end_at)"

/** The service and timing fields of an occurrence, as detail fields (and groupings). */
export const serviceColumns: ReadonlyArray<ColumnDef> = [
  column("duration_in_hours", "float", `(${durationMinutes} / 60.0)`),
  column("duration_in_minutes", "integer", durationMinutes),
  column("end_at", "datetime"),
  column("event_id", "integer"),
  column("event_name", "string"),
  column("event_occurrence_id", "integer"),
  column("service_category", "string"),
  column("service_date", "date", serviceDate),
  column("service_day", "enum", `CAST(dayofweek(${serviceDate}) AS VARCHAR)`, WEEKDAYS),
  column("service_id", "integer"),
  column("service_location_id", "integer"),
  column("service_location_name", "string"),
  column("service_name", "string"),
  column("service_state", "enum", "r.service_state", SERVICE_STATES),
  column("service_time", "time", `CAST(${localStart} AS TIME)`),
  column("service_type", "enum", "r.service_type", SERVICE_TYPES),
  column("start_at", "datetime")
]

export const serviceBuckets = dateBuckets("service", serviceDate)

/** Groupings every scheduling resource has, beyond the common ones. */
export const SERVICE_GROUPINGS = [
  "event_id",
  "event_name",
  "event_occurrence_id",
  "service_category",
  "service_date",
  "service_day",
  "service_id",
  "service_location_id",
  "service_location_name",
  "service_name",
  "service_state",
  "service_time",
  "service_type"
] as const

export const distinct = (name: string, field: string): SummaryDef => summary(name, "integer", `count(DISTINCT r.${field})`)

/** Detail counts of an occurrence and the sums that summarize them (`total_<name>`). */
export const OCCURRENCE_COUNTS = [
  "completed_enrollment_count",
  "completed_unpaid_count",
  "enrollment_count",
  "expired_enrollment_count",
  "is_waitlist_count",
  "late_canceled_enrollment_count",
  "noshowed_enrollment_count",
  "paid_count",
  "registered_enrollment_count",
  "removed_enrollment_count",
  "reserved_enrollment_count",
  "visit_count",
  "waiting_enrollment_count",
  "waitlist_to_visit_count"
] as const

export const occurrenceDetail: ReadonlyArray<ColumnDef> = [
  column("attendance_completed", "boolean"),
  column("capacity", "integer"),
  ...OCCURRENCE_COUNTS.map((name) => column(name, "integer")),
  column("instructor_names", "string"),
  ...serviceColumns
]

export const occurrenceSummary: ReadonlyArray<SummaryDef> = [
  summary("attendance_completed_count", "integer", "count(*) FILTER (WHERE r.attendance_completed)"),
  distinct("event_count", "event_id"),
  distinct("event_occurrence_count", "event_occurrence_id"),
  distinct("service_count", "service_id"),
  total("total_capacity", "integer", "capacity"),
  summary("total_duration_in_hours", "float", `coalesce(sum(${durationMinutes} / 60.0), 0)`),
  summary("total_duration_in_minutes", "integer", `coalesce(sum(${durationMinutes}), 0)`),
  ...OCCURRENCE_COUNTS.map((name) => total(`total_${name}`, "integer", name))
]
