import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, expect } from "vitest"
import { OCCURRENCE_COUNTS } from "../../reports/catalog/service-fields.ts"
import type { ResourceCatalog } from "../../reports/catalog/types.ts"
import { syncReports } from "../../reports/sync/sync.ts"
import { createBusiness, createLocation, createPerson, createToken } from "../support/factories.ts"
import { TEST_BASE_DOMAIN, type TestServer, startTestServer } from "../support/server.ts"
import { reportQuery } from "./support.ts"
import { createCategory, createService } from "../schedule/fixtures.ts"

/**
 * The data of the schedule's and enrollment's report tests over HTTP (schedule-http.test.ts and
 * enrollments-http.test.ts), one server and store per test file: a "demo" business with a class
 * and an appointment, a franchise ("holding", "east"), and a "studio" business with enrollments.
 * Rows are written straight to SQL so the files stay fast (test/reports/freshness.test.ts goes
 * through the Core API).
 */

export let server: TestServer
const dataDir = path.resolve(`.data/test/reports-schedule-${process.pid}`)
const reportsDir = path.join(dataDir, "reports")
export let demo: { id: number; subdomain: string }
export let holding: { id: number; subdomain: string }
export let east: { id: number; subdomain: string }
export const tokens: Record<string, string> = {}
export let ivy: Awaited<ReturnType<typeof createPerson>>
export let tom: Awaited<ReturnType<typeof createPerson>>
let nyc: { id: number; name: string }
let yogaId: number
export let massageId: number
let eventId: number
export let flowId: number
export let apptId: number

export const query = (resource: string, attributes: unknown, options: { host?: string; token?: string } = {}) =>
  reportQuery(server.request, resource, attributes, {
    token: options.token ?? tokens.owner!,
    ...(options.host ? { host: `${options.host}.${TEST_BASE_DOMAIN}` } : {})
  })

export const sync = (mode: "full" | "incremental") => syncReports({ databaseUrl: server.databaseUrl, dir: reportsDir, mode })

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
export const zeroTotals = Object.fromEntries(OCCURRENCE_COUNTS.map((name) => [`total_${name}`, 0]))

// ---------------------------------------------------------------------------------------------
// Enrollments, in a business of their own ("studio") so the schedule's counts above stay zero

export let studio: { id: number; subdomain: string }
export const studioIds: Record<string, number> = {}
export const asStudio = () => ({ host: "studio", token: tokens.studioOwner! })

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

/** Registers the file's server, its data and the first full sync (and their clean-up). */
export const setUpScheduleReports = () => {
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
}

/** Every grouping answers (group_label typed like it) and its groups add up to the rows. */
export const everyGrouping = async (catalog: ResourceCatalog, rows: number, options: { host?: string; token?: string } = {}) => {
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
export const everySort = async (catalog: ResourceCatalog, options: { host?: string; token?: string } = {}) => {
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

export const flowRow = () => ({
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
