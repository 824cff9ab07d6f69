import { STAFF_ROLES } from "../../src/access/tokens.ts"
import { PERSON_FIELDS, TENURE_GROUPS, customFields, inNameOrder } from "./clients.ts"
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
  summary,
  total
} from "./types.ts"

/**
 * Staff members (`staff_members`): one row per staff member, past and present, read from the
 * `staff_members` table of the report store (reports/sync/tables/staff-members.ts). Age, tenure
 * and the birthday count are computed at query time from `r.today` (the query's clock in the
 * business's zone), as clients' are. The event counts are counted at query time from the
 * store's event_occurrence_staff_members rows of the same person: occurrences on the schedule
 * (service_state `active`) that started before the query's clock (past) or not (future), and
 * the past ones whose attendance is not completed; so they agree with that resource.
 */

const tenure = "date_diff('day', r.staff_since_date, r.today)"

/** Clients' buckets (30, 90, 365, 730 and 1095 days), counted from staff_since_date. */
const tenureGroup = `CASE
  WHEN ${tenure} < 30 THEN '0_month'
  WHEN ${tenure} < 90 THEN '1_quarter'
  WHEN ${tenure} < 365 THEN '2_year'
  WHEN ${tenure} < 730 THEN '3_two_years'
  WHEN ${tenure} < 1095 THEN '4_three_years'
  ELSE '5_over_three_years'
END`

/** Fields of a postal address the service does not record apart: it stores one address text. */
const NOT_RECORDED = "CAST(NULL AS VARCHAR)"

const detail: ReadonlyArray<ColumnDef> = [
  ...commonDetail({ currency: true }),
  ...inNameOrder([
    ...PERSON_FIELDS,
    column("also_client", "boolean"),
    column("attendance_not_completed_events", "integer"),
    column("city", "string", NOT_RECORDED),
    column("country_code", "string", NOT_RECORDED),
    column("future_events", "integer"),
    column("home_location_id", "integer"),
    column("past_events", "integer"),
    column("postal_code", "string", NOT_RECORDED),
    column("role", "enum", "r.role", [...STAFF_ROLES].sort()),
    column("show_to_clients", "boolean"),
    column("staff_since_date", "date"),
    column("state_code", "string", NOT_RECORDED),
    // The stored address is one text: all of it is the street address.
    column("street_address", "string", "r.address"),
    column("street_address2", "string", NOT_RECORDED),
    column("tenure", "integer", tenure),
    column("tenure_group", "enum", tenureGroup, TENURE_GROUPS)
  ])]

const detailByName = byName(detail)
const same = (name: string): ColumnDef => {
  const found = detailByName.get(name)
  if (!found) throw new Error(`staff_members catalog: no detail field ${name}`)
  return found
}

const summaries = [
  ...commonSummary,
  countTrue("also_client_count", "also_client"),
  summary("demoted_staff_count", "integer", "count(*) FILTER (WHERE r.role = 'demoted')"),
  summary("person_count", "integer", "count(DISTINCT r.person_id)"),
  total("total_attendance_not_completed_events", "integer", "attendance_not_completed_events"),
  total("total_future_events", "integer", "future_events"),
  total("total_past_events", "integer", "past_events")
]

const groupings: ReadonlyArray<ColumnDef> = [
  ...commonGroupings,
  ...["age", "also_client", "home_location_name", "person_state", "role", "show_to_clients", "staff_since_date", "tenure_group"].map(same),
  ...dateBuckets("staff_since", "r.staff_since_date")
]

/**
 * The staff row with its date today and its event counts (see above). The counts are a LATERAL
 * subquery, which DuckDB decorrelates into a join on the staff rows that pass the query's
 * business scope: the event rows, stored by business, are then read only for those businesses
 * (one business among 1,000 with 3 million event rows: tens of milliseconds instead of about
 * 300 for an aggregate over every business, which stays faster only when all are in scope).
 */
const now = "CAST($now AS TIMESTAMPTZ)"
const source = `(SELECT s.*, CAST(timezone(s.time_zone, ${now}) AS DATE) AS today, e.*
  FROM staff_members s, LATERAL (
    SELECT count(*) FILTER (WHERE o.start_at < ${now}) AS past_events,
           count(*) FILTER (WHERE o.start_at >= ${now}) AS future_events,
           count(*) FILTER (WHERE o.start_at < ${now} AND NOT coalesce(o.attendance_completed, false)) AS attendance_not_completed_events
    FROM event_occurrence_staff_members o
    WHERE o.business_id = s.business_id AND o.person_id = s.person_id AND o.service_state = 'active'
  ) e)`

export const staffMembersCatalog: ResourceCatalog = {
  resource: "staff_members",
  source,
  businessIdSql: "r.business_id",
  keySql: "r.key",
  keyOrder: ["r.business_id", "r.person_id"],
  timeZoneSql: "r.time_zone",
  detail: detailByName,
  summary: byName(summaries),
  groupings: byName(groupings),
  logical: byName([customFields])
}
