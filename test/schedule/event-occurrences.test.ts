import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { setOccurrenceState } from "../../src/schedule/event-occurrences/service.ts"
import { MATERIALIZE_TASK, materializeJobKey } from "../../src/schedule/events/service.ts"
import { makeSettableClock } from "../support/clock.ts"
import { createApplication, createBusiness, createLocation, createPerson, createToken } from "../support/factories.ts"
import { TEST_BASE_DOMAIN, type TestServer, startTestServer } from "../support/server.ts"
import { bookAppointment, createService, materialize, occurrencesOf, scheduleEvent, setStaffHidden } from "./fixtures.ts"
import { makeMember } from "../billing/punches-fixtures.ts"

/**
 * A business in Los Angeles with classes around midnight every day (00:15 and 23:30 local),
 * so "today" is tested at 23:59:59 and 00:00 and on both DST change days.
 */
const clock = makeSettableClock("2026-10-30T18:00:00Z")
let server: TestServer
let business: { id: number }
let ownerToken: string
let clientToken: string
let memberToken: string
let otherToken: string
let clientPersonId: number
let main: number
let annex: number
let staff: Record<"ines" | "sam", number>
let services: Record<"yoga" | "course" | "members" | "private", number>
let events: Record<"early" | "late" | "members" | "annex" | "course", number>
let appointmentId: number
let foreignOccurrence: number
let foreignStaff: number

const daily = [0, 1, 2, 3, 4, 5, 6]

beforeAll(async () => {
  server = await startTestServer({ clock: clock.clock })
  await createApplication(server.pool, "test-app")
  business = await createBusiness(server.pool, { subdomain: "demo", time_zone: "America/Los_Angeles" })
  const elsewhere = await createBusiness(server.pool, { subdomain: "elsewhere" })
  main = (await createLocation(server.pool, business.id, { name: "Main", time_zone: "America/Los_Angeles" })).id
  annex = (await createLocation(server.pool, business.id, { name: "Annex", time_zone: "America/New_York", show_in_client_mode: false })).id
  const owner = await createPerson(server.pool, business.id, { role: "owner" })
  ownerToken = await createToken(server.pool, owner.accountId, business.id)
  const client = await createPerson(server.pool, business.id, { first_name: "Cleo", last_name: "Client" })
  clientPersonId = client.personId
  clientToken = await createToken(server.pool, client.accountId, business.id)
  const member = await createPerson(server.pool, business.id)
  await server.pool.query(`update people set is_member = true where id = $1`, [member.personId])
  await makeMember(server.pool, business.id, member.personId, { count: 0 })
  memberToken = await createToken(server.pool, member.accountId, business.id)
  otherToken = await createToken(server.pool, (await createPerson(server.pool, business.id)).accountId, business.id)
  staff = {
    ines: (await createPerson(server.pool, business.id, { first_name: "Ines", last_name: "Alvarez", role: "standard" })).staffMemberId!,
    sam: (await createPerson(server.pool, business.id, { first_name: "Sam", last_name: "Okoye", role: "standard" })).staffMemberId!
  }
  await setStaffHidden(server.pool, business.id, staff.sam)
  services = {
    yoga: await createService(server.pool, business.id, { type: "GroupClass", name: "Yoga", maximum_clients: 20 }),
    course: await createService(server.pool, business.id, { type: "Course", name: "Intro Course", maximum_clients: 12 }),
    members: await createService(server.pool, business.id, { type: "GroupClass", name: "Members Flow", visibility: "Members" }),
    private: await createService(server.pool, business.id, { type: "Appointment", name: "Private", staff_member_ids: [staff.ines] })
  }
  const common = { location_id: main, frequency: "weekly" as const, start_date: "2026-10-01", staff_member_ids: [staff.ines] }
  events = {
    early: await scheduleEvent(server, business.id, { ...common, service_id: services.yoga, name: "Early Yoga", weekdays: daily, start_time: "00:15", end_time: "01:00" }),
    late: await scheduleEvent(server, business.id, {
      ...common,
      service_id: services.yoga,
      name: "Late Yoga",
      weekdays: daily,
      start_time: "23:30",
      end_time: "00:30",
      staff_member_ids: [staff.ines, staff.sam]
    }),
    members: await scheduleEvent(server, business.id, { ...common, service_id: services.members, name: "Members Flow", weekdays: [6], start_time: "10:00", end_time: "11:00" }),
    annex: await scheduleEvent(server, business.id, { ...common, service_id: services.yoga, location_id: annex, name: "Annex Yoga", weekdays: [5], start_time: "12:00", end_time: "13:00" }),
    course: await scheduleEvent(server, business.id, {
      ...common,
      service_id: services.course,
      name: "Intro Course",
      weekdays: [0],
      start_date: "2026-11-22",
      session_count: 4,
      start_time: "10:00",
      end_time: "11:30"
    })
  }
  // A later run extends every window past the spring-forward change of 2027-03-14.
  clock.set("2026-12-01T18:00:00Z")
  for (const id of Object.values(events)) await materialize(server, business.id, id)
  appointmentId = await bookAppointment(server, business.id, {
    service_id: services.private,
    staff_member_id: staff.ines,
    location_id: main,
    start_at: new Date("2026-11-20T20:00:00Z"),
    person_id: clientPersonId
  })
  const foreignService = await createService(server.pool, elsewhere.id, { type: "GroupClass", name: "Foreign" })
  foreignStaff = (await createPerson(server.pool, elsewhere.id, { role: "owner" })).staffMemberId!
  const foreignEvent = await scheduleEvent(server, elsewhere.id, {
    ...common,
    location_id: null,
    service_id: foreignService,
    name: "Foreign",
    weekdays: daily,
    start_time: "12:00",
    end_time: "13:00",
    staff_member_ids: [foreignStaff]
  })
  foreignOccurrence = (await occurrencesOf(server.pool, elsewhere.id, foreignEvent))[0]!.id
})
afterAll(async () => server?.close())

