import { describe, expect, it } from "vitest"
import { enrollmentsCatalog } from "../../reports/catalog/enrollments.ts"
import { OCCURRENCE_COUNTS } from "../../reports/catalog/service-fields.ts"
import { rowsOf } from "./support.ts"
import { asStudio, everyGrouping, everySort, query, server, setUpScheduleReports, studio, studioIds, sync } from "./schedule-http-setup.ts"

/**
 * The enrollments report resource over HTTP, with the visit columns of clients and the
 * enrollment counts of event_occurrences, in the "studio" business (data: schedule-http-setup.ts).
 */

setUpScheduleReports()

describe("POST /desk/api/v3/reports/enrollments/queries", () => {
  const catalog = enrollmentsCatalog

  it("returns every detail field of a visit, in its wire type and the occurrence's zone", async () => {
    const names = [...catalog.detail.keys()]
    const response = await query("enrollments", { fields: names, filter: ["eq", "visit_id", studioIds.annPast] }, asStudio())
    const fields = response.json.data.attributes.fields as Array<{ name: string; type: string }>
    expect(fields.map((f) => f.name)).toEqual(names)
    for (const field of fields) expect(field.type).toBe(catalog.detail.get(field.name)!.type)
    expect(rowsOf(response)).toEqual([
      {
        business_id: studio.id,
        business_name: "Studio",
        business_subdomain: "studio",
        franchise_id: null,
        currency_code: "USD",
        key: `${studio.id}-v${studioIds.annPast}`,
        account_manager_emails: "pat@example.test",
        account_manager_names: "Pat Client",
        account_manager_phones: "555-0100",
        // The client's stored address .
        address: "12 Elm Street",
        available_plans: null,
        birthdate: "2010-05-01",
        bulk_enrolled: "f",
        cancelled_at: null,
        cancelled_to_start: null,
        client_booked: "f",
        completed_at: "2024-06-04T18:05:00-07:00",
        consider_member: "f",
        email: "ann@example.test",
        estimated_amount: 0,
        first_visit: "t",
        full_name: "Ann Client",
        home_location_name: "Main",
        instructor_names: "Iris Teacher",
        is_paid: "f",
        is_rollover: "f",
        is_waitlist: "f",
        make_up_issued: "f",
        noshow_at: null,
        paid_with: null,
        paid_with_complimentary_pass: "f",
        paid_with_type: "unpaid",
        person_id: studioIds.ann,
        phone: "555-0199",
        plan_id: null,
        plan_product_id: null,
        primary_staff_name: "Iris Teacher",
        punch_id: null,
        punchcard_id: null,
        registered_at: "2024-06-01T10:00:00-07:00",
        state: "completed",
        visit_id: studioIds.annPast,
        waitlist_id: null,
        waitlisted_at: null,
        duration_in_hours: 1,
        duration_in_minutes: 60,
        end_at: "2024-06-04T18:00:00-07:00",
        event_id: null,
        event_name: "Mat Pilates",
        event_occurrence_id: studioIds.past,
        service_category: "Mat",
        service_date: "2024-06-04",
        service_day: "2",
        service_id: studioIds.pilates,
        service_location_id: studioIds.main,
        service_location_name: "Main",
        service_name: "Pilates",
        service_state: "active",
        service_time: "17:00:00",
        service_type: "group_class",
        start_at: "2024-06-04T17:00:00-07:00"
      }
    ])
  })

  it("has a row per visit and per waitlist entry that did not become one", async () => {
    const fields = ["person_id", "state", "visit_id", "waitlist_id", "waitlisted_at", "is_waitlist", "client_booked", "first_visit", "cancelled_to_start", "make_up_issued", "bulk_enrolled"]
    const rows = rowsOf(await query("enrollments", { fields, sort: ["key+"] }, asStudio()))
    expect(rows).toHaveLength(6)
    const byKey = (visitId: number | null, waitlistId: number | null) => rows.find((r) => r.visit_id === visitId && r.waitlist_id === waitlistId)
    expect(byKey(studioIds.bobPast!, null)).toMatchObject({ state: "late_canceled", cancelled_to_start: 4, make_up_issued: "t", client_booked: "t", first_visit: "f" })
    expect(byKey(studioIds.evePast!, studioIds.eveEntry!)).toMatchObject({ state: "registered", waitlisted_at: "2024-06-02T09:00:00-07:00", is_waitlist: "f", first_visit: "t" })
    expect(byKey(null, studioIds.catEntry!)).toMatchObject({ state: "waiting", is_waitlist: "t", client_booked: "f", person_id: studioIds.cat })
    expect(byKey(null, studioIds.danEntry!)).toMatchObject({ state: "expired", is_waitlist: "t", client_booked: "t" })
    // Her second visit is not her first; a booking she made herself is client-booked.
    expect(byKey(studioIds.annFuture!, null)).toMatchObject({ state: "registered", first_visit: "f", client_booked: "t", bulk_enrolled: "f" })
  })

  it("groups by every grouping and sorts by every field", async () => {
    await everyGrouping(catalog, 6, asStudio())
    await everySort(catalog, asStudio())
    expect(rowsOf(await query("enrollments", { fields: ["total_count"], group: "state", sort: ["group_label+"] }, asStudio()))).toEqual([
      { group_label: "completed", total_count: 1 },
      { group_label: "expired", total_count: 1 },
      { group_label: "late_canceled", total_count: 1 },
      { group_label: "registered", total_count: 2 },
      { group_label: "waiting", total_count: 1 }
    ])
  })

  it("returns every summary field", async () => {
    const names = [...catalog.summary.keys()]
    const response = await query("enrollments", { fields: names, group: "business_id" }, asStudio())
    expect(response.json.data.attributes.fields.map((f: { name: string }) => f.name)).toEqual(["group_label", ...names])
    const [row] = rowsOf(response)
    expect(row).toMatchObject({
      total_count: 6,
      enrollment_count: 6,
      event_occurrence_count: 2,
      person_count: 5,
      service_count: 1,
      visit_count: 4,
      unpaid_visit_count: 4,
      unpaid_visit_percent: 100,
      is_waitlist_count: 2,
      is_paid_count: 0,
      first_visit_count: 2,
      client_booked_count: 4,
      completed_enrollment_count: 1,
      expired_enrollment_count: 1,
      late_canceled_enrollment_count: 1,
      noshowed_enrollment_count: 0,
      registered_enrollment_count: 2,
      removed_enrollment_count: 0,
      reserved_enrollment_count: 0,
      waiting_enrollment_count: 1,
      total_duration_in_minutes: 360,
      total_duration_in_hours: 6,
      weekday_2_enrollment_count: 5,
      weekday_3_enrollment_count: 1,
      total_visits_amount: 0
    })
  })

  it("counts an occurrence's enrollments in event_occurrences, and visits in clients", async () => {
    const [past] = rowsOf(await query("event_occurrences", { fields: OCCURRENCE_COUNTS, filter: ["eq", "event_occurrence_id", studioIds.past] }, asStudio()))
    expect(past).toEqual({
      completed_enrollment_count: 1,
      completed_unpaid_count: 1,
      enrollment_count: 5,
      expired_enrollment_count: 1,
      is_waitlist_count: 2,
      late_canceled_enrollment_count: 1,
      noshowed_enrollment_count: 0,
      paid_count: 0,
      registered_enrollment_count: 1,
      removed_enrollment_count: 0,
      reserved_enrollment_count: 0,
      visit_count: 3,
      waiting_enrollment_count: 1,
      waitlist_to_visit_count: 1
    })
    const fields = ["completed_visits", "first_visit_date", "future_visits", "last_visit_date", "last_visit_id", "last_visit_service", "unpaid_visits", "has_signed_waiver", "last_signed_waiver_name"]
    const [ann] = rowsOf(await query("clients", { fields, filter: ["eq", "person_id", studioIds.ann] }, asStudio()))
    expect(ann).toEqual({
      completed_visits: 1,
      first_visit_date: "2024-06-04",
      future_visits: 1,
      last_visit_date: "2024-06-04",
      last_visit_id: studioIds.annPast,
      last_visit_service: "Pilates",
      // Completed but unpaid: the registered visit ahead does not count.
      unpaid_visits: 1,
      has_signed_waiver: "t",
      last_signed_waiver_name: "Adult waiver"
    })
  })

  it("shows changed and deleted visits and waitlist entries after the incremental sync", async () => {
    const pool = server.pool
    await pool.query(`update visits set state = 'registered', cancelled_at = null, updated_at = now() where business_id = $1 and id = $2`, [studio.id, studioIds.bobPast])
    await pool.query(`delete from waitlist_entries where business_id = $1 and id = $2`, [studio.id, studioIds.catEntry])
    await pool.query(`delete from visits where business_id = $1 and id = $2`, [studio.id, studioIds.annFuture])
    expect((await sync("incremental")).outcome).toBe("incremental")
    const rows = rowsOf(await query("enrollments", { fields: ["visit_id", "waitlist_id", "state"], sort: ["key+"] }, asStudio()))
    expect(rows).toHaveLength(4)
    expect(rows.find((r) => r.visit_id === studioIds.bobPast)).toMatchObject({ state: "registered" })
    expect(rows.some((r) => r.waitlist_id === studioIds.catEntry || r.visit_id === studioIds.annFuture)).toBe(false)
    const [past] = rowsOf(await query("event_occurrences", { fields: ["registered_enrollment_count", "waiting_enrollment_count", "late_canceled_enrollment_count"], filter: ["eq", "event_occurrence_id", studioIds.past] }, asStudio()))
    expect(past).toEqual({ registered_enrollment_count: 2, waiting_enrollment_count: 0, late_canceled_enrollment_count: 0 })
    const [ann] = rowsOf(await query("clients", { fields: ["future_visits"], filter: ["eq", "person_id", studioIds.ann] }, asStudio()))
    expect(ann).toEqual({ future_visits: 0 })
  })
})
