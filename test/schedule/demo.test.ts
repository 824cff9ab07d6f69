import { Exit } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { seedDemo } from "../../src/tools/demo/seed.ts"
import { createEvent } from "../../src/schedule/events/service.ts"
import { importBusiness } from "../../src/tools/import/service.ts"
import { makeSettableClock } from "../support/clock.ts"
import { type TestServer, startTestServer } from "../support/server.ts"
import { occurrencesOf } from "./fixtures.ts"

/**
 * The demo business out of the box: every service type, a hidden staff member, a course,
 * recurring classes and appointment hours; and the import format's schedule.
 */
const clock = makeSettableClock("2026-11-18T20:00:00Z") // Wednesday noon in Los Angeles
let server: TestServer
let seed: Awaited<ReturnType<typeof run<{ ownerToken: string; clientToken: string }>>>

const run = <A>(effect: Parameters<TestServer["runtime"]["runPromise"]>[0]) => server.runtime.runPromise(effect) as Promise<A>

beforeAll(async () => {
  server = await startTestServer({ clock: clock.clock, worker: true, dataDir: `.data/test/schedule-demo-${process.pid}-${Date.now()}` })
  seed = await run(seedDemo)
})
afterAll(async () => server?.close())

describe("the demo business", () => {
  it("lists that week's classes on GET /api/v2/front/event_occurrences with client_id=demo-app", async () => {
    const response = await server.request(
      "GET",
      "/api/v2/front/event_occurrences?from=2026-11-16T00:00:00-08:00&to=2026-11-22T23:59:59-08:00&client_id=demo-app"
    )
    expect(response.status).toBe(200)
    const classes = response.json.event_occurrences.map(
      (o: { name: string; timezone: string; start_at: string; end_at: string; staff_members: Array<{ name: string }> }) => ({
        name: o.name,
        timezone: o.timezone,
        start_at: o.start_at,
        end_at: o.end_at,
        staff: o.staff_members.map((s) => s.name)
      })
    )
    const vinyasa = { name: "Vinyasa Flow", timezone: "America/Los_Angeles", staff: ["Ines Alvarez"] }
    const yin = { name: "Yin Yoga", timezone: "America/Los_Angeles", staff: ["Ines Alvarez"] }
    const reformer = { name: "Reformer Pilates", timezone: "America/New_York", staff: ["Tom Becker"] }
    expect(classes).toEqual([
      { ...vinyasa, start_at: "2026-11-16T15:00:00Z", end_at: "2026-11-16T16:00:00Z" },
      { ...reformer, start_at: "2026-11-16T22:30:00Z", end_at: "2026-11-16T23:20:00Z" },
      { ...yin, start_at: "2026-11-18T03:00:00Z", end_at: "2026-11-18T04:15:00Z" },
      { ...vinyasa, start_at: "2026-11-18T15:00:00Z", end_at: "2026-11-18T16:00:00Z" },
      { ...reformer, start_at: "2026-11-18T22:30:00Z", end_at: "2026-11-18T23:20:00Z" },
      { ...yin, start_at: "2026-11-20T03:00:00Z", end_at: "2026-11-20T04:15:00Z" },
      { ...vinyasa, start_at: "2026-11-20T15:00:00Z", end_at: "2026-11-20T16:00:00Z" },
      { ...reformer, start_at: "2026-11-21T22:30:00Z", end_at: "2026-11-21T23:20:00Z" }
    ])
    // Members see the members-only class too, where the hidden teacher is left out.
    const member = await server.pool.query(
      `select p.id from people p join businesses b on b.id = p.business_id where b.subdomain = 'demo' and p.is_member order by p.id limit 1`
    )
    expect(member.rowCount).toBe(1)
    const desk = await server.request("GET", "/api/v2/desk/event_occurrences?from=2026-11-21T00:00:00-08:00", { token: seed.ownerToken })
    expect(desk.json.event_occurrences.map((o: { name: string }) => o.name)).toEqual(["Members' Sunrise Flow", "Reformer Pilates"])
    expect(desk.json.event_occurrences[0].staff_members.map((s: { name: string }) => s.name)).toEqual(["Sam Okoye", "Ines Alvarez"])
  })

  it("has every service type, a course, a hidden staff member and appointment hours", async () => {
    const services = await server.request("GET", "/api/v2/desk/services?include_hidden=true", { token: seed.ownerToken })
    expect(new Set(services.json.services.map((s: { type: string }) => s.type))).toEqual(new Set(["GroupClass", "Course", "Appointment"]))
    expect(services.json.categories.map((c: { name: string }) => c.name)).toEqual(["Yoga", "Pilates", "Courses", "Private sessions"])
    const course = await server.request("GET", "/api/v2/front/events?client_id=demo-app")
    const intro = course.json.events.find((e: { name: string }) => e.name === "Intro to Yoga (6 weeks)")
    expect(intro).toMatchObject({ start_time: "2027-01-10T18:00:00Z", end_time: "2027-02-14T19:30:00Z", recurrence: { session_count: 6 } })
    const staff = await server.request("GET", "/api/v2/front/staff_members?client_id=demo-app")
    expect(staff.json.staff_members.map((s: { name: string }) => s.name)).not.toContain("Sam Okoye")
    const privateYoga = services.json.services.find((s: { name: string }) => s.name === "Private Yoga Session")
    const slots = await server.request("GET", `/api/v2/front/appointments/${privateYoga.id}/available_slots?date=2026-11-19&client_id=demo-app`)
    expect(slots.json.available_slots.length).toBeGreaterThan(0)
    const summary = await server.request("GET", `/api/v2/desk/appointments/${privateYoga.id}/available_slots/summary`, { token: seed.ownerToken })
    expect(summary.json["2026-11-21"]).toBeGreaterThan(0) // Sam's Saturday hours
    const eligibility = await server.request("GET", `/api/v2/front/services/${privateYoga.id}/enrollment_eligibilities`, { token: seed.clientToken })
    expect(eligibility.json.enrollment_eligibilities).toHaveLength(2) // the client and their child
  })

  it("materializes a new event through the worker, from the job its creation enqueued", async () => {
    const business = await server.pool.query(`select id from businesses where subdomain = 'demo'`)
    const businessId = Number(business.rows[0].id)
    const yin = await server.pool.query(`select id from services where business_id = $1 and name = 'Yin Yoga'`, [businessId])
    const eventId = await run<number>(
      createEvent(businessId, {
        service_id: Number(yin.rows[0].id),
        location_id: null,
        name: "Full Moon Yin",
        frequency: "once",
        weekdays: [],
        start_date: "2026-11-24",
        start_time: "20:00",
        end_time: "21:30",
        staff_member_ids: []
      })
    )
    let rows: Awaited<ReturnType<typeof occurrencesOf>> = []
    for (let attempt = 0; attempt < 100 && rows.length === 0; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100))
      rows = await occurrencesOf(server.pool, businessId, eventId)
    }
    expect(rows).toEqual([{ id: expect.any(Number), date: "2026-11-24", start_at: "2026-11-25T04:00:00Z", end_at: "2026-11-25T05:30:00Z", state: "active" }])
  })
})

