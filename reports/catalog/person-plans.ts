import {
  type ColumnDef,
  type ResourceCatalog,
  byName,
  column,
  commonDetail,
  commonGroupings,
  commonSummary,
  countTrue,
  dateBuckets,
  summary
} from "./types.ts"

/**
 * Person plans (`person_plans`): passes and plans available for use or on hold, one row per
 * plan and holder (reports/sync/tables/person-plans.ts). Fields whose data the Core API does
 * not hold are null there (cancellation fees charged, latest invoice, primary staff name);
 * `is_deleted` is null for every record, as the spec says.
 */
export const PLAN_TYPES = ["late_cancellation_fee", "membership", "pack", "prepaid", "single_visit_pass"] as const
export const NEXT_PLAN_TYPES = ["membership", "not_applicable", "pack", "prepaid", "single_visit_pass"] as const
export const INVOICE_INTERVAL_UNITS = ["monthly", "not_applicable", "weekly", "yearly"] as const
const WEEKDAYS = ["0", "1", "2", "3", "4", "5", "6"] as const

const dateOf = (at: string) => `CAST(${at} AS DATE)`
const dayOf = (at: string) => `CAST(dayofweek(${at}) AS VARCHAR)`
const timeOf = (at: string) => `CAST(${at} AS TIME)`
const daysBetween = (from: string, to: string) => `date_diff('day', ${from}, ${to})`

const firstVisit = dateOf("r.first_visit_at")
const lastVisit = dateOf("r.last_visit_at")

const detail = byName<ColumnDef>([
  ...commonDetail({ currency: true }),
  column("account_manager_emails", "string"),
  column("account_manager_names", "string"),
  column("account_manager_phones", "string"),
  column("allowed_visit_count", "integer"),
  column("are_visits_shared", "boolean"),
  column("base_price", "currency"),
  column("canceled_at", "datetime"),
  column("canceled_by", "string"),
  column("canceled_by_account_id", "integer"),
  column("cancellation_fee_amount", "currency"),
  column("charged_cancellation_fee_amount", "currency"),
  column("commitment_length", "integer"),
  column("completed_visit_count", "integer"),
  column("deactivated_at", "datetime"),
  column("email", "string"),
  column("end_date", "date"),
  column("exhausted_at", "datetime"),
  column("first_name", "string"),
  column("first_visit_date", "date", firstVisit),
  column("first_visit_day", "enum", dayOf("r.first_visit_at"), WEEKDAYS),
  column("first_visit_instructor_names", "string"),
  column("first_visit_time", "time", timeOf("r.first_visit_at")),
  column("first_visit_to_next_plan", "integer", daysBetween(firstVisit, "r.next_plan_start_date")),
  column("full_name", "string"),
  column("grants_membership", "boolean"),
  column("has_cancellation_fee", "boolean"),
  column("home_location_name", "string"),
  column("invoice_interval_count", "integer"),
  column("invoice_interval_unit", "enum", "r.invoice_interval_unit", INVOICE_INTERVAL_UNITS),
  column("is_available", "boolean"),
  column("is_canceled", "boolean"),
  column("is_cancellation_fee_charged", "boolean"),
  column("is_complimentary_pass", "boolean"),
  column("is_deactivated", "boolean"),
  column("is_deleted", "boolean", "CAST(NULL AS BOOLEAN)"),
  column("is_ended", "boolean"),
  column("is_exhausted", "boolean"),
  column("is_first_membership", "boolean"),
  column("is_first_plan", "boolean"),
  column("is_last_hold_indefinite", "boolean"),
  column("is_on_hold", "boolean"),
  column("is_primary_participant", "boolean"),
  column("last_hold_by", "string"),
  column("last_hold_by_account_id", "integer"),
  column("last_hold_end_date", "date"),
  column("last_hold_start_date", "date"),
  column("last_name", "string"),
  column("last_usable_date", "date"),
  column("last_visit_date", "date", lastVisit),
  column("last_visit_day", "enum", dayOf("r.last_visit_at"), WEEKDAYS),
  column("last_visit_time", "time", timeOf("r.last_visit_at")),
  column("last_visit_to_next_plan", "integer", daysBetween(lastVisit, "r.next_plan_start_date")),
  column("latest_invoice_autobill", "boolean"),
  column("latest_invoice_due_date", "date"),
  column("latest_invoice_item_amount", "currency"),
  column("latest_invoice_past_due", "boolean"),
  column("lifetime_used_visit_count", "integer"),
  column("middle_name", "string"),
  column("next_plan_grants_membership", "boolean"),
  column("next_plan_id", "integer"),
  column("next_plan_name", "string"),
  column("next_plan_revenue_category", "string"),
  column("next_plan_start_date", "date"),
  column("next_plan_type", "enum", "r.next_plan_type", NEXT_PLAN_TYPES),
  column("person_id", "integer"),
  column("person_plan_id", "integer"),
  column("plan_id", "integer"),
  column("plan_location_id", "integer"),
  column("plan_location_name", "string"),
  column("plan_name", "string"),
  column("plan_product_id", "integer"),
  column("plan_type", "enum", "r.plan_type", PLAN_TYPES),
  column("primary_staff_name", "string"),
  column("product_id", "integer"),
  column("product_name", "string"),
  column("remaining_commitment", "integer"),
  column("remaining_visit_count", "integer"),
  column("revenue_category", "string"),
  column("rollover_count", "integer"),
  column("start_date", "date"),
  column("start_date_to_first_visit", "integer", daysBetween("r.start_date", firstVisit)),
  column("start_date_to_next_plan", "integer", daysBetween("r.start_date", "r.next_plan_start_date")),
  column("stop_renewing_after_commitment", "boolean"),
  // Further fields (compatibility.md).
  column("term_acceptance_required", "boolean"),
  column("term_accepted", "boolean"),
  column("used_for_initial_visit", "boolean"),
  column("used_visit_count", "integer"),
  column("visit_refresh_interval_count", "integer"),
  column("visit_refresh_interval_unit", "string")
])
const pick = (name: string): ColumnDef => detail.get(name)!