type Listed = { json: { event_occurrences: ReadonlyArray<{ name: string; start_at: string }> } }
const summary = (response: Listed) => response.json.event_occurrences.map((o) => `${o.name} ${o.start_at}`)
const occurrenceOn = async (eventId: number, date: string) => (await occurrencesOf(server.pool, business.id, eventId)).find((o) => o.date === date)!

describe("GET /api/v2/front/event_occurrences: today in the business's time zone", () => {
  it("at 23:59:59 lists the day that is ending", async () => {
    clock.set("2026-11-21T07:59:59Z") // Friday 2026-11-20 23:59:59 PST
    const response = await server.request("GET", "/api/v2/front/event_occurrences?client_id=test-app")
    expect(response.status).toBe(200)
    // No appointment, nothing at a location hidden from clients.
    expect(summary(response)).toEqual(["Early Yoga 2026-11-20T08:15:00Z", "Late Yoga 2026-11-21T07:30:00Z"])
  })

  it("at midnight lists the new day; a member also sees members-only classes", async () => {
    clock.set("2026-11-21T08:00:00Z") // Saturday 2026-11-21 00:00 PST
    expect(summary(await server.request("GET", "/api/v2/front/event_occurrences?client_id=test-app"))).toEqual([
      "Early Yoga 2026-11-21T08:15:00Z",
      "Late Yoga 2026-11-22T07:30:00Z"
    ])
    expect(summary(await server.request("GET", "/api/v2/front/event_occurrences", { token: memberToken }))).toEqual([
      "Early Yoga 2026-11-21T08:15:00Z",
      "Members Flow 2026-11-21T18:00:00Z",
      "Late Yoga 2026-11-22T07:30:00Z"
    ])
  })

  it("covers the 25 hours of the fall-back day and the 23 hours of the spring-forward day", async () => {
    clock.set("2026-11-01T19:00:00Z")
    expect(summary(await server.request("GET", "/api/v2/front/event_occurrences?client_id=test-app"))).toEqual([
      "Early Yoga 2026-11-01T07:15:00Z", // 00:15 PDT
      "Late Yoga 2026-11-02T07:30:00Z" // 23:30 PST
    ])
    clock.set("2027-03-14T20:00:00Z")
    expect(summary(await server.request("GET", "/api/v2/front/event_occurrences?client_id=test-app"))).toEqual([
      "Early Yoga 2027-03-14T08:15:00Z", // 00:15 PST
      "Late Yoga 2027-03-15T06:30:00Z" // 23:30 PDT
    ])
  })

  it("answers the client fields, leaving out staff hidden from clients", async () => {
    clock.set("2026-11-21T07:59:59Z")
    const late = await occurrenceOn(events.late, "2026-11-20")
    const response = await server.request("GET", `/api/v2/front/event_occurrences?client_id=test-app&ids=${late.id}`)
    // Members see more than others: the answer depends on the caller.
    expect(response.headers["cache-control"]).toBe("private, no-store")
    expect(response.json.event_occurrences).toEqual([
      {
        id: late.id,
        event_id: events.late,
        name: "Late Yoga",
        description: null,
        service_id: services.yoga,
        service_type: "GroupClass",
        location_id: main,
        start_at: "2026-11-21T07:30:00Z",
        end_at: "2026-11-21T08:30:00Z",
        url: `http://demo.${TEST_BASE_DOMAIN}/api/v2/front/event_occurrences/${late.id}`,
        timezone: "America/Los_Angeles",
        state: "active",
        full: false,
        capacity_remaining: 20,
        staff_members: [{ id: staff.ines, name: "Ines Alvarez" }],
        waitlist: { full: false }
      }
    ])
  })
})

