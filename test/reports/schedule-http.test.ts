import { describe, expect, it } from "vitest"
import { eventOccurrencesCatalog } from "../../reports/catalog/event-occurrences.ts"
import { eventOccurrenceStaffMembersCatalog } from "../../reports/catalog/event-occurrence-staff-members.ts"
import { rowsOf } from "./support.ts"
import { apptId, demo, everyGrouping, everySort, flowId, flowRow, holding, ivy, massageId, query, server, setUpScheduleReports, sync, tokens, tom, zeroTotals } from "./schedule-http-setup.ts"

/**
 * The schedule's report resources over HTTP: every field, grouping and sort of event_occurrences
 * and event_occurrence_staff_members on rows synced from the schedule tables, franchise scoping,
 * and changes reaching reports through the incremental sync (data: schedule-http-setup.ts).
 */

setUpScheduleReports()

describe("POST /desk/api/v3/reports/event_occurrences/queries", () => {
  const catalog = eventOccurrencesCatalog

  it("returns every detail field from the schedule, in its wire type and the event location's zone", async () => {
    const names = [...catalog.detail.keys()]
    const response = await query("event_occurrences", { fields: names, sort: ["start_at+"], total_count: true })
    const fields = response.json.data.attributes.fields as Array<{ name: string; type: string }>
    expect(fields.map((f) => f.name)).toEqual(names)
    for (const field of fields) expect(field.type).toBe(catalog.detail.get(field.name)!.type)
    expect(response.json.data.attributes.total_count).toBe(2)
    const [flow, appointment] = rowsOf(response)
    expect(flow).toEqual({ ...flowRow(), instructor_names: "Ivy Instructor, Tom Trainer" })
    expect(appointment).toEqual({
      ...flowRow(),
      key: `${demo.id}-${apptId}`,
      attendance_completed: "f",
      capacity: 1,
      duration_in_hours: 1,
      duration_in_minutes: 60,
      // No location: the business's zone.
      start_at: "2024-06-08T19:30:00-07:00",
      end_at: "2024-06-08T20:30:00-07:00",
      event_id: null,
      event_name: "Massage",
      event_occurrence_id: apptId,
      instructor_names: "Ivy Instructor",
      service_category: null,
      service_date: "2024-06-08",
      service_day: "6",
      service_id: massageId,
      service_location_id: null,
      service_location_name: null,
      service_name: "Massage",
      // Canceled: off the schedule.
      service_state: "deleted",
      service_time: "19:30:00",
      service_type: "appointment"
    })
  })

  it("groups by every grouping", async () => {
    await everyGrouping(catalog, 2)
    expect(rowsOf(await query("event_occurrences", { fields: ["total_count"], group: "service_week_sun_start_date" }))).toEqual([
      { group_label: "2024-06-02", total_count: 2 }
    ])
    expect(rowsOf(await query("event_occurrences", { fields: ["total_count"], group: "instructor_names", sort: ["group_label+"] }))).toEqual([
      { group_label: "Ivy Instructor", total_count: 1 },
      { group_label: "Ivy Instructor, Tom Trainer", total_count: 1 }
    ])
  })

  it("returns every summary field", async () => {
    const names = [...catalog.summary.keys()]
    const response = await query("event_occurrences", { fields: names, group: "business_id" })
    expect(response.json.data.attributes.fields.map((f: { name: string }) => f.name)).toEqual(["group_label", ...names])
    expect(rowsOf(response)).toEqual([
      {
        group_label: demo.id,
        business_id_summary: String(demo.id),
        business_subdomain_summary: "demo",
        total_count: 2,
        attendance_completed_count: 1,
        event_count: 1,
        event_occurrence_count: 2,
        service_count: 2,
        total_capacity: 13,
        total_duration_in_hours: 2.5,
        total_duration_in_minutes: 150,
        ...zeroTotals
      }
    ])
  })

  it("sorts by every detail and summary field, and filters on the schedule's values", async () => {
    await everySort(catalog)
    const names = async (filter: unknown) =>
      rowsOf(await query("event_occurrences", { fields: ["service_name"], filter, sort: ["service_name+"] })).map((r) => r.service_name)
    expect(await names(["eq", "service_state", "active"])).toEqual(["Vinyasa"])
    expect(await names(["eq", "service_day", "6"])).toEqual(["Massage"])
    expect(await names(["contains", "instructor_names", "tom"])).toEqual(["Vinyasa"])
    expect(await names(["btw", "start_at", "2024-06-03T00:00:00Z", "2024-06-04T00:00:00Z"])).toEqual(["Vinyasa"])
  })

  it("scopes a franchise holding to its franchisees", async () => {
    const rows = rowsOf(await query("event_occurrences", { fields: ["business_subdomain", "franchise_id", "service_type"] }, { host: "holding", token: tokens.holdingOwner! }))
    expect(rows).toEqual([{ business_subdomain: "east", franchise_id: holding.id, service_type: "course" }])
  })
})