/**
 * The spec lists no summary fields or groupings for person_plans: a minimal set of counts,
 * sums of visits, and groupings by the plan's kind, name, category, standing and start.
 */
const summaries = [
  ...commonSummary,
  summary("person_plan_count", "integer", "count(*)"),
  summary("person_count", "integer", "count(DISTINCT r.person_id)"),
  summary("plan_count", "integer", "count(DISTINCT r.plan_id)"),
  countTrue("is_available_count", "is_available"),
  countTrue("is_on_hold_count", "is_on_hold"),
  countTrue("is_canceled_count", "is_canceled"),
  countTrue("is_deactivated_count", "is_deactivated"),
  countTrue("is_ended_count", "is_ended"),
  countTrue("is_exhausted_count", "is_exhausted"),
  countTrue("grants_membership_count", "grants_membership"),
  summary("completed_visit_count", "integer", "coalesce(sum(r.completed_visit_count), 0)"),
  summary("lifetime_used_visit_count", "integer", "coalesce(sum(r.lifetime_used_visit_count), 0)")
]

export const personPlansCatalog: ResourceCatalog = {
  resource: "person_plans",
  source: "person_plans",
  businessIdSql: "r.business_id",
  keySql: "r.key",
  keyOrder: ["r.business_id", "r.plan_id", "r.person_id"],
  timeZoneSql: "r.time_zone",
  detail,
  summary: byName(summaries),
  groupings: byName([
    ...commonGroupings,
    ...[
      "grants_membership",
      "is_available",
      "is_canceled",
      "is_on_hold",
      "person_id",
      "plan_name",
      "plan_product_id",
      "plan_type",
      "product_name",
      "revenue_category"
    ].map(pick),
    ...dateBuckets("start_date", "r.start_date")
  ]),
  logical: new Map()
}
