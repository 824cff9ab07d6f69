import { type ColumnDef, type ResourceCatalog, byName, column, commonDetail, commonGroupings, commonSummary, summary, total } from "./types.ts"

/**
 * Monthly business metrics (`monthly_business_metrics`): one row per business per calendar month
 * of its time zone, from the month of its first activity (its creation, a client joining, a
 * session, an invoice falling due, a transaction, a plan starting) to the current month; a month
 * without activity is a row of zeros. Computed in the report store from its other tables
 * (reports/sync/monthly-metrics.ts) at every sync that publishes.
 *
 * Definitions ("in the month": its local dates; "as of": the month's last day, or today in the
 * current month):
 * - Sessions: event occurrences in the month, not canceled or deleted. event_occurrence_count
 *   all of them; appointment_count, class_count, course_count by service type;
 *   attendance_completed_count those with attendance completed; event_occurrence_organizer_count
 *   the distinct staff members (instructors, trainers, organizers) of them.
 * - Enrollments of those sessions (visits and waitlist entries): enrollment_count all; the
 *   `<state>_enrollment_count`s by state; completed_<appointment|class|course>_enrollment_count
 *   completed ones by service type; client_booked_count, first_visit_count where true;
 *   completed_unpaid_count completed and unpaid; client_completed_enrollment_count the distinct
 *   people with a completed enrollment; completed_enrollment_per_client = completed ÷ those
 *   people (0 when none).
 * - Clients: new_client_count people whose client_since_date is in the month; new_staff_count
 *   staff members added in the month.
 * - Plans (person plans as spans from start_date to their last usable date, open-ended when
 *   unlimited; holds are not subtracted): client_w_plan_count the distinct people holding a plan
 *   whose span meets the month up to as-of; new_client_w_plan_count those of them who are new
 *   clients of the month; member_count the distinct people holding a membership-granting plan on
 *   the as-of day; new_member_count people whose first membership-granting plan starts in the
 *   month; plan_start_count plans starting in the month (a shared plan once), membership_count,
 *   pack_count (packs and single visit passes), prepaid_count the same by type;
 *   plan_end_count plans whose last usable date is in the month, up to as-of.
 * - Invoices, from the invoices resource by the month they fall due (invoice_due_date):
 *   due_invoice_count and expected_amount the invoices not canceled; outstanding_amount (as of
 *   the sync) of all of them.
 * - Money moved, from the invoice_item_transactions resource by the local month of the
 *   transaction (a refund in the month it was made, not its payment's): payments_amount,
 *   refunds_amount, net_paid_amount and net_paid_revenue_amount the sums of its settled rows, so
 *   a month equals that resource's totals for the same month; failed_transaction_count the
 *   distinct failed payments and refunds by the month they failed.
 *   net_paid_<pass|prepaid|recurring|retail>_revenue_amount split net_paid_revenue_amount by the
 *   item's product_type: pass, prepaid, recurring as they are; a signup fee as its plan product's
 *   kind (read off that product's plan items); retail is 0 (the Core API sells no retail yet);
 *   recurring also takes what is none of the others (tips, unknown plans), so the four always
 *   add up to net_paid_revenue_amount.
 */

const count = (name: string) => column(name, "integer")
const currency = (name: string) => column(name, "currency")

const detail = byName<ColumnDef>([
  ...commonDetail({ currency: true }),
  ...[
    "appointment_count",
    "attendance_completed_count",
    "class_count",
    "client_booked_count",
    "client_completed_enrollment_count",
    "client_w_plan_count",
    "completed_appointment_enrollment_count",
    "completed_class_enrollment_count",
    "completed_course_enrollment_count",
    "completed_enrollment_count"
  ].map(count),
  column("completed_enrollment_per_client", "float"),
  ...["completed_unpaid_count", "course_count", "due_invoice_count", "enrollment_count", "event_occurrence_count", "event_occurrence_organizer_count"].map(count),
  currency("expected_amount"),
  ...["expired_enrollment_count", "failed_transaction_count", "first_visit_count", "late_canceled_enrollment_count", "member_count", "membership_count"].map(
    count
  ),
  column("month_start_date", "date"),
  ...[
    "net_paid_amount",
    "net_paid_pass_revenue_amount",
    "net_paid_prepaid_revenue_amount",
    "net_paid_recurring_revenue_amount",
    "net_paid_retail_revenue_amount",
    "net_paid_revenue_amount"
  ].map(currency),
  ...["new_client_count", "new_client_w_plan_count", "new_member_count", "new_staff_count", "noshowed_enrollment_count"].map(count),
  currency("outstanding_amount"),
  count("pack_count"),
  currency("payments_amount"),
  ...["plan_end_count", "plan_start_count", "prepaid_count"].map(count),
  currency("refunds_amount"),
  ...["registered_enrollment_count", "removed_enrollment_count", "reserved_enrollment_count", "waiting_enrollment_count"].map(count)
])

/** An integer average over the group's months (rounded half away from zero). */
const average = (name: string, field: string) => summary(name, "integer", `CAST(coalesce(round(avg(r.${field})), 0) AS BIGINT)`)

export const monthlyBusinessMetricsCatalog: ResourceCatalog = {
  resource: "monthly_business_metrics",
  source: "monthly_business_metrics",
  businessIdSql: "r.business_id",
  keySql: "r.key",
  keyOrder: ["r.business_id", "r.month_start_date"],
  timeZoneSql: "r.time_zone",
  detail,
  summary: byName([
    ...commonSummary,
    average("avg_client_completed_enrollment_count", "client_completed_enrollment_count"),
    average("avg_client_w_plan_count", "client_w_plan_count"),
    average("avg_member_count", "member_count"),
    summary("monthly_business_count", "integer", "count(*)"),
    ...[
      "attendance_completed_count",
      "completed_enrollment_count",
      "enrollment_count",
      "event_occurrence_count",
      "first_visit_count",
      "new_client_count",
      "new_client_w_plan_count",
      "new_member_count"
    ].map((name) => total(`total_${name}`, "integer", name)),
    ...["net_paid_amount", "net_paid_revenue_amount", "payments_amount", "refunds_amount"].map((name) => total(`total_${name}`, "currency", name))
  ]),
  groupings: byName([
    ...commonGroupings,
    column("currency_code", "string"),
    column("quarter_start_date", "date", "CAST(date_trunc('quarter', r.month_start_date) AS DATE)"),
    column("year_start_date", "date", "CAST(date_trunc('year', r.month_start_date) AS DATE)")
  ]),
  logical: new Map()
}
