import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { deleteEvent } from "../../src/schedule/events/service.ts"
import { makeSettableClock } from "../support/clock.ts"
import { createApplication, createBusiness, createLocation, createPerson, createToken } from "../support/factories.ts"
import { TEST_BASE_DOMAIN, type TestServer, startTestServer } from "../support/server.ts"
import { createService, scheduleEvent, setStaffHidden } from "./fixtures.ts"

const clock = makeSettableClock("2026-11-20T18:00:00Z")
let server: TestServer
let business: { id: number }
let ownerToken: string
let clientToken: string
let events: Record<"yoga" | "course" | "members" | "oneOff" | "deleted" | "foreign", number>
let services: Record<"yoga" | "course" | "members", number>
let ines: number
let sam: number

const weekly = { frequency: "weekly" as const, start_time: "09:00", end_time: "10:00" }

beforeAll(async () => {
  server = await startTestServer({ clock: clock.clock })
  await createApplication(server.pool, "test-app")
  business = await createBusiness(server.pool, { subdomain: "demo" })
  const elsewhere = await createBusiness(server.pool, { subdomain: "elsewhere" })
  const main = await createLocation(server.pool, business.id, { name: "Main" })
  const annex = await createLocation(server.pool, business.id, { name: "Annex", time_zone: "America/New_York", show_in_client_mode: false })
  const owner = await createPerson(server.pool, business.id, { role: "owner" })
  ownerToken = await createToken(server.pool, owner.accountId, business.id)
  clientToken = await createToken(server.pool, (await createPerson(server.pool, business.id)).accountId, business.id)
  ines = (await createPerson(server.pool, business.id, { first_name: "Ines", last_name: "Alvarez", role: "standard" })).staffMemberId!
  sam = (await createPerson(server.pool, business.id, { first_name: "Sam", last_name: "Okoye", role: "standard" })).staffMemberId!
  await setStaffHidden(server.pool, business.id, sam)
  services = {
    yoga: await createService(server.pool, business.id, { type: "GroupClass", name: "Yoga" }),
    course: await createService(server.pool, business.id, { type: "Course", name: "Intro Course", maximum_clients: 12 }),
    members: await createService(server.pool, business.id, { type: "GroupClass", name: "Members Flow", visibility: "Members" })
  }
  const foreignService = await createService(server.pool, elsewhere.id, { type: "GroupClass", name: "Foreign" })
  events = {
    yoga: await scheduleEvent(server, business.id, {
      ...weekly,
      service_id: services.yoga,
      location_id: main.id,
      name: "Morning Yoga",
      weekdays: [1, 3],
      start_date: "2026-11-01",
      staff_member_ids: [ines, sam]
    }),
    course: await scheduleEvent(server, business.id, {
      ...weekly,
      service_id: services.course,
      location_id: main.id,
      name: "Intro Course",
      weekdays: [0],
      start_date: "2027-01-10",
      session_count: 6,
      start_time: "10:00",
      end_time: "11:30",
      staff_member_ids: [ines]
    }),
    members: await scheduleEvent(server, business.id, {
      ...weekly,
      service_id: services.members,
      location_id: main.id,
      name: "Members Flow",
      weekdays: [6],
      start_date: "2026-11-01",
      staff_member_ids: []
    }),
    oneOff: await scheduleEvent(server, business.id, {
      service_id: services.yoga,
      location_id: annex.id,
      name: "Solstice Yoga",
      frequency: "once",
      weekdays: [],
      start_date: "2026-12-21",
      start_time: "18:00",
      end_time: "20:00",
      capacity: 40,
      staff_member_ids: [ines]
    }),
    deleted: await scheduleEvent(server, business.id, {
      ...weekly,
      service_id: services.yoga,
      location_id: null,
      name: "Gone",
      weekdays: [2],
      start_date: "2026-11-01",
      staff_member_ids: []
    }),
    foreign: await scheduleEvent(server, elsewhere.id, {
      ...weekly,
      service_id: foreignService,
      location_id: null,
      name: "Foreign",
      weekdays: [2],
      start_date: "2026-11-01",
      staff_member_ids: []
    })
  }
  await server.runtime.runPromise(deleteEvent(business.id, events.deleted))
})
afterAll(async () => server?.close())