describe("GET /api/v2/front/event_occurrences: parameters", () => {
  it("takes from and to, or from alone (to the end of its day)", async () => {
    clock.set("2026-11-20T18:00:00Z")
    const weekend = await server.request(
      "GET",
      "/api/v2/front/event_occurrences?client_id=test-app&from=2026-11-22T00:00:00-08:00&to=2026-11-22T23:59:59-0800"
    )
    expect(summary(weekend)).toEqual(["Early Yoga 2026-11-22T08:15:00Z", "Intro Course 2026-11-22T18:00:00Z", "Late Yoga 2026-11-23T07:30:00Z"])
    const fromOnly = await server.request("GET", "/api/v2/front/event_occurrences?client_id=test-app&from=2026-11-22T00:00:00-08:00")
    expect(summary(fromOnly)).toEqual(summary(weekend))
    const backwards = await server.request("GET", "/api/v2/front/event_occurrences?client_id=test-app&from=2026-11-22T00:00:00Z&to=2026-11-21T00:00:00Z")
    expect(backwards.status).toBe(400)
    expect(backwards.json).toEqual({ errors: ["to must not be earlier than from"] })
  })

  it("takes the lenient times Rails clients send, without an offset in the business's time zone", async () => {
    clock.set("2026-11-20T18:00:00Z")
    const lenient = await server.request(
      "GET",
      "/api/v2/front/event_occurrences?client_id=test-app&from=2026-11-22%200:00&to=2026-11-23T07:30:0Z"
    )
    expect(lenient.status).toBe(200)
    expect(summary(lenient)).toEqual(["Early Yoga 2026-11-22T08:15:00Z", "Intro Course 2026-11-22T18:00:00Z", "Late Yoga 2026-11-23T07:30:00Z"])
    const garbage = await server.request("GET", "/api/v2/front/event_occurrences?client_id=test-app&from=2014-13-45T99:00")
    expect(garbage.status).toBe(400)
    expect(garbage.json.errors[0]).toMatch(/^from must be an ISO 8601 timestamp/)
  })

  it("filters by ids (whatever their day without from and to; unknown ids are no error)", async () => {
    clock.set("2026-11-20T18:00:00Z")
    const course = await occurrenceOn(events.course, "2026-11-29")
    const response = await server.request("GET", `/api/v2/front/event_occurrences?client_id=test-app&ids=${course.id},999999`)
    expect(response.status).toBe(200)
    expect(summary(response)).toEqual(["Intro Course 2026-11-29T18:00:00Z"])
  })

  it("filters by state, active by default", async () => {
    clock.set("2026-11-20T18:00:00Z")
    const early = await occurrenceOn(events.early, "2026-11-24")
    const late = await occurrenceOn(events.late, "2026-11-24")
    await server.runtime.runPromise(setOccurrenceState(business.id, [early.id], "canceled"))
    await server.runtime.runPromise(setOccurrenceState(business.id, [late.id], "deleted"))
    const range = "from=2026-11-24T00:00:00-08:00"
    expect(summary(await server.request("GET", `/api/v2/front/event_occurrences?client_id=test-app&${range}`))).toEqual([])
    const canceled = await server.request("GET", `/api/v2/front/event_occurrences?client_id=test-app&${range}&state=canceled`)
    expect(canceled.json.event_occurrences.map((o: { id: number; state: string }) => [o.id, o.state])).toEqual([[early.id, "canceled"]])
    const both = await server.request("GET", `/api/v2/front/event_occurrences?client_id=test-app&${range}&state=canceled,deleted`)
    expect(both.json.event_occurrences).toHaveLength(2)
    const bad = await server.request("GET", `/api/v2/front/event_occurrences?client_id=test-app&state=active,gone`)
    expect(bad.status).toBe(400)
    expect(bad.json).toEqual({ errors: ["state must be one of: active, canceled, reserved, deleted"] })
  })

  it("filters by staff, service, event and location, and names every id that does not exist", async () => {
    clock.set("2026-11-21T08:00:00Z")
    const byEvent = await server.request("GET", `/api/v2/front/event_occurrences?client_id=test-app&event_ids=${events.late}`)
    expect(summary(byEvent)).toEqual(["Late Yoga 2026-11-22T07:30:00Z"])
    const byStaff = await server.request("GET", `/api/v2/desk/event_occurrences?staff_member_ids=${staff.sam}`, { token: ownerToken })
    expect(summary(byStaff)).toEqual(["Late Yoga 2026-11-22T07:30:00Z"])
    const byService = await server.request("GET", `/api/v2/front/event_occurrences?service_ids=${services.members}`, { token: memberToken })
    expect(summary(byService)).toEqual(["Members Flow 2026-11-21T18:00:00Z"])
    const byLocation = await server.request("GET", `/api/v2/desk/event_occurrences?location_ids=${annex}&from=2026-11-20T00:00:00-08:00`, {
      token: ownerToken
    })
    expect(summary(byLocation)).toEqual(["Annex Yoga 2026-11-20T17:00:00Z"])

    const unknown = await server.request(
      "GET",
      `/api/v2/desk/event_occurrences?staff_member_ids=${foreignStaff},999998&service_ids=999997&event_ids=999996&location_ids=999995`,
      { token: ownerToken }
    )
    expect(unknown.status).toBe(400)
    expect(unknown.json).toEqual({
      errors: [
        `staff_member_ids ${foreignStaff} does not exist`,
        "staff_member_ids 999998 does not exist",
        "service_ids 999997 does not exist",
        "event_ids 999996 does not exist",
        "location_ids 999995 does not exist"
      ]
    })
    // What clients may not see does not exist for them.
    const hidden = await server.request(
      "GET",
      `/api/v2/front/event_occurrences?client_id=test-app&staff_member_ids=${staff.sam}&service_ids=${services.members}&location_ids=${annex}`
    )
    expect(hidden.json).toEqual({
      errors: [
        `staff_member_ids ${staff.sam} does not exist`,
        `service_ids ${services.members} does not exist`,
        `location_ids ${annex} does not exist`
      ]
    })
    const spanish = await server.request("GET", "/api/v2/front/event_occurrences?client_id=test-app&event_ids=999996", { headers: { "x-fd-locale": "es-ES" } })
    expect(spanish.json).toEqual({ errors: ["event_ids 999996 no existe"] })
  })

  it("needs a client_id without a token, and refuses another business's token", async () => {
    expect((await server.request("GET", "/api/v2/front/event_occurrences")).status).toBe(401)
    const elsewhere = await server.request("GET", "/api/v2/front/event_occurrences", { host: `elsewhere.${TEST_BASE_DOMAIN}`, token: clientToken })
    expect(elsewhere.status).toBe(401)
  })
})

