import { ENROLLMENT_STATES, SERVICE_GROUPINGS, distinct, serviceBuckets, serviceColumns, serviceDate } from "./service-fields.ts"
import {
  type ColumnDef,
  type ResourceCatalog,
  byName,
  column,
  commonDetail,
  commonGroupings,
  commonSummary,
  countTrue,
  summary
} from "./types.ts"

/**
 * Enrollments (`enrollments`): one row per visit or waitlist entry of a client, read from
 * visits and waitlist entries; its plan and payment columns come from billing.
 */
export const PAID_WITH_TYPES = ["membership", "pack", "prepaid", "unpaid"] as const

const detail = byName<ColumnDef>([
  ...commonDetail({ currency: true }),
  column("account_manager_emails", "string"),
  column("account_manager_names", "string"),
  column("account_manager_phones", "string"),
  column("address", "string"),
  column("available_plans", "string"),
  column("birthdate", "date"),
  column("bulk_enrolled", "boolean"),
  column("cancelled_at", "datetime"),
  column("cancelled_to_start", "integer", "date_diff('hour', r.cancelled_at, r.start_at)"),
  column("client_booked", "boolean"),
  column("completed_at", "datetime"),
  column("consider_member", "boolean"),
  column("email", "string"),
  column("estimated_amount", "currency"),
  column("first_visit", "boolean"),
  column("full_name", "string"),
  column("home_location_name", "string"),
  column("instructor_names", "string"),
  column("is_paid", "boolean"),
  column("is_rollover", "boolean"),
  column("is_waitlist", "boolean"),
  column("make_up_issued", "boolean"),
  column("noshow_at", "datetime"),
  column("paid_with", "string"),
  column("paid_with_complimentary_pass", "boolean"),
  column("paid_with_type", "enum", "r.paid_with_type", PAID_WITH_TYPES),
  column("person_id", "integer"),
  column("phone", "string"),
  column("plan_id", "integer"),
  column("plan_product_id", "integer"),
  column("primary_staff_name", "string"),
  column("punch_id", "integer"),
  column("punchcard_id", "integer"),
  column("registered_at", "datetime"),
  column("state", "enum", "r.state", ENROLLMENT_STATES),
  column("visit_id", "integer"),
  column("waitlist_id", "integer"),
  column("waitlisted_at", "datetime"),
  ...serviceColumns
])
const pick = (name: string): ColumnDef => detail.get(name)!

const visits = "count(r.visit_id)"
/** Visits not paid for (waitlist entries are not visits). */
const unpaidVisits = "count(r.visit_id) FILTER (WHERE NOT r.is_paid)"

const summaries = [
  ...commonSummary,
  summary("avg_per_visit_amount", "currency", `CAST(round(coalesce(sum(r.estimated_amount) FILTER (WHERE r.visit_id IS NOT NULL), 0) / nullif(${visits}, 0)) AS BIGINT)`),
  summary("total_visits_amount", "currency", "coalesce(sum(r.estimated_amount) FILTER (WHERE r.visit_id IS NOT NULL), 0)"),
  countTrue("client_booked_count", "client_booked"),
  countTrue("consider_member_count", "consider_member"),
  countTrue("first_visit_count", "first_visit"),
  countTrue("is_paid_count", "is_paid"),
  countTrue("is_rollover_count", "is_rollover"),
  countTrue("is_waitlist_count", "is_waitlist"),
  // Each row is one enrollment (key is unique per row): a plain count, not a distinct one over strings.
  summary("enrollment_count", "integer", "count(*)"),
  distinct("event_count", "event_id"),
  distinct("event_occurrence_count", "event_occurrence_id"),
  distinct("person_count", "person_id"),
  distinct("service_count", "service_id"),
  ...ENROLLMENT_STATES.map((state) => summary(`${state}_enrollment_count`, "integer", `count(*) FILTER (WHERE r.state = '${state}')`)),
  summary("total_duration_in_hours", "float", "coalesce(sum(date_diff('minute', r.start_at, r.end_at) / 60.0), 0)"),
  summary("total_duration_in_minutes", "integer", "coalesce(sum(date_diff('minute', r.start_at, r.end_at)), 0)"),
  summary("unpaid_visit_count", "integer", unpaidVisits),
  summary("unpaid_visit_percent", "integer", `CAST(round(100.0 * ${unpaidVisits} / nullif(${visits}, 0)) AS BIGINT)`),
  summary("visit_count", "integer", visits),
  ...[0, 1, 2, 3, 4, 5, 6].map((day) =>
    summary(`weekday_${day}_enrollment_count`, "integer", `count(*) FILTER (WHERE dayofweek(${serviceDate}) = ${day})`))
]

export const enrollmentsCatalog: ResourceCatalog = {
  resource: "enrollments",
  source: "enrollments",
  businessIdSql: "r.business_id",
  keySql: "r.key",
  // Visits and waitlist entries have separate ids: the key tells them apart.
  keyOrder: ["r.business_id", "r.key"],
  timeZoneSql: "r.time_zone",
  detail,
  summary: byName(summaries),
  groupings: byName([
    ...commonGroupings,
    ...[
      "client_booked",
      "consider_member",
      "first_visit",
      "full_name",
      "home_location_name",
      "instructor_names",
      "is_paid",
      "is_rollover",
      "is_waitlist",
      "paid_with",
      "paid_with_complimentary_pass",
      "paid_with_type",
      "person_id",
      "plan_id",
      "plan_product_id",
      "primary_staff_name",
      "punch_id",
      "punchcard_id",
      "state",
      ...SERVICE_GROUPINGS
    ].map(pick),
    ...serviceBuckets
  ]),
  logical: new Map()
}
