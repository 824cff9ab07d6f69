import { DuckDBInstance } from "@duckdb/node-api"
import { describe, expect, it } from "vitest"
import { clientsCatalog } from "../../reports/catalog/clients.ts"
import { enrollmentsCatalog } from "../../reports/catalog/enrollments.ts"
import { eventOccurrenceStaffMembersCatalog } from "../../reports/catalog/event-occurrence-staff-members.ts"
import { eventOccurrencesCatalog } from "../../reports/catalog/event-occurrences.ts"
import type { ResourceCatalog, WireType } from "../../reports/catalog/types.ts"
import { DUCKDB_OPTIONS } from "../../reports/sync/copy.ts"
import { enrollmentsTable } from "../../reports/sync/tables/enrollments.ts"
import { eventOccurrenceStaffMembersTable } from "../../reports/sync/tables/event-occurrence-staff-members.ts"
import { eventOccurrencesTable } from "../../reports/sync/tables/event-occurrences.ts"
import { clientRow, memoryStore, page, type Row } from "./support.ts"

/**
 * The catalogs hold every detail field, summary field and grouping the spec lists (the
 * lists below are the spec's), and every entry compiles and runs on DuckDB: each detail
 * field, each grouping with every summary field, each sort.
 */

const SPEC = {
  clients: {
    detail:
      "account_claim_date account_credit_amount account_manager_emails account_manager_names account_manager_phones address age also_staff birthdate business_id business_name business_subdomain client_since_date completed_visits currency_code current_plan_revenue_category current_plan_types current_plans days_since_last_visit days_until_birthday dependent_names email first_name first_visit_date franchise_id full_name future_visits guardian_email guardian_name has_membership has_payment_on_file has_plan_on_hold has_signed_waiver home_location_name is_schedulable key last_email_bounced last_invoice_amount last_invoice_date last_invoice_id last_invoice_unpaid last_membership_end_date last_name last_signed_waiver_name last_site_access_date last_visit_date last_visit_id last_visit_service middle_name net_paid_amount next_pass_plan_end_date person_id person_state phone primary_staff_name revenue_amount source_name staff_member_who_added tenure tenure_group unpaid_visits",
    summary:
      "business_id_summary business_subdomain_summary total_count account_claim_count also_staff_count has_membership_count has_payment_on_file_count has_plan_on_hold_count has_signed_waiver_count is_schedulable_count last_email_bounced_count last_invoice_unpaid_count person_count visited_site_count total_account_credit_amount total_net_paid_amount total_revenue_amount total_completed_visits total_future_visits total_unpaid_visits",
    groupings:
      "account_claim_date account_manager_names age also_staff business_id business_name business_subdomain client_since_date client_since_month_start_date client_since_quarter_start_date client_since_week_mon_start_date client_since_week_sun_start_date client_since_year_start_date has_membership has_payment_on_file has_plan_on_hold has_signed_waiver home_location_name is_schedulable last_email_bounced last_invoice_unpaid person_state primary_staff_name source_name staff_member_who_added tenure_group"
  },
  enrollments: {
    detail:
      "account_manager_emails account_manager_names account_manager_phones address available_plans birthdate bulk_enrolled business_id business_name business_subdomain cancelled_at cancelled_to_start client_booked completed_at consider_member currency_code duration_in_hours duration_in_minutes email end_at estimated_amount event_id event_name event_occurrence_id first_visit franchise_id full_name home_location_name instructor_names is_paid is_rollover is_waitlist key make_up_issued noshow_at paid_with paid_with_complimentary_pass paid_with_type person_id phone plan_id plan_product_id primary_staff_name punch_id punchcard_id registered_at service_category service_date service_day service_id service_location_id service_location_name service_name service_state service_time service_type start_at state visit_id waitlist_id waitlisted_at",
    summary:
      "business_id_summary business_subdomain_summary total_count avg_per_visit_amount total_visits_amount client_booked_count consider_member_count first_visit_count is_paid_count is_rollover_count is_waitlist_count enrollment_count event_count event_occurrence_count person_count service_count completed_enrollment_count expired_enrollment_count late_canceled_enrollment_count noshowed_enrollment_count registered_enrollment_count removed_enrollment_count reserved_enrollment_count waiting_enrollment_count total_duration_in_hours total_duration_in_minutes unpaid_visit_count unpaid_visit_percent visit_count weekday_0_enrollment_count weekday_1_enrollment_count weekday_2_enrollment_count weekday_3_enrollment_count weekday_4_enrollment_count weekday_5_enrollment_count weekday_6_enrollment_count",
    groupings:
      "business_id business_name business_subdomain client_booked consider_member event_id event_name event_occurrence_id first_visit full_name home_location_name instructor_names is_paid is_rollover is_waitlist paid_with paid_with_complimentary_pass paid_with_type person_id plan_id plan_product_id primary_staff_name punch_id punchcard_id service_category service_date service_day service_id service_location_id service_location_name service_name service_state service_time service_type service_month_start_date service_quarter_start_date service_week_mon_start_date service_week_sun_start_date service_year_start_date state"
  },
  event_occurrences: {
    detail:
      "attendance_completed business_id business_name business_subdomain capacity completed_enrollment_count completed_unpaid_count enrollment_count expired_enrollment_count is_waitlist_count late_canceled_enrollment_count noshowed_enrollment_count paid_count registered_enrollment_count removed_enrollment_count reserved_enrollment_count visit_count waiting_enrollment_count waitlist_to_visit_count currency_code duration_in_hours duration_in_minutes end_at event_id event_name event_occurrence_id franchise_id instructor_names key service_category service_date service_day service_id service_location_id service_location_name service_name service_state service_time service_type start_at",
    summary:
      "business_id_summary business_subdomain_summary total_count attendance_completed_count event_count event_occurrence_count service_count total_capacity total_completed_enrollment_count total_completed_unpaid_count total_duration_in_hours total_duration_in_minutes total_enrollment_count total_expired_enrollment_count total_is_waitlist_count total_late_canceled_enrollment_count total_noshowed_enrollment_count total_paid_count total_registered_enrollment_count total_removed_enrollment_count total_reserved_enrollment_count total_visit_count total_waiting_enrollment_count total_waitlist_to_visit_count",
    groupings:
      "attendance_completed business_id business_name business_subdomain event_id event_name event_occurrence_id instructor_names service_category service_date service_day service_id service_location_id service_location_name service_name service_state service_time service_type service_month_start_date service_quarter_start_date service_week_mon_start_date service_week_sun_start_date service_year_start_date"
  }
}
const words = (text: string) => text.split(" ").sort()
const staffSpec = {
  detail: words(
    `${SPEC.event_occurrences.detail.replace(" instructor_names", "")} address email full_name home_location_id home_location_name person_id phone role`
  ),
  summary: words(`${SPEC.event_occurrences.summary} person_count`),
  groupings: words(`${SPEC.event_occurrences.groupings.replace(" instructor_names", "")} full_name person_id role`)
}