describe("GET /api/v2/desk/event_occurrences", () => {
  it("lists every type, appointments and hidden locations included, with the staff fields", async () => {
    clock.set("2026-11-21T07:59:59Z")
    const response = await server.request("GET", "/api/v2/desk/event_occurrences", { token: ownerToken })
    expect(response.status).toBe(200)
    expect(summary(response)).toEqual([
      "Early Yoga 2026-11-20T08:15:00Z",
      "Annex Yoga 2026-11-20T17:00:00Z",
      "Private 2026-11-20T20:00:00Z",
      "Late Yoga 2026-11-21T07:30:00Z"
    ])
    const late = response.json.event_occurrences[3]
    expect(late).toMatchObject({ attendance_complete: false, visits_count: 0, people: [] })
    expect(late.staff_members.map((s: { id: number }) => s.id)).toEqual([staff.ines, staff.sam])
    expect(response.json.event_occurrences[2]).toMatchObject({ event_id: null, service_type: "Appointment", capacity_remaining: 1 })
  })

  it("says updating while a change to the occurrence's event waits to be applied", async () => {
    clock.set("2026-11-21T07:59:59Z")
    // The fixtures materialize directly, leaving the jobs their event writes queued (no worker
    // runs here): clear them, as a worker would once it has applied them.
    await server.pool.query(
      "delete from graphile_worker._private_jobs where task_id = (select id from graphile_worker._private_tasks where identifier = $1)",
      [MATERIALIZE_TASK]
    )
    const before = await server.request("GET", "/api/v2/desk/event_occurrences", { token: ownerToken })
    expect(before.json.event_occurrences.map((o: { updating: boolean }) => o.updating)).toEqual([false, false, false, false])
    const late = before.json.event_occurrences[3]
    const key = materializeJobKey(business.id, late.event_id)
    await server.pool.query(
      `select graphile_worker.add_job($1, json_build_object('business_id', $2::bigint, 'event_id', $3::bigint), job_key := $4)`,
      [MATERIALIZE_TASK, business.id, late.event_id, key]
    )
    try {
      const during = await server.request("GET", "/api/v2/desk/event_occurrences", { token: ownerToken })
      const byId = new Map(during.json.event_occurrences.map((o: { id: number; updating: boolean }) => [o.id, o.updating]))
      expect(byId.get(late.id)).toBe(true)
      for (const other of during.json.event_occurrences) {
        if (other.event_id !== late.event_id) expect(other.updating, other.name).toBe(false)
      }
      const one = await server.request("GET", `/api/v2/desk/event_occurrences/${late.id}`, { token: ownerToken })
      expect(one.json.event_occurrences[0].updating).toBe(true)
      const front = await server.request("GET", "/api/v2/front/event_occurrences?client_id=test-app")
      expect(front.json.event_occurrences[0]).not.toHaveProperty("updating")
    } finally {
      await server.pool.query("delete from graphile_worker._private_jobs where key = $1", [key])
    }
  })

  it("refuses client mode callers and other tenants", async () => {
    expect((await server.request("GET", "/api/v2/desk/event_occurrences", { token: clientToken })).status).toBe(403)
    expect((await server.request("GET", "/api/v2/desk/event_occurrences?client_id=test-app")).status).toBe(401)
    expect((await server.request("GET", "/api/v2/desk/event_occurrences", { host: `elsewhere.${TEST_BASE_DOMAIN}`, token: ownerToken })).status).toBe(401)
  })
})

