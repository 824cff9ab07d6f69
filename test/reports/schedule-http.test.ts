import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { enrollmentsCatalog } from "../../reports/catalog/enrollments.ts"
import { eventOccurrenceStaffMembersCatalog } from "../../reports/catalog/event-occurrence-staff-members.ts"
import { eventOccurrencesCatalog } from "../../reports/catalog/event-occurrences.ts"
import { OCCURRENCE_COUNTS } from "../../reports/catalog/service-fields.ts"
import type { ResourceCatalog } from "../../reports/catalog/types.ts"
import { syncReports } from "../../reports/sync/sync.ts"
import { createBusiness, createLocation, createPerson, createToken } from "../support/factories.ts"
import { TEST_BASE_DOMAIN, type TestServer, startTestServer } from "../support/server.ts"
import { rowsOf, reportQuery } from "./support.ts"
import { createCategory, createService } from "../schedule/fixtures.ts"

/**
 * The schedule's and enrollment's report resources over HTTP: every field, grouping and sort
 * of event_occurrences, event_occurrence_staff_members and enrollments on rows synced from the
 * schedule and enrollment tables, the visit columns of clients, franchise scoping, and changes
 * reaching reports through the incremental sync. Rows are written straight to SQL so the file
 * stays fast (test/reports/freshness.test.ts goes through the Core API).
 */

let server: TestServer
const dataDir = path.resolve(`.data/test/reports-schedule-${process.pid}`)
const reportsDir = path.join(dataDir, "reports")
let demo: { id: number; subdomain: string }
let holding: { id: number; subdomain: string }
let east: { id: number; subdomain: string }
const tokens: Record<string, string> = {}
let ivy: Awaited<ReturnType<typeof createPerson>>
let tom: Awaited<ReturnType<typeof createPerson>>
let nyc: { id: number; name: string }
let yogaId: number
let massageId: number
let eventId: number
let flowId: number
let apptId: number

const query = (resource: string, attributes: unknown, options: { host?: string; token?: string } = {}) =>
  reportQuery(server.request, resource, attributes, {
    token: options.token ?? tokens.owner!,
    ...(options.host ? { host: `${options.host}.${TEST_BASE_DOMAIN}` } : {})
  })


const sync = (mode: "full" | "incremental") => syncReports({ databaseUrl: server.databaseUrl, dir: reportsDir, mode })

const insertOccurrence = async (
  businessId: number,
  fields: {
    service_id: number
    event_id?: number
    scheduled_date?: string
    location_id?: number
    name: string
    start_at: string
    end_at: string
    time_zone: string
    state?: string
    capacity?: number | null
    attendance_complete?: boolean
    staff?: Array<number>
  }
) => {
  const { rows } = await server.pool.query(
    `insert into event_occurrences (business_id, event_id, scheduled_date, service_id, location_id, name, start_at, end_at, time_zone,
       state, capacity, attendance_complete)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) returning id`,
    [
      businessId,
      fields.event_id ?? null,
      fields.scheduled_date ?? null,
      fields.service_id,
      fields.location_id ?? null,
      fields.name,
      fields.start_at,
      fields.end_at,
      fields.time_zone,
      fields.state ?? "active",
      fields.capacity ?? null,
      fields.attendance_complete ?? false
    ]
  )
  const id = Number(rows[0].id)
  for (const [position, staffMemberId] of (fields.staff ?? []).entries()) {
    await server.pool.query(
      `insert into event_occurrence_staff_members (business_id, event_occurrence_id, staff_member_id, position) values ($1, $2, $3, $4)`,
      [businessId, id, staffMemberId, position]
    )
  }
  return id
}

const zeroCounts = Object.fromEntries(OCCURRENCE_COUNTS.map((name) => [name, 0]))
const zeroTotals = Object.fromEntries(OCCURRENCE_COUNTS.map((name) => [`total_${name}`, 0]))