const listed = (response: { json: { events: ReadonlyArray<{ id: number }> } }) => response.json.events.map((e) => e.id)

describe("GET /api/v2/desk/events", () => {
  it("returns every live event without from and to, with its schedule", async () => {
    const response = await server.request("GET", "/api/v2/desk/events", { token: ownerToken })
    expect(response.status).toBe(200)
    expect(listed(response)).toEqual([events.yoga, events.course, events.members, events.oneOff])
    const course = response.json.events[1]
    expect(course).toEqual({
      id: events.course,
      name: "Intro Course",
      description: null,
      service_id: services.course,
      location_id: expect.any(Number),
      start_time: "2027-01-10T18:00:00Z",
      end_time: "2027-02-14T19:30:00Z",
      timezone: "America/Los_Angeles",
      capacity: 12,
      staff_members: [{ id: ines, name: "Ines Alvarez" }],
      recurrence: {
        frequency: "weekly",
        days: ["sunday"],
        interval_weeks: 1,
        start_date: "2027-01-10",
        end_date: null,
        session_count: 6,
        local_start_time: "10:00",
        local_end_time: "11:30"
      },
      attendees: [],
      created_at: expect.any(String),
      updated_at: expect.any(String)
    })
    // A recurring schedule without end has no end_time; a one-off in New York keeps its zone.
    expect(response.json.events[0]).toMatchObject({ start_time: "2026-11-02T17:00:00Z", end_time: null })
    expect(response.json.events[3]).toMatchObject({ start_time: "2026-12-21T23:00:00Z", end_time: "2026-12-22T01:00:00Z", timezone: "America/New_York", capacity: 40 })
    expect(response.json.events[0].staff_members.map((s: { id: number }) => s.id)).toEqual([ines, sam])
  })

  it("keeps the events whose sessions overlap from..to", async () => {
    const january = await server.request("GET", "/api/v2/desk/events?from=2027-01-01T00:00:00-08:00&to=2027-01-31T00:00:00-08:00", {
      token: ownerToken
    })
    expect(listed(january)).toEqual([events.yoga, events.course, events.members])
    const afterSolstice = await server.request("GET", "/api/v2/desk/events?from=2026-12-23T00:00:00Z", { token: ownerToken })
    expect(listed(afterSolstice)).toEqual([events.yoga, events.course, events.members])
    const beforeFirst = await server.request("GET", "/api/v2/desk/events?to=2026-11-01T00:00:00-0700", { token: ownerToken })
    expect(listed(beforeFirst)).toEqual([])
  })

  it("filters by ids and service_ids (unknown ids are no error)", async () => {
    expect(listed(await server.request("GET", `/api/v2/desk/events?ids=${events.course},${events.oneOff},999999`, { token: ownerToken }))).toEqual([
      events.course,
      events.oneOff
    ])
    expect(listed(await server.request("GET", `/api/v2/desk/events?service_ids=${services.yoga}`, { token: ownerToken }))).toEqual([
      events.yoga,
      events.oneOff
    ])
  })

  it("allows at most 120 days from `from`, and `to` not before `from`", async () => {
    const ok = await server.request("GET", "/api/v2/desk/events?from=2026-11-01T00:00:00Z&to=2027-03-01T00:00:00Z", { token: ownerToken })
    expect(ok.status).toBe(200)
    const long = await server.request("GET", "/api/v2/desk/events?from=2026-11-01T00:00:00Z&to=2027-03-01T00:00:01Z", { token: ownerToken })
    expect(long.status).toBe(400)
    expect(long.json).toEqual({ errors: ["from..to may span at most 120 days"] })
    const backwards = await server.request("GET", "/api/v2/desk/events?from=2026-11-02T00:00:00Z&to=2026-11-01T00:00:00Z", { token: ownerToken })
    expect(backwards.json).toEqual({ errors: ["to must not be earlier than from"] })
    const french = await server.request("GET", "/api/v2/desk/events?from=2026-11-01T00:00:00Z&to=2027-06-01T00:00:00Z", {
      token: ownerToken,
      headers: { "x-fd-locale": "fr" }
    })
    expect(french.json).toEqual({ errors: ["from..to peut couvrir au plus 120 jours"] })
    const malformed = await server.request("GET", "/api/v2/desk/events?from=yesterday&service_ids=a", { token: ownerToken })
    expect(malformed.status).toBe(400)
    expect(malformed.json.errors).toEqual([
      "from must be an ISO 8601 timestamp, such as 2015-07-06T00:00:00-07:00 (without an offset: the business's time zone)",
      "service_ids must be a positive integer"
    ])
  })

  it("refuses client mode callers and other tenants", async () => {
    expect((await server.request("GET", "/api/v2/desk/events", { token: clientToken })).status).toBe(403)
    expect((await server.request("GET", "/api/v2/desk/events?client_id=test-app")).status).toBe(401)
    expect((await server.request("GET", "/api/v2/desk/events", { host: `elsewhere.${TEST_BASE_DOMAIN}`, token: ownerToken })).status).toBe(401)
  })
})