describe("GET /api/v2/{front,desk}/event_occurrences/:id", () => {
  it("client mode: a public class with a client_id; an appointment only for the person it is booked for", async () => {
    const early = await occurrenceOn(events.early, "2026-11-20")
    const one = await server.request("GET", `/api/v2/front/event_occurrences/${early.id}?client_id=test-app`)
    expect(one.status).toBe(200)
    expect(one.json.event_occurrences[0].people).toBeUndefined()
    expect((await server.request("GET", `/api/v2/front/event_occurrences/${appointmentId}?client_id=test-app`)).status).toBe(404)
    expect((await server.request("GET", `/api/v2/front/event_occurrences/${appointmentId}`, { token: otherToken })).status).toBe(404)
    const mine = await server.request("GET", `/api/v2/front/event_occurrences/${appointmentId}`, { token: clientToken })
    expect(mine.status).toBe(200)
    expect(mine.json.event_occurrences[0]).toMatchObject({ id: appointmentId, service_type: "Appointment", name: "Private" })
    expect(mine.json.event_occurrences[0].visits).toBeUndefined()
  })

  it("client mode: any state, but nothing clients may not see nor another business's", async () => {
    const canceled = await occurrenceOn(events.early, "2026-11-24")
    expect((await server.request("GET", `/api/v2/front/event_occurrences/${canceled.id}?client_id=test-app`)).json.event_occurrences[0].state).toBe(
      "canceled"
    )
    const members = await occurrenceOn(events.members, "2026-11-21")
    const annexClass = await occurrenceOn(events.annex, "2026-11-20")
    for (const id of [members.id, annexClass.id, foreignOccurrence]) {
      const response = await server.request("GET", `/api/v2/front/event_occurrences/${id}?client_id=test-app`)
      expect(response.status).toBe(404)
      expect(response.json).toEqual({ errors: [`Event occurrence ${id} not found`] })
    }
    expect((await server.request("GET", `/api/v2/front/event_occurrences/${members.id}`, { token: memberToken })).status).toBe(200)
  })

  it("staff mode: anything of the business, with the roster and visits", async () => {
    const response = await server.request("GET", `/api/v2/desk/event_occurrences/${appointmentId}`, { token: ownerToken })
    expect(response.json.event_occurrences[0]).toMatchObject({ id: appointmentId, people: [], visits: [], visits_count: 0 })
    expect((await server.request("GET", `/api/v2/desk/event_occurrences/${foreignOccurrence}`, { token: ownerToken })).status).toBe(404)
    expect((await server.request("GET", `/api/v2/desk/event_occurrences/${appointmentId}`, { token: clientToken })).status).toBe(403)
    expect(
      (await server.request("GET", `/api/v2/desk/event_occurrences/${appointmentId}`, { host: `elsewhere.${TEST_BASE_DOMAIN}`, token: ownerToken }))
        .status
    ).toBe(401)
  })
})

