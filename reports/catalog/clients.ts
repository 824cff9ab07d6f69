import { QueryRefusals } from "../refusals.ts"
import {
  type CatalogContext,
  type ColumnDef,
  type LogicalDef,
  type ResourceCatalog,
  byName,
  column,
  commonDetail,
  commonGroupings,
  commonSummary,
  countTrue,
  dateBuckets,
  summary,
  total
} from "./types.ts"

/**
 * Clients (`clients`): one row per person of the business, read from the `clients` table of
 * the report store (reports/sync/tables/clients.ts builds it). Fields relative to "today" (age,
 * tenure, days since or until something) are computed at query time from `r.today`, the
 * query's clock in the business's time zone, so they never go stale between syncs.
 */

export const PERSON_STATES = ["active", "deleted", "hidden"] as const
/** The spec names two values after external products; we name them by what they are. */
export const SOURCE_NAMES = ["client", "social_login", "file", "crm_tool", "kiosk", "staff", "unknown"] as const
export const TENURE_GROUPS = ["0_month", "1_quarter", "2_year", "3_two_years", "4_three_years", "5_over_three_years"] as const

const age = "date_sub('year', r.birthdate, r.today)"
const tenure = "date_diff('day', r.client_since_date, r.today)"

/** Days until the next birthday, 0 on the day (a 29 February birthday falls on 28 February in other years). */
const daysUntilBirthday = `CASE
  WHEN r.birthdate IS NULL THEN NULL
  WHEN CAST(r.birthdate + to_years(CAST(${age} AS INTEGER)) AS DATE) = r.today THEN 0
  ELSE date_diff('day', r.today, CAST(r.birthdate + to_years(CAST(${age} AS INTEGER) + 1) AS DATE))
END`

const tenureGroup = `CASE
  WHEN r.client_since_date IS NULL THEN NULL
  WHEN ${tenure} < 30 THEN '0_month'
  WHEN ${tenure} < 90 THEN '1_quarter'
  WHEN ${tenure} < 365 THEN '2_year'
  WHEN ${tenure} < 730 THEN '3_two_years'
  WHEN ${tenure} < 1095 THEN '4_three_years'
  ELSE '5_over_three_years'
END`

/**
 * A person's fields, the same on a client's row and a staff member's (staff-members.ts): the
 * store's tables carry them under the same names, and age and the birthday count are computed
 * from the row's `r.today` alike.
 */
export const PERSON_FIELDS: ReadonlyArray<ColumnDef> = [
  column("address", "string"),
  column("age", "integer", age),
  column("birthdate", "date"),
  column("days_until_birthday", "integer", daysUntilBirthday),
  column("email", "string"),
  column("first_name", "string"),
  column("full_name", "string"),
  column("home_location_name", "string"),
  column("last_name", "string"),
  column("middle_name", "string"),
  column("person_id", "integer"),
  column("person_state", "enum", "r.person_state", PERSON_STATES),
  column("phone", "string")
]

/** Detail fields in name order, as the catalog lists them. */
export const inNameOrder = (fields: ReadonlyArray<ColumnDef>): ReadonlyArray<ColumnDef> => [...fields].sort((a, b) => (a.name < b.name ? -1 : 1))

const detail: ReadonlyArray<ColumnDef> = [
  ...commonDetail({ currency: true }),
  ...inNameOrder([
    ...PERSON_FIELDS,
    column("account_claim_date", "date"),
    column("account_credit_amount", "currency"),
    column("account_manager_emails", "string"),
    column("account_manager_names", "string"),
    column("account_manager_phones", "string"),
    column("also_staff", "boolean"),
    column("client_since_date", "date"),
    column("completed_visits", "integer"),
    column("current_plan_revenue_category", "string"),
    column("current_plan_types", "string"),
    column("current_plans", "string"),
    column("days_since_last_visit", "integer", "date_diff('day', r.last_visit_date, r.today)"),
    column("dependent_names", "string"),
    column("first_visit_date", "date"),
    column("future_visits", "integer"),
    column("guardian_email", "string"),
    column("guardian_name", "string"),
    column("has_membership", "boolean"),
    column("has_payment_on_file", "boolean"),
    column("has_plan_on_hold", "boolean"),
    column("has_signed_waiver", "boolean"),
    column("is_schedulable", "boolean"),
    column("last_email_bounced", "boolean"),
    column("last_invoice_amount", "currency"),
    column("last_invoice_date", "date"),
    column("last_invoice_id", "integer"),
    column("last_invoice_unpaid", "boolean"),
    column("last_membership_end_date", "date"),
    column("last_signed_waiver_name", "string"),
    column("last_site_access_date", "date"),
    column("last_visit_date", "date"),
    column("last_visit_id", "integer"),
    column("last_visit_service", "string"),
    column("net_paid_amount", "currency"),
    column("next_pass_plan_end_date", "date"),
    column("primary_staff_name", "string"),
    column("revenue_amount", "currency"),
    column("source_name", "enum", "r.source_name", SOURCE_NAMES),
    column("staff_member_who_added", "string"),
    column("tenure", "integer", tenure),
    column("tenure_group", "enum", tenureGroup, TENURE_GROUPS),
    column("unpaid_visits", "integer")
  ])]