const names = (catalog: ResourceCatalog) => ({
  detail: [...catalog.detail.keys()].sort(),
  summary: [...catalog.summary.keys()].sort(),
  groupings: [...catalog.groupings.keys()].sort()
})

describe("catalogs list what the spec lists", () => {
  it("clients, enrollments, event occurrences, event occurrence staff members", () => {
    for (const [catalog, spec] of [
      [clientsCatalog, SPEC.clients],
      [enrollmentsCatalog, SPEC.enrollments],
      [eventOccurrencesCatalog, SPEC.event_occurrences]
    ] as const) {
      expect(names(catalog), catalog.resource).toEqual({ detail: words(spec.detail), summary: words(spec.summary), groupings: words(spec.groupings) })
    }
    expect(names(eventOccurrenceStaffMembersCatalog)).toEqual(staffSpec)
    expect([...clientsCatalog.logical.keys()]).toEqual(["custom_fields"])
  })
})

// ---------------------------------------------------------------------------------------------

const DUCK: Record<WireType, string> = {
  boolean: "BOOLEAN",
  currency: "BIGINT",
  date: "DATE",
  datetime: "TIMESTAMPTZ",
  time: "TIME",
  range: "VARCHAR",
  enum: "VARCHAR",
  float: "DOUBLE",
  integer: "BIGINT",
  string: "VARCHAR"
}

/**
 * The columns a catalog reads, typed by the field stored under the same name: a table shaped
 * after the catalog alone, and a check of the store's own tables.
 */
const inferredTable = (catalog: ResourceCatalog) => {
  const sqls = [
    ...[...catalog.detail.values(), ...catalog.summary.values(), ...catalog.groupings.values()].map((c) => c.sql),
    catalog.keySql,
    catalog.businessIdSql,
    catalog.timeZoneSql,
    ...catalog.keyOrder
  ]
  const columns = new Map<string, string>()
  for (const sql of sqls) {
    for (const [, name] of sql.matchAll(/\br\.([a-z0-9_]+)/g)) {
      const field = catalog.detail.get(name!)
      // The local start is a stored helper column (no field of its own): a wall-clock TIMESTAMP.
      columns.set(name!, name === "local_start_at" ? "TIMESTAMP" : field && field.sql === `r.${name}` ? DUCK[field.type] : "VARCHAR")
    }
  }
  return columns
}