describe("GET /api/v2/front/events", () => {
  it("lists publicly viewable events without a token, hiding staff hidden from clients", async () => {
    const response = await server.request("GET", "/api/v2/front/events?client_id=test-app")
    expect(response.status).toBe(200)
    // Members-only services and locations hidden from clients are not public.
    expect(listed(response)).toEqual([events.yoga, events.course])
    expect(response.json.events[0].staff_members).toEqual([{ id: ines, name: "Ines Alvarez" }])
  })

  it("applies the same range rules", async () => {
    const long = await server.request("GET", "/api/v2/front/events?client_id=test-app&from=2026-11-01T00:00:00Z&to=2027-11-01T00:00:00Z")
    expect(long.status).toBe(400)
    expect((await server.request("GET", "/api/v2/front/events")).status).toBe(401)
  })
})

describe("GET /api/v2/{front,desk}/events/:id", () => {
  it("gets an event in either mode", async () => {
    expect((await server.request("GET", `/api/v2/front/events/${events.course}?client_id=test-app`)).json.events[0].id).toBe(events.course)
    const desk = await server.request("GET", `/api/v2/desk/events/${events.yoga}`, { token: ownerToken })
    expect(desk.json.events[0].staff_members).toHaveLength(2)
  })

  it("does not find deleted events, another business's, or (in client mode) what clients may not see", async () => {
    for (const id of [events.deleted, events.foreign]) {
      const response = await server.request("GET", `/api/v2/desk/events/${id}`, { token: ownerToken })
      expect(response.status).toBe(404)
      expect(response.json).toEqual({ errors: [`Event ${id} not found`] })
    }
    expect((await server.request("GET", `/api/v2/front/events/${events.members}?client_id=test-app`)).status).toBe(404)
    expect((await server.request("GET", `/api/v2/front/events/${events.oneOff}`, { token: clientToken })).status).toBe(404)
    expect((await server.request("GET", `/api/v2/desk/events/${events.oneOff}`, { token: ownerToken })).status).toBe(200)
  })

  it("refuses the wrong mode and tenant", async () => {
    expect((await server.request("GET", `/api/v2/desk/events/${events.yoga}`, { token: clientToken })).status).toBe(403)
    expect(
      (await server.request("GET", `/api/v2/front/events/${events.yoga}`, { host: `elsewhere.${TEST_BASE_DOMAIN}`, token: clientToken })).status
    ).toBe(401)
  })
})