const detailByName = byName(detail)
const same = (name: string): ColumnDef => {
  const found = detailByName.get(name)
  if (!found) throw new Error(`clients catalog: no detail field ${name}`)
  return found
}

const summaries = [
  ...commonSummary,
  summary("account_claim_count", "integer", "count(r.account_claim_date)"),
  countTrue("also_staff_count", "also_staff"),
  countTrue("has_membership_count", "has_membership"),
  countTrue("has_payment_on_file_count", "has_payment_on_file"),
  countTrue("has_plan_on_hold_count", "has_plan_on_hold"),
  countTrue("has_signed_waiver_count", "has_signed_waiver"),
  countTrue("is_schedulable_count", "is_schedulable"),
  countTrue("last_email_bounced_count", "last_email_bounced"),
  countTrue("last_invoice_unpaid_count", "last_invoice_unpaid"),
  summary("person_count", "integer", "count(DISTINCT r.person_id)"),
  summary("visited_site_count", "integer", "count(r.last_site_access_date)"),
  total("total_account_credit_amount", "currency", "account_credit_amount"),
  total("total_net_paid_amount", "currency", "net_paid_amount"),
  total("total_revenue_amount", "currency", "revenue_amount"),
  total("total_completed_visits", "integer", "completed_visits"),
  total("total_future_visits", "integer", "future_visits"),
  total("total_unpaid_visits", "integer", "unpaid_visits")
]

const groupings: ReadonlyArray<ColumnDef> = [
  ...commonGroupings,
  ...[
    "account_claim_date",
    "account_manager_names",
    "age",
    "also_staff",
    "client_since_date",
    "has_membership",
    "has_payment_on_file",
    "has_plan_on_hold",
    "has_signed_waiver",
    "home_location_name",
    "is_schedulable",
    "last_email_bounced",
    "last_invoice_unpaid",
    "person_state",
    "primary_staff_name",
    "source_name",
    "staff_member_who_added",
    "tenure_group"
  ].map(same),
  ...dateBuckets("client_since", "r.client_since_date")
]

/**
 * `custom_fields` expands to one field per custom field of the business, named
 * `custom_field_<id>`, typed by its data type, read from the person's stored values (the
 * clients (and staff_members) table's `custom_field_values`, a JSON object by field id; the id is an integer the
 * catalog checked, never caller text). A person without a value reads NULL.
 */
const CUSTOM_FIELD = /^custom_field_([1-9]\d{0,15})$/
const customFieldColumn = (field: CatalogContext["customFields"][number]): ColumnDef => {
  const path = `'$."${Number(field.id)}"'`
  return {
    name: `custom_field_${field.id}`,
    type: field.data_type === "boolean" ? "boolean" : "string",
    sql: field.data_type === "boolean"
      ? `CASE WHEN json_valid(r.custom_field_values) THEN TRY_CAST(json_extract(r.custom_field_values, ${path}) AS BOOLEAN) END`
      : `CASE WHEN json_valid(r.custom_field_values) THEN json_extract_string(r.custom_field_values, ${path}) END`,
    label: field.name
  }
}

export const customFields: LogicalDef = {
  name: "custom_fields",
  expand: (context) =>
    context.franchiseHolding ? { unsupported: QueryRefusals.customFieldsFranchise } : context.customFields.map(customFieldColumn),
  instance: (name, context) => {
    const match = CUSTOM_FIELD.exec(name)
    if (!match || context.franchiseHolding) return undefined
    const field = context.customFields.find((f) => f.id === Number(match[1]))
    return field ? customFieldColumn(field) : undefined
  }
}

export const clientsCatalog: ResourceCatalog = {
  resource: "clients",
  source: "(SELECT c.*, CAST(timezone(c.time_zone, CAST($now AS TIMESTAMPTZ)) AS DATE) AS today FROM clients c)",
  businessIdSql: "r.business_id",
  keySql: "r.key",
  keyOrder: ["r.business_id", "r.person_id"],
  timeZoneSql: "r.time_zone",
  detail: detailByName,
  summary: byName(summaries),
  groupings: byName(groupings),
  logical: byName([customFields])
}