describe("POST /desk/api/v3/reports/event_occurrence_staff_members/queries", () => {
  const catalog = eventOccurrenceStaffMembersCatalog

  it("returns one row per staff member of each occurrence with every detail field", async () => {
    const names = [...catalog.detail.keys()]
    const response = await query("event_occurrence_staff_members", { fields: names, sort: ["start_at+", "full_name+"] })
    const fields = response.json.data.attributes.fields as Array<{ name: string; type: string }>
    expect(fields.map((f) => f.name)).toEqual(names)
    for (const field of fields) expect(field.type).toBe(catalog.detail.get(field.name)!.type)
    const rows = rowsOf(response)
    expect(rows.map((r) => [r.event_occurrence_id, r.full_name])).toEqual([
      [flowId, "Ivy Instructor"],
      [flowId, "Tom Trainer"],
      [apptId, "Ivy Instructor"]
    ])
    const { instructor_names: _, ...occurrence } = { ...flowRow(), instructor_names: null }
    expect(rows[0]).toEqual({
      ...occurrence,
      key: `${demo.id}-${flowId}-${ivy.personId}`,
      // The staff member's stored address .
      address: "9 Studio Lane",
      email: "ivy@example.test",
      full_name: "Ivy Instructor",
      home_location_id: expect.any(Number),
      home_location_name: "Home Base",
      person_id: ivy.personId,
      phone: "555-0101",
      role: "standard"
    })
    expect(rows[1]).toMatchObject({ person_id: tom.personId, role: "manager", email: "tom@example.test", home_location_id: null, home_location_name: null, phone: null })
  })

  it("groups by every grouping, with person_count", async () => {
    await everyGrouping(catalog, 3)
    expect(rowsOf(await query("event_occurrence_staff_members", { fields: ["total_count", "person_count", "event_occurrence_count"], group: "role", sort: ["group_label+"] }))).toEqual([
      { group_label: "manager", total_count: 1, person_count: 1, event_occurrence_count: 1 },
      { group_label: "standard", total_count: 2, person_count: 1, event_occurrence_count: 2 }
    ])
  })

  it("returns every summary field", async () => {
    const names = [...catalog.summary.keys()]
    const response = await query("event_occurrence_staff_members", { fields: names, group: "full_name", sort: ["group_label+"] })
    expect(response.json.data.attributes.fields.map((f: { name: string }) => f.name)).toEqual(["group_label", ...names])
    expect(rowsOf(response)).toEqual([
      {
        group_label: "Ivy Instructor",
        business_id_summary: String(demo.id),
        business_subdomain_summary: "demo",
        total_count: 2,
        attendance_completed_count: 1,
        event_count: 1,
        event_occurrence_count: 2,
        service_count: 2,
        total_capacity: 13,
        total_duration_in_hours: 2.5,
        total_duration_in_minutes: 150,
        ...zeroTotals,
        person_count: 1
      },
      {
        group_label: "Tom Trainer",
        business_id_summary: String(demo.id),
        business_subdomain_summary: "demo",
        total_count: 1,
        attendance_completed_count: 1,
        event_count: 1,
        event_occurrence_count: 1,
        service_count: 1,
        total_capacity: 12,
        total_duration_in_hours: 1.5,
        total_duration_in_minutes: 90,
        ...zeroTotals,
        person_count: 1
      }
    ])
  })

  it("sorts by every detail and summary field", async () => {
    await everySort(catalog)
  })
})

describe("freshness", () => {
  it("shows an occurrence change, and a staff member's, after the incremental sync", async () => {
    const pool = server.pool
    // As the schedule's repos write: rescheduling replaces the staff and bumps updated_at.
    await pool.query(
      `update event_occurrences set capacity = 20, attendance_complete = false, updated_at = now() where business_id = $1 and id = $2`,
      [demo.id, flowId]
    )
    await pool.query(`delete from event_occurrence_staff_members where business_id = $1 and event_occurrence_id = $2 and staff_member_id = $3`, [
      demo.id,
      flowId,
      tom.staffMemberId
    ])
    await pool.query(`update people set first_name = 'Ivana', updated_at = now() where business_id = $1 and id = $2`, [demo.id, ivy.personId])

    // (Rows written in the last OVERLAP_MS are read again as well: the counts are not asserted.)
    expect((await sync("incremental")).outcome).toBe("incremental")

    const [flow] = rowsOf(await query("event_occurrences", { fields: ["capacity", "attendance_completed", "instructor_names"], filter: ["eq", "event_occurrence_id", flowId] }))
    expect(flow).toEqual({ capacity: 20, attendance_completed: "f", instructor_names: "Ivana Instructor" })
    const staff = rowsOf(await query("event_occurrence_staff_members", { fields: ["event_occurrence_id", "full_name", "capacity"], sort: ["event_occurrence_id+"] }))
    expect(staff).toEqual([
      { event_occurrence_id: flowId, full_name: "Ivana Instructor", capacity: 20 },
      { event_occurrence_id: apptId, full_name: "Ivana Instructor", capacity: 1 }
    ])

    // Nothing changed since: only the watermark moves.
    expect((await sync("incremental")).outcome).toBe("unchanged")
  })
})