beforeAll(async () => {
  fs.rmSync(dataDir, { recursive: true, force: true })
  server = await startTestServer({ dataDir })
  const pool = server.pool
  demo = await createBusiness(pool, { subdomain: "demo", name: "Demo Studio", time_zone: "America/Los_Angeles" })
  holding = await createBusiness(pool, { subdomain: "holding", name: "Holding" })
  east = await createBusiness(pool, { subdomain: "east", name: "East", franchise_parent_id: holding.id })

  const owner = await createPerson(pool, demo.id, { first_name: "Olive", last_name: "Owner", role: "owner" })
  tokens.owner = await createToken(pool, owner.accountId, demo.id)
  const holdingOwner = await createPerson(pool, holding.id, { role: "owner" })
  tokens.holdingOwner = await createToken(pool, holdingOwner.accountId, holding.id)

  nyc = await createLocation(pool, demo.id, { name: "NYC", time_zone: "America/New_York" })
  const home = await createLocation(pool, demo.id, { name: "Home Base" })
  ivy = await createPerson(pool, demo.id, { first_name: "Ivy", last_name: "Instructor", email: "ivy@example.test", role: "standard" })
  await pool.query(`update people set phone = '555-0101', address = '9 Studio Lane', location_id = $3 where business_id = $1 and id = $2`, [
    demo.id,
    ivy.personId,
    home.id
  ])
  tom = await createPerson(pool, demo.id, { first_name: "Tom", last_name: "Trainer", email: "tom@example.test", role: "manager" })

  const category = await createCategory(pool, demo.id, "Yoga")
  yogaId = await createService(pool, demo.id, { type: "GroupClass", name: "Vinyasa", category_id: category })
  massageId = await createService(pool, demo.id, { type: "Appointment", name: "Massage" })
  const event = await pool.query(
    `insert into events (business_id, service_id, location_id, name, frequency, start_date, start_time, end_time)
     values ($1, $2, $3, 'Morning Flow', 'once', '2024-06-03', '09:00', '10:30') returning id`,
    [demo.id, yogaId, nyc.id]
  )
  eventId = Number(event.rows[0].id)
  // Monday 3 June 2024, 09:00 in New York (EDT), 90 minutes.
  flowId = await insertOccurrence(demo.id, {
    service_id: yogaId,
    event_id: eventId,
    scheduled_date: "2024-06-03",
    location_id: nyc.id,
    name: "Morning Flow",
    start_at: "2024-06-03T13:00:00Z",
    end_at: "2024-06-03T14:30:00Z",
    time_zone: "America/New_York",
    capacity: 12,
    attendance_complete: true,
    staff: [ivy.staffMemberId!, tom.staffMemberId!]
  })
  // Saturday 8 June 2024, 19:30 in Los Angeles (no location: the business's zone), canceled.
  apptId = await insertOccurrence(demo.id, {
    service_id: massageId,
    name: "Massage",
    start_at: "2024-06-09T02:30:00Z",
    end_at: "2024-06-09T03:30:00Z",
    time_zone: "America/Los_Angeles",
    state: "canceled",
    capacity: 1,
    staff: [ivy.staffMemberId!]
  })

  const eastStaff = await createPerson(pool, east.id, { first_name: "Eve", last_name: "East", role: "owner" })
  const eastService = await createService(pool, east.id, { type: "Course", name: "Pottery" })
  await insertOccurrence(east.id, {
    service_id: eastService,
    name: "Pottery",
    start_at: "2024-06-04T16:00:00Z",
    end_at: "2024-06-04T18:00:00Z",
    time_zone: "America/Los_Angeles",
    staff: [eastStaff.staffMemberId!]
  })

  await seedStudio()
  await sync("full")
})
afterAll(async () => {
  await server?.close()
  fs.rmSync(dataDir, { recursive: true, force: true })
})

/** Every grouping answers (group_label typed like it) and its groups add up to the rows. */
const everyGrouping = async (catalog: ResourceCatalog, rows: number, options: { host?: string; token?: string } = {}) => {
  for (const [name, grouping] of catalog.groupings) {
    const response = await query(catalog.resource, { fields: ["total_count"], group: name }, options)
    expect(response.status, `${name}: ${response.text}`).toBe(200)
    expect(response.json.data.attributes.fields, name).toEqual([
      { name: "group_label", type: grouping.type },
      { name: "total_count", type: "integer" }
    ])
    const total = (response.json.data.attributes.rows as Array<[unknown, number]>).reduce((sum, row) => sum + row[1], 0)
    expect(total, name).toBe(rows)
  }
}

