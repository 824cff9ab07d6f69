/**
 * monthly_business_metrics is computed inside DuckDB from the other tables of the report store
 * (no PostgreSQL extraction of its own): rebuilt whole at the end of every full rebuild and of
 * every incremental refresh that publishes a new generation, in the same file. The fields'
 * definitions are in reports/catalog/monthly-business-metrics.ts.
 *
 * Months: one row per business per calendar month of its time zone, from the month of its first
 * activity (the earliest of its creation, a client joining, a session, an invoice's due date, a
 * transaction, a plan's start) to the month of the sync, every month in between included (a month with no
 * activity is a row of zeros, so averages count it).
 *
 * `now` is the sync's instant (the store's "today" of each business).
 */
export const MONTHLY_METRICS_TABLE = "monthly_business_metrics"

export const monthlyMetricsSql = (now: string, scope = "true") => {
  /** A store table restricted to the businesses in scope (a subquery, inlined by DuckDB). */
  const from = (table: string, alias = table) => `(SELECT * FROM ${table} WHERE ${scope}) AS ${alias}`
  return `
WITH biz AS (
  SELECT b.*, CAST(timezone(b.time_zone, CAST('${now}' AS TIMESTAMPTZ)) AS DATE) AS today FROM ${from("metrics_businesses", "b")}),
-- Sessions and enrollments count when the session is not canceled or deleted, in its month.
occ AS (
  SELECT business_id, CAST(date_trunc('month', local_start_at) AS DATE) AS m, * EXCLUDE (business_id)
  FROM ${from("event_occurrences")} WHERE service_state = 'active'),
enr AS (
  SELECT business_id, CAST(date_trunc('month', local_start_at) AS DATE) AS m, * EXCLUDE (business_id)
  FROM ${from("enrollments")} WHERE service_state = 'active'),
org AS (
  SELECT business_id, CAST(date_trunc('month', local_start_at) AS DATE) AS m, person_id
  FROM ${from("event_occurrence_staff_members")} WHERE service_state = 'active'),
-- Plans as dated spans: from start_date to the last usable date (end, exhaustion, deactivation;
-- open-ended when none); one plan shared by several holders has a row per holder.
plan AS (
  SELECT business_id, person_id, plan_id, plan_type, grants_membership, start_date,
         coalesce(last_usable_date, end_date) AS last_date
  FROM ${from("person_plans")}),
first_activity AS (
  SELECT business_id, min(d) AS d FROM (
    SELECT business_id, created_date AS d FROM ${from("metrics_businesses")}
    UNION ALL SELECT business_id, client_since_date FROM ${from("clients")} WHERE client_since_date IS NOT NULL
    UNION ALL SELECT business_id, CAST(local_start_at AS DATE) FROM ${from("event_occurrences")}
    UNION ALL SELECT business_id, invoice_due_date FROM ${from("invoices")} WHERE invoice_due_date IS NOT NULL
    UNION ALL SELECT business_id, CAST(coalesce(local_transaction_at, local_failed_at) AS DATE) FROM ${from("invoice_item_transactions")}
    UNION ALL SELECT business_id, start_date FROM ${from("person_plans")})
  GROUP BY 1),
months AS (
  SELECT b.*, CAST(mm AS DATE) AS m,
         CAST(mm + INTERVAL 1 MONTH - INTERVAL 1 DAY AS DATE) AS month_end,
         -- The day "at month end" is read: the month's last day, or today in the current month.
         least(CAST(mm + INTERVAL 1 MONTH - INTERVAL 1 DAY AS DATE), b.today) AS as_of
  FROM biz b JOIN first_activity f USING (business_id)
  CROSS JOIN LATERAL (
    SELECT unnest(generate_series(CAST(date_trunc('month', least(f.d, b.today)) AS TIMESTAMP),
                                  CAST(date_trunc('month', b.today) AS TIMESTAMP), INTERVAL 1 MONTH)) AS mm) t),
occ_m AS (
  SELECT business_id, m,
         count(*) AS event_occurrence_count,
         count(*) FILTER (WHERE service_type = 'appointment') AS appointment_count,
         count(*) FILTER (WHERE service_type = 'group_class') AS class_count,
         count(*) FILTER (WHERE service_type = 'course') AS course_count,
         count(*) FILTER (WHERE attendance_completed) AS attendance_completed_count
  FROM occ GROUP BY 1, 2),
org_m AS (SELECT business_id, m, count(DISTINCT person_id) AS event_occurrence_organizer_count FROM org GROUP BY 1, 2),
enr_m AS (
  SELECT business_id, m,
         count(*) AS enrollment_count,
         count(*) FILTER (WHERE client_booked) AS client_booked_count,
         count(*) FILTER (WHERE first_visit) AS first_visit_count,
         count(*) FILTER (WHERE state = 'completed') AS completed_enrollment_count,
         count(*) FILTER (WHERE state = 'completed' AND service_type = 'appointment') AS completed_appointment_enrollment_count,
         count(*) FILTER (WHERE state = 'completed' AND service_type = 'group_class') AS completed_class_enrollment_count,
         count(*) FILTER (WHERE state = 'completed' AND service_type = 'course') AS completed_course_enrollment_count,
         count(*) FILTER (WHERE state = 'completed' AND NOT is_paid) AS completed_unpaid_count,
         count(DISTINCT person_id) FILTER (WHERE state = 'completed') AS client_completed_enrollment_count,
         count(*) FILTER (WHERE state = 'expired') AS expired_enrollment_count,
         count(*) FILTER (WHERE state = 'late_canceled') AS late_canceled_enrollment_count,
         count(*) FILTER (WHERE state = 'noshowed') AS noshowed_enrollment_count,
         count(*) FILTER (WHERE state = 'registered') AS registered_enrollment_count,
         count(*) FILTER (WHERE state = 'removed') AS removed_enrollment_count,
         count(*) FILTER (WHERE state = 'reserved') AS reserved_enrollment_count,
         count(*) FILTER (WHERE state = 'waiting') AS waiting_enrollment_count
  FROM enr GROUP BY 1, 2),
new_clients AS (
  SELECT business_id, CAST(date_trunc('month', client_since_date) AS DATE) AS m, person_id
  FROM ${from("clients")} WHERE client_since_date IS NOT NULL),
new_m AS (SELECT business_id, m, count(*) AS new_client_count FROM new_clients GROUP BY 1, 2),
staff_m AS (
  SELECT business_id, CAST(date_trunc('month', added_date) AS DATE) AS m, count(*) AS new_staff_count
  FROM ${from("metrics_staff")} GROUP BY 1, 2),
-- Each plan once per month its span meets, up to today (plans not started yet: none); each
-- month of a span has the plan's start on or before its as-of day and its end on or after its
-- first day, so "held in the month" is a row here.
span AS (
  SELECT p.business_id, p.person_id, p.grants_membership, p.last_date, CAST(t.mm AS DATE) AS m
  FROM plan p JOIN biz b ON b.business_id = p.business_id
  CROSS JOIN LATERAL (
    SELECT unnest(generate_series(CAST(date_trunc('month', p.start_date) AS TIMESTAMP),
                                  CAST(date_trunc('month', least(coalesce(p.last_date, b.today), b.today)) AS TIMESTAMP),
                                  INTERVAL 1 MONTH)) AS mm) t
  WHERE p.start_date <= b.today),
held AS (SELECT DISTINCT business_id, m, person_id FROM span),
held_m AS (
  SELECT h.business_id, h.m, count(*) AS client_w_plan_count,
         count(*) FILTER (WHERE n.person_id IS NOT NULL) AS new_client_w_plan_count
  FROM held h LEFT JOIN new_clients n ON n.business_id = h.business_id AND n.person_id = h.person_id AND n.m = h.m
  GROUP BY 1, 2),
members_m AS (
  SELECT s.business_id, s.m, count(DISTINCT s.person_id) AS member_count
  FROM span s JOIN months mo ON mo.business_id = s.business_id AND mo.m = s.m
  WHERE s.grants_membership AND (s.last_date IS NULL OR s.last_date >= mo.as_of)
  GROUP BY 1, 2),
new_members_m AS (
  SELECT business_id, CAST(date_trunc('month', first_start) AS DATE) AS m, count(*) AS new_member_count
  FROM (SELECT business_id, person_id, min(start_date) AS first_start FROM plan WHERE grants_membership GROUP BY 1, 2)
  GROUP BY 1, 2),
plans_m AS (
  SELECT business_id, CAST(date_trunc('month', start_date) AS DATE) AS m,
         count(DISTINCT plan_id) AS plan_start_count,
         count(DISTINCT plan_id) FILTER (WHERE plan_type = 'membership') AS membership_count,
         count(DISTINCT plan_id) FILTER (WHERE plan_type IN ('pack', 'single_visit_pass')) AS pack_count,
         count(DISTINCT plan_id) FILTER (WHERE plan_type = 'prepaid') AS prepaid_count
  FROM plan GROUP BY 1, 2),
ends_m AS (
  SELECT p.business_id, CAST(date_trunc('month', p.last_date) AS DATE) AS m, count(DISTINCT p.plan_id) AS plan_end_count
  FROM plan p JOIN biz b ON b.business_id = p.business_id
  WHERE p.last_date <= b.today
  GROUP BY 1, 2),
-- Invoices by the month they fall due: how many, what they ask for and what is still owed.
due_m AS (
  SELECT business_id, CAST(date_trunc('month', invoice_due_date) AS DATE) AS m,
         count(*) FILTER (WHERE invoice_state <> 'canceled') AS due_invoice_count,
         sum(expected_amount) FILTER (WHERE invoice_state <> 'canceled') AS expected_amount,
         sum(outstanding_amount) AS outstanding_amount
  FROM ${from("invoices")} WHERE invoice_due_date IS NOT NULL GROUP BY 1, 2),
-- The kind of each plan product, read off its plan items: a signup fee's row carries its plan
-- product (product_id) but the type signup_fee, and counts with its plan's kind.
product_kind AS (
  SELECT business_id, product_id, min(product_type) AS kind
  FROM ${from("invoice_items")} WHERE product_type IN ('pass', 'prepaid', 'recurring') GROUP BY 1, 2),
-- Money moved, from the invoice item transactions, in the local month of each transaction (a
-- refund in the month it was made); only settled ones carry amounts. Revenue is split by the
-- item's kind; recurring is the rest (memberships, their signup fees, tips, unknown plans), so
-- the four splits add up to net_paid_revenue_amount on every row.
tx AS (
  SELECT t.business_id, CAST(date_trunc('month', t.local_transaction_at) AS DATE) AS m,
         t.payments_amount, t.refunds_amount, t.net_paid_amount, t.net_paid_amount - t.net_paid_tax_amount AS rev,
         CASE WHEN t.product_type = 'signup_fee' THEN k.kind ELSE t.product_type END AS kind
  FROM ${from("invoice_item_transactions", "t")}
  LEFT JOIN product_kind k ON k.business_id = t.business_id AND k.product_id = t.product_id
  WHERE t.transaction_state = 'settled'),
tx_m AS (
  SELECT business_id, m,
         sum(payments_amount) AS payments_amount,
         sum(refunds_amount) AS refunds_amount,
         sum(net_paid_amount) AS net_paid_amount,
         sum(rev) AS net_paid_revenue_amount,
         sum(rev) FILTER (WHERE kind = 'pass') AS net_paid_pass_revenue_amount,
         sum(rev) FILTER (WHERE kind = 'prepaid') AS net_paid_prepaid_revenue_amount,
         sum(rev) FILTER (WHERE kind = 'retail') AS net_paid_retail_revenue_amount,
         sum(rev) FILTER (WHERE kind IS NULL OR kind NOT IN ('pass', 'prepaid', 'retail')) AS net_paid_recurring_revenue_amount
  FROM tx GROUP BY 1, 2),
-- Failed transactions (a payment or refund has a row per item: counted once) in their month.
failed_m AS (
  SELECT business_id, CAST(date_trunc('month', local_failed_at) AS DATE) AS m,
         count(DISTINCT (transaction_type, transaction_id)) AS failed_transaction_count
  FROM ${from("invoice_item_transactions")} WHERE transaction_state = 'failed' AND local_failed_at IS NOT NULL GROUP BY 1, 2)
SELECT
  mo.business_id || '-' || strftime(mo.m, '%Y-%m') AS key,
  mo.business_id, mo.business_name, mo.business_subdomain, mo.franchise_id, mo.currency_code, mo.time_zone,
  mo.m AS month_start_date,
  ${[
    ["occ_m", ["appointment_count", "attendance_completed_count", "class_count", "course_count", "event_occurrence_count"]],
    ["org_m", ["event_occurrence_organizer_count"]],
    [
      "enr_m",
      [
        "client_booked_count",
        "client_completed_enrollment_count",
        "completed_appointment_enrollment_count",
        "completed_class_enrollment_count",
        "completed_course_enrollment_count",
        "completed_enrollment_count",
        "completed_unpaid_count",
        "enrollment_count",
        "expired_enrollment_count",
        "first_visit_count",
        "late_canceled_enrollment_count",
        "noshowed_enrollment_count",
        "registered_enrollment_count",
        "removed_enrollment_count",
        "reserved_enrollment_count",
        "waiting_enrollment_count"
      ]
    ],
    ["new_m", ["new_client_count"]],
    ["staff_m", ["new_staff_count"]],
    ["held_m", ["client_w_plan_count", "new_client_w_plan_count"]],
    ["members_m", ["member_count"]],
    ["new_members_m", ["new_member_count"]],
    ["plans_m", ["membership_count", "pack_count", "plan_start_count", "prepaid_count"]],
    ["ends_m", ["plan_end_count"]],
    ["due_m", ["due_invoice_count", "expected_amount", "outstanding_amount"]],
    [
      "tx_m",
      [
        "net_paid_amount",
        "net_paid_pass_revenue_amount",
        "net_paid_prepaid_revenue_amount",
        "net_paid_recurring_revenue_amount",
        "net_paid_retail_revenue_amount",
        "net_paid_revenue_amount",
        "payments_amount",
        "refunds_amount"
      ]
    ],
    ["failed_m", ["failed_transaction_count"]]
  ]
    .flatMap(([alias, names]) => (names as ReadonlyArray<string>).map((name) => `CAST(coalesce(${alias}.${name}, 0) AS BIGINT) AS ${name}`))
    .join(",\n  ")},
  CASE WHEN coalesce(enr_m.client_completed_enrollment_count, 0) = 0 THEN 0.0
       ELSE CAST(enr_m.completed_enrollment_count AS DOUBLE) / enr_m.client_completed_enrollment_count END AS completed_enrollment_per_client
FROM months mo
${["occ_m", "org_m", "enr_m", "new_m", "staff_m", "held_m", "members_m", "new_members_m", "plans_m", "ends_m", "due_m", "tx_m", "failed_m"]
  .map((alias) => `LEFT JOIN ${alias} ON ${alias}.business_id = mo.business_id AND ${alias}.m = mo.m`)
  .join("\n")}
ORDER BY mo.business_id, mo.m`
}

/** The table, computed anew from the store's tables (the end of a full rebuild). */
export const createMonthlyMetricsSql = (now: string) => `CREATE OR REPLACE TABLE ${MONTHLY_METRICS_TABLE} AS ${monthlyMetricsSql(now)}`

/**
 * After an incremental refresh, the rows of the businesses in `scope` (a condition on
 * `business_id`: those with rows refreshed) computed anew; the others keep theirs until a
 * refresh touches them or the nightly rebuild (which also brings a new month to a business
 * with no activity, and moves a current month's "as of" day).
 */
export const refreshMonthlyMetricsSql = (now: string, scope: string): ReadonlyArray<string> => [
  `DELETE FROM ${MONTHLY_METRICS_TABLE} WHERE ${scope}`,
  `INSERT INTO ${MONTHLY_METRICS_TABLE} ${monthlyMetricsSql(now, scope)}`
]