describe("the import format's schedule", () => {
  const document = (subdomain: string, extra: Record<string, unknown>) => ({
    business: { subdomain, name: "Schedule Test", time_zone: "Europe/Berlin", currency_code: "EUR", default_locale: "de" },
    locations: [{ key: "mitte", name: "Mitte" }],
    staff: [{ email: `owner@${subdomain}.test`, first_name: "Olga", last_name: "Owner", role: "owner" }],
    ...extra
  })

  it("imports services, working hours and events, and materializes them", async () => {
    const summary = await run<{ counts: Record<string, number> }>(
      importBusiness({
        ...document("berlin", {}),
        staff: [
          {
            email: "owner@berlin.test",
            first_name: "Olga",
            last_name: "Owner",
            role: "owner",
            working_hours: [{ location: "mitte", days: ["monday"], start_time: "09:00", end_time: "12:00" }]
          }
        ],
        services: [
          { key: "yoga", name: "Yoga", type: "GroupClass", duration_in_minutes: 60 },
          {
            key: "pt",
            name: "Personal",
            type: "Appointment",
            duration_in_minutes: 30,
            staff: ["owner@berlin.test"],
            anonymous_staff: true,
            show_capacity_to_clients: false,
            allow_tips: true,
            number_of_free_visits: 1
          }
        ],
        events: [
          { service: "yoga", location: "mitte", staff: ["owner@berlin.test"], frequency: "weekly", days: ["tuesday"], start_date: "2026-11-03", start_time: "18:00", end_time: "19:00" }
        ]
      })
    )
    expect(summary.counts).toMatchObject({ services: 2, events: 1 })
    expect(summary.counts.event_occurrences).toBeGreaterThan(10)
    const hours = await server.pool.query(
      `select to_char(start_time, 'HH24:MI') as start from staff_working_hours h join businesses b on b.id = h.business_id where b.subdomain = 'berlin'`
    )
    expect(hours.rows).toEqual([{ start: "09:00" }])
    const settings = await server.pool.query(
      `select s.name, s.anonymous_staff, s.show_capacity_to_clients, s.allow_tips, s.number_of_free_visits, s.supports_single_payer
       from services s join businesses b on b.id = s.business_id where b.subdomain = 'berlin' order by s.name`
    )
    expect(settings.rows).toEqual([
      { name: "Personal", anonymous_staff: true, show_capacity_to_clients: false, allow_tips: true, number_of_free_visits: 1, supports_single_payer: false },
      { name: "Yoga", anonymous_staff: false, show_capacity_to_clients: null, allow_tips: false, number_of_free_visits: 0, supports_single_payer: false }
    ])
  })

  it("refuses a schedule whose references or rules do not hold, naming each problem", async () => {
    const exit = await server.runtime.runPromiseExit(
      importBusiness(
        document("broken", {
          services: [
            { key: "yoga", name: "Yoga", type: "GroupClass", duration_in_minutes: 60, staff: ["owner@broken.test"] },
            { key: "course", name: "Course", type: "Course", duration_in_minutes: 60 },
            { key: "pt", name: "PT", type: "Appointment", duration_in_minutes: 30, staff: ["nobody@broken.test"] }
          ],
          events: [
            { service: "pt", frequency: "once", start_date: "2026-12-01", start_time: "09:00", end_time: "10:00" },
            { service: "course", location: "nowhere", frequency: "weekly", days: ["monday"], start_date: "2026-12-01", end_date: "2026-11-01", start_time: "09:00", end_time: "10:00" },
            { service: "yoga", frequency: "weekly", start_date: "2026-12-01", start_time: "09:00", end_time: "10:00" }
          ]
        })
      )
    )
    expect(Exit.isFailure(exit)).toBe(true)
    const text = JSON.stringify(exit)
    for (const problem of [
      "services[0].staff: only appointment services name the staff",
      "services[2].staff[0]: no staff member with e-mail nobody@broken.test",
      "events[0].service: appointments have no events",
      'events[1].location: no location with key \\"nowhere\\"',
      "events[1].end_date: must not be before start_date",
      "events[2].days: a weekly event needs at least one day"
    ]) {
      expect(text, problem).toContain(problem)
    }
    expect((await server.pool.query(`select 1 from businesses where subdomain = 'broken'`)).rowCount).toBe(0)
    const malformed = await server.runtime.runPromiseExit(
      importBusiness(
        document("broken", {
          services: [{ key: "yoga", name: "Yoga", type: "GroupClass", duration_in_minutes: 0 }],
          events: [{ service: "yoga", frequency: "daily", start_date: "2026-02-30", start_time: "25:00", end_time: "10:00" }]
        })
      )
    )
    const lines = JSON.stringify(malformed)
    expect(lines).toContain("services[0].duration_in_minutes: must be an integer from 1 to 1440")
    expect(lines).toContain("events[0].start_time: must be a 24-hour time, HH:MM")
    expect(lines).toContain("events[0].start_date: must be a real calendar date, YYYY-MM-DD")
    expect(lines).toContain("events[0].frequency")
  })
})