/** Every detail field sorts (detail rows) and every summary field sorts (summary rows), both ways. */
const everySort = async (catalog: ResourceCatalog, options: { host?: string; token?: string } = {}) => {
  let descending = false
  for (const name of catalog.detail.keys()) {
    descending = !descending
    const response = await query(catalog.resource, { fields: ["key"], sort: [`${name}${descending ? "-" : "+"}`], page: { limit: 2 } }, options)
    expect(response.status, `${name}: ${response.text}`).toBe(200)
  }
  for (const name of catalog.summary.keys()) {
    descending = !descending
    const response = await query(catalog.resource, { fields: ["total_count"], group: "service_type", sort: [`${name}${descending ? "-" : "+"}`] }, options)
    expect(response.status, `${name}: ${response.text}`).toBe(200)
  }
}

const flowRow = () => ({
  business_id: demo.id,
  business_name: "Demo Studio",
  business_subdomain: "demo",
  franchise_id: null,
  currency_code: "USD",
  key: `${demo.id}-${flowId}`,
  attendance_completed: "t",
  capacity: 12,
  ...zeroCounts,
  duration_in_hours: 1.5,
  duration_in_minutes: 90,
  end_at: "2024-06-03T10:30:00-04:00",
  event_id: eventId,
  event_name: "Morning Flow",
  event_occurrence_id: flowId,
  service_category: "Yoga",
  service_date: "2024-06-03",
  service_day: "1",
  service_id: yogaId,
  service_location_id: nyc.id,
  service_location_name: "NYC",
  service_name: "Vinyasa",
  service_state: "active",
  service_time: "09:00:00",
  service_type: "group_class",
  start_at: "2024-06-03T09:00:00-04:00"
})

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

// ---------------------------------------------------------------------------------------------
// Enrollments, in a business of their own ("studio") so the schedule's counts above stay zero

let studio: { id: number; subdomain: string }
const studioIds: Record<string, number> = {}
const asStudio = () => ({ host: "studio", token: tokens.studioOwner! })