describe("GET /api/v2/{front,desk}/event_occurrences/summary", () => {
  const week = "from=2026-11-16T00:00:00-08:00&to=2026-11-22T23:59:59-08:00"

  it("counts per day of the business's time zone; client mode counts classes and courses", async () => {
    clock.set("2026-11-20T18:00:00Z")
    const response = await server.request("GET", `/api/v2/front/event_occurrences/summary?client_id=test-app&${week}`)
    expect(response.status).toBe(200)
    expect(response.json.event_occurrence_summaries).toEqual([
      { date: "2026-11-16", hour: null, start_at: "2026-11-16T08:00:00Z", count: 2 },
      { date: "2026-11-17", hour: null, start_at: "2026-11-17T08:00:00Z", count: 2 },
      { date: "2026-11-18", hour: null, start_at: "2026-11-18T08:00:00Z", count: 2 },
      { date: "2026-11-19", hour: null, start_at: "2026-11-19T08:00:00Z", count: 2 },
      { date: "2026-11-20", hour: null, start_at: "2026-11-20T08:00:00Z", count: 2 },
      { date: "2026-11-21", hour: null, start_at: "2026-11-21T08:00:00Z", count: 2 },
      { date: "2026-11-22", hour: null, start_at: "2026-11-22T08:00:00Z", count: 3 }
    ])
    const courses = await server.request("GET", `/api/v2/front/event_occurrences/summary?client_id=test-app&${week}&service_types=Course`)
    expect(courses.json.event_occurrence_summaries).toEqual([{ date: "2026-11-22", hour: null, start_at: "2026-11-22T08:00:00Z", count: 1 }])
    const appointments = await server.request("GET", `/api/v2/front/event_occurrences/summary?client_id=test-app&service_types=Appointment`)
    expect(appointments.status).toBe(400)
    expect(appointments.json).toEqual({ errors: ["service_types must be one of: Course, GroupClass"] })
  })

  it("staff mode counts appointments too, by hour on request", async () => {
    clock.set("2026-11-20T18:00:00Z")
    const response = await server.request("GET", "/api/v2/desk/event_occurrences/summary?group_by=hour", { token: ownerToken })
    expect(response.json.event_occurrence_summaries).toEqual([
      { date: "2026-11-20", hour: 0, start_at: "2026-11-20T08:00:00Z", count: 1 },
      { date: "2026-11-20", hour: 9, start_at: "2026-11-20T17:00:00Z", count: 1 },
      { date: "2026-11-20", hour: 12, start_at: "2026-11-20T20:00:00Z", count: 1 },
      { date: "2026-11-20", hour: 23, start_at: "2026-11-21T07:00:00Z", count: 1 }
    ])
    const onlyAppointments = await server.request("GET", "/api/v2/desk/event_occurrences/summary?service_types=Appointment", { token: ownerToken })
    expect(onlyAppointments.json.event_occurrence_summaries).toEqual([{ date: "2026-11-20", hour: null, start_at: "2026-11-20T08:00:00Z", count: 1 }])
    const bad = await server.request("GET", "/api/v2/desk/event_occurrences/summary?group_by=week&location_ids=999999", { token: ownerToken })
    expect(bad.status).toBe(400)
    expect(bad.json).toEqual({ errors: ["group_by must be one of: day, hour"] })
    const unknown = await server.request("GET", "/api/v2/desk/event_occurrences/summary?location_ids=999999", { token: ownerToken })
    expect(unknown.json).toEqual({ errors: ["location_ids 999999 does not exist"] })
  })

  it("refuses the wrong mode and tenant", async () => {
    expect((await server.request("GET", "/api/v2/front/event_occurrences/summary")).status).toBe(401)
    expect((await server.request("GET", "/api/v2/desk/event_occurrences/summary", { token: clientToken })).status).toBe(403)
    expect(
      (await server.request("GET", "/api/v2/desk/event_occurrences/summary", { host: `elsewhere.${TEST_BASE_DOMAIN}`, token: ownerToken })).status
    ).toBe(401)
  })
})