const sampleValue = (catalog: ResourceCatalog, name: string, type: string, i: number): string | number | boolean | null => {
  const field = catalog.detail.get(name)
  if (name === "business_id") return 1
  if (name === "key") return `k${i}`
  if (name === "time_zone") return "America/Los_Angeles"
  if (field?.values) return field.values[i % field.values.length]!
  switch (type) {
    case "BIGINT":
      return i + 1
    case "BOOLEAN":
      return i % 2 === 0
    case "DOUBLE":
      return 1.5 * i
    case "DATE":
      return `2024-06-0${i + 1}`
    case "TIMESTAMP": // the local start of start_at below, in America/Los_Angeles
      return `2024-06-0${i + 1} 03:00:00`
    case "TIMESTAMPTZ":
      return name === "end_at" ? `2024-06-0${i + 1}T11:30:00Z` : `2024-06-0${i + 1}T10:00:00Z`
    default:
      return `${name} ${i}`
  }
}

const inferredStore = async (catalog: ResourceCatalog) => {
  const instance = await DuckDBInstance.create(":memory:", DUCKDB_OPTIONS)
  const connection = await instance.connect()
  const columns = [...inferredTable(catalog)]
  await connection.run(`CREATE TABLE ${catalog.source} (${columns.map(([name, type]) => `${name} ${type}`).join(", ")})`)
  for (let i = 0; i < 3; i++) {
    const values: Row = Object.fromEntries(columns.map(([name, type], j) => [`c${j}`, sampleValue(catalog, name, type, i)]))
    await connection.run(
      `INSERT INTO ${catalog.source} VALUES (${columns.map(([, type], j) => `CAST($c${j} AS ${type})`).join(", ")})`,
      values
    )
  }
  return { connection, close: () => (connection.closeSync(), instance.closeSync()) }
}

const exercise = async (catalog: ResourceCatalog, store: { connection: Parameters<typeof page>[0] }) => {
  const options = { catalog, context: { customFields: [], franchiseHolding: false } }
  const detail = await page(store.connection, { fields: [...catalog.detail.keys()], sort: [`${[...catalog.detail.keys()][0]}-`] }, options)
  expect(detail.rows.length).toBeGreaterThan(0)
  for (const name of catalog.detail.keys()) {
    await page(store.connection, { fields: ["key"], sort: [`${name}+`], page: { limit: 2 } }, options)
  }
  for (const name of catalog.groupings.keys()) {
    const result = await page(store.connection, { fields: [...catalog.summary.keys()], group: name }, options)
    expect(result.fields[0], name).toEqual({ name: "group_label", type: catalog.groupings.get(name)!.type })
  }
  for (const name of catalog.summary.keys()) {
    await page(store.connection, { fields: ["total_count"], group: "business_id", sort: [`${name}-`] }, options)
  }
  return detail
}

describe("every catalog entry runs on DuckDB", () => {
  it("clients, on the store's own table", async () => {
    const store = await memoryStore([
      clientRow({ business_id: 1, person_id: 1, birthdate: "1990-01-02", last_visit_date: "2024-06-01" }),
      clientRow({ business_id: 1, person_id: 2 })
    ])
    try {
      await exercise(clientsCatalog, store)
    } finally {
      store.close()
    }
  })

  for (const catalog of [enrollmentsCatalog, eventOccurrencesCatalog, eventOccurrenceStaffMembersCatalog]) {
    it(`${catalog.resource}, on a table shaped after its catalog`, async () => {
      const store = await inferredStore(catalog)
      try {
        const detail = await exercise(catalog, store)
        const at = (name: string) => detail.fields.findIndex((f) => f.name === name)
        const first = detail.rows.find((row) => row[at("key")] === "k0")!
        // Datetimes carry the event location's offset; dates, weekdays and times are read there.
        expect(first[at("start_at")]).toBe("2024-06-01T03:00:00-07:00")
        expect(first[at("service_date")]).toBe("2024-06-01")
        expect(first[at("service_day")]).toBe("6")
        expect(first[at("service_time")]).toBe("03:00:00")
        expect(first[at("duration_in_minutes")]).toBe(90)
        expect(first[at("duration_in_hours")]).toBe(1.5)
      } finally {
        store.close()
      }
    })
  }
})

describe("the store's scheduling and enrollment tables", () => {
  for (const [catalog, table] of [
    [eventOccurrencesCatalog, eventOccurrencesTable],
    [eventOccurrenceStaffMembersCatalog, eventOccurrenceStaffMembersTable],
    [enrollmentsCatalog, enrollmentsTable]
  ] as const) {
    it(`${table.name} holds every column ${catalog.resource} reads, in the field's type`, () => {
      const stored = new Map(table.columns.map(([name, type]) => [name, type.replace(/ NOT NULL$/, "")]))
      expect(catalog.source).toBe(table.name)
      for (const [name, type] of inferredTable(catalog)) {
        expect(stored.has(name), name).toBe(true)
        if (type !== "VARCHAR") expect(stored.get(name), name).toBe(type)
      }
    })
  }
})