const seedStudio = async () => {
  const pool = server.pool
  studio = await createBusiness(pool, { subdomain: "studio", name: "Studio", time_zone: "America/Los_Angeles" })
  const owner = await createPerson(pool, studio.id, { first_name: "Sue", last_name: "Owner", role: "owner" })
  tokens.studioOwner = await createToken(pool, owner.accountId, studio.id)
  const main = await createLocation(pool, studio.id, { name: "Main" })
  const iris = await createPerson(pool, studio.id, { first_name: "Iris", last_name: "Teacher", role: "standard" })
  const category = await createCategory(pool, studio.id, "Mat")
  const pilates = await createService(pool, studio.id, { type: "GroupClass", name: "Pilates", category_id: category })
  // Tuesday 4 June 2024, 17:00-18:00 in Los Angeles; Wednesday 9 January 2030 (the future).
  const past = await insertOccurrence(studio.id, {
    service_id: pilates,
    location_id: main.id,
    name: "Mat Pilates",
    start_at: "2024-06-05T00:00:00Z",
    end_at: "2024-06-05T01:00:00Z",
    time_zone: "America/Los_Angeles",
    capacity: 10,
    staff: [iris.staffMemberId!]
  })
  const future = await insertOccurrence(studio.id, {
    service_id: pilates,
    location_id: main.id,
    name: "Mat Pilates",
    start_at: "2030-01-10T00:00:00Z",
    end_at: "2030-01-10T01:00:00Z",
    time_zone: "America/Los_Angeles",
    capacity: 10,
    staff: [iris.staffMemberId!]
  })
  const person = async (first: string, extra: { email?: string; phone?: string } = {}) => {
    const created = await createPerson(pool, studio.id, { first_name: first, last_name: "Client", email: extra.email ?? `${first.toLowerCase()}@example.test` })
    if (extra.phone) await pool.query(`update people set phone = $3 where business_id = $1 and id = $2`, [studio.id, created.personId, extra.phone])
    return created.personId
  }
  const pat = await person("Pat", { phone: "555-0100" })
  const ann = await person("Ann", { phone: "555-0199" })
  await pool.query(`update people set birthdate = '2010-05-01', address = '12 Elm Street', location_id = $3 where business_id = $1 and id = $2`, [studio.id, ann, main.id])
  await pool.query(`insert into person_relationships (business_id, provider_id, dependent_id) values ($1, $2, $3)`, [studio.id, pat, ann])
  const bob = await person("Bob")
  const cat = await person("Cat")
  const dan = await person("Dan")
  const eve = await person("Eve")
  const visit = async (occurrenceId: number, personId: number, fields: Record<string, unknown>) => {
    const names = Object.keys(fields)
    const { rows } = await pool.query(
      `insert into visits (business_id, event_occurrence_id, person_id, ${names.join(", ")})
       values ($1, $2, $3, ${names.map((_, i) => `$${i + 4}`).join(", ")}) returning id`,
      [studio.id, occurrenceId, personId, ...Object.values(fields)]
    )
    return Number(rows[0].id)
  }
  const entry = async (personId: number, state: string, createdBy: number | null) => {
    const { rows } = await pool.query(
      `insert into waitlist_entries (business_id, event_occurrence_id, person_id, state, created_by_staff_member_id, created_at)
       values ($1, $2, $3, $4, $5, '2024-06-02T16:00:00Z') returning id`,
      [studio.id, past, personId, state, createdBy]
    )
    return Number(rows[0].id)
  }
  studioIds.past = past
  studioIds.future = future
  studioIds.ann = ann
  studioIds.bob = bob
  studioIds.cat = cat
  studioIds.main = main.id
  studioIds.pilates = pilates
  // Ann: booked by staff, attended; Bob: canceled four hours ahead, got a make-up.
  studioIds.annPast = await visit(past, ann, {
    state: "completed",
    created_by_staff_member_id: owner.staffMemberId,
    registered_at: "2024-06-01T17:00:00Z",
    completed_at: "2024-06-05T01:05:00Z"
  })
  studioIds.bobPast = await visit(past, bob, { state: "late_canceled", registered_at: "2024-06-01T17:00:00Z", cancelled_at: "2024-06-04T20:00:00Z" })
  await pool.query(`insert into make_ups (business_id, visit_id, person_id, service_id) values ($1, $2, $3, $4)`, [studio.id, studioIds.bobPast, bob, pilates])
  // Eve came off the waitlist; Cat waits (added by staff); Dan's entry expired.
  studioIds.eveEntry = await entry(eve, "enrolled", null)
  studioIds.evePast = await visit(past, eve, { state: "registered", registered_at: "2024-06-03T16:00:00Z" })
  studioIds.catEntry = await entry(cat, "waiting", owner.staffMemberId!)
  studioIds.danEntry = await entry(dan, "expired", null)
  // Ann's future session, part of a course booking she made herself.
  const booking = await pool.query(`insert into bookings (business_id, state, person_id, expires_at) values ($1, 'completed', $2, now()) returning id`, [studio.id, ann])
  const lease = await pool.query(
    `insert into leases (business_id, booking_id, kind, state, person_id, event_occurrence_id, service_id, event_id)
     values ($1, $2, 'event_occurrence', 'registered', $3, $4, $5, null) returning id`,
    [studio.id, booking.rows[0].id, ann, future, pilates]
  )
  studioIds.annFuture = await visit(future, ann, {
    state: "registered",
    booking_id: booking.rows[0].id,
    lease_id: lease.rows[0].id,
    registered_at: "2024-06-01T17:00:00Z"
  })
  await pool.query(`insert into waivers (business_id, person_id, name, accepted, accepted_at) values ($1, $2, 'Adult waiver', true, '2024-05-01T00:00:00Z')`, [
    studio.id,
    ann
  ])
}

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
