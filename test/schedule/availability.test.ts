import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeSettableClock } from "../support/clock.ts"
import { createApplication, createBusiness, createLocation, createPerson, createToken } from "../support/factories.ts"
import { TEST_BASE_DOMAIN, type TestServer, startTestServer } from "../support/server.ts"
import { addWorkingHours, bookAppointment, createService, scheduleEvent, setStaffHidden } from "./fixtures.ts"
import { makeMember } from "../billing/punches-fixtures.ts"

/**
 * Appointment availability in a Los Angeles business: Ines works weekdays 09:00-12:00 and
 * Sundays 01:00-04:00 (across the DST changes), Sam (hidden from clients) Saturdays
 * 10:00-12:00, Tom Tuesdays 09:00-11:00 at a New York location hidden from clients. Ines
 * teaches a class on Wednesdays 09:00-10:00 and has an appointment on Thursday 26th 10:00.
 */
const clock = makeSettableClock("2026-10-25T12:00:00Z")
let server: TestServer
let ownerToken: string
let clientToken: string
let memberToken: string
let staff: Record<"ines" | "sam" | "tom", number>
let main: number
let annex: number
let services: Record<"private" | "membersOnly" | "yoga" | "foreign", number>

beforeAll(async () => {
  server = await startTestServer({ clock: clock.clock })
  await createApplication(server.pool, "test-app")
  const business = await createBusiness(server.pool, { subdomain: "demo", time_zone: "America/Los_Angeles" })
  const elsewhere = await createBusiness(server.pool, { subdomain: "elsewhere" })
  main = (await createLocation(server.pool, business.id, { name: "Main", time_zone: "America/Los_Angeles" })).id
  annex = (await createLocation(server.pool, business.id, { name: "Annex", time_zone: "America/New_York", show_in_client_mode: false })).id
  const owner = await createPerson(server.pool, business.id, { role: "owner" })
  ownerToken = await createToken(server.pool, owner.accountId, business.id)
  const client = await createPerson(server.pool, business.id)
  clientToken = await createToken(server.pool, client.accountId, business.id)
  const member = await createPerson(server.pool, business.id)
  await server.pool.query(`update people set is_member = true where id = $1`, [member.personId])
  await makeMember(server.pool, business.id, member.personId, { count: 0 })
  memberToken = await createToken(server.pool, member.accountId, business.id)
  staff = {
    ines: (await createPerson(server.pool, business.id, { role: "standard" })).staffMemberId!,
    sam: (await createPerson(server.pool, business.id, { role: "standard" })).staffMemberId!,
    tom: (await createPerson(server.pool, business.id, { role: "standard" })).staffMemberId!
  }
  await setStaffHidden(server.pool, business.id, staff.sam)
  for (const weekday of [1, 2, 3, 4, 5]) await addWorkingHours(server.pool, business.id, staff.ines, main, weekday, "09:00", "12:00")
  await addWorkingHours(server.pool, business.id, staff.ines, main, 0, "01:00", "04:00")
  await addWorkingHours(server.pool, business.id, staff.sam, main, 6, "10:00", "12:00")
  await addWorkingHours(server.pool, business.id, staff.tom, annex, 2, "09:00", "11:00")
  const providers = [staff.ines, staff.sam, staff.tom]
  services = {
    private: await createService(server.pool, business.id, {
      type: "Appointment",
      name: "Private",
      enrollment_window_blackout_minutes: 120,
      booking_window_days: 3,
      staff_member_ids: providers
    }),
    membersOnly: await createService(server.pool, business.id, { type: "Appointment", name: "Members", visibility: "Members", staff_member_ids: providers }),
    yoga: await createService(server.pool, business.id, { type: "GroupClass", name: "Yoga" }),
    foreign: await createService(server.pool, elsewhere.id, { type: "Appointment", name: "Foreign" })
  }
  await scheduleEvent(server, business.id, {
    service_id: services.yoga,
    location_id: main,
    name: "Yoga",
    frequency: "weekly",
    weekdays: [3],
    start_date: "2026-11-01",
    start_time: "09:00",
    end_time: "10:00",
    staff_member_ids: [staff.ines]
  })
  await bookAppointment(server, business.id, {
    service_id: services.private,
    staff_member_id: staff.ines,
    location_id: main,
    start_at: new Date("2026-11-26T18:00:00Z"),
    person_id: client.personId
  })
})
afterAll(async () => server?.close())

type Slot = { start_at: string; end_at: string; staff_member_id: number; location_id: number; service_id: number }
const starts = (response: { json: { available_slots: ReadonlyArray<Slot> } }) => response.json.available_slots.map((s) => s.start_at)
const slots = (mode: "front" | "desk", query: string, token?: string) =>
  server.request("GET", `/api/v2/${mode}/appointments/${services.private}/available_slots?${query}${token ? "" : "&client_id=test-app"}`, token ? { token } : {})

describe("GET /api/v2/desk/appointments/:service_id/available_slots", () => {
  it("lists every free start of the date, every 15 minutes, around classes and booked appointments", async () => {
    clock.set("2026-11-22T20:00:00Z")
    const wednesday = await slots("desk", "date=2026-11-25", ownerToken)
    expect(wednesday.status).toBe(200)
    expect(starts(wednesday)).toEqual(["2026-11-25T18:00:00Z", "2026-11-25T18:15:00Z", "2026-11-25T18:30:00Z", "2026-11-25T18:45:00Z", "2026-11-25T19:00:00Z"])
    expect(wednesday.json.available_slots[0]).toEqual({
      start_at: "2026-11-25T18:00:00Z",
      end_at: "2026-11-25T19:00:00Z",
      service_id: services.private,
      staff_member_id: staff.ines,
      location_id: main
    })
    const thursday = await slots("desk", "date=2026-11-26", ownerToken)
    expect(starts(thursday)).toEqual(["2026-11-26T17:00:00Z", "2026-11-26T19:00:00Z"])
  })

  it("covers every staff member and location, filtered by staff_member_ids and location_ids", async () => {
    clock.set("2026-11-22T20:00:00Z")
    const tuesday = await slots("desk", "date=2026-11-24", ownerToken)
    const byStaff = new Set(tuesday.json.available_slots.map((s: Slot) => s.staff_member_id))
    expect(byStaff).toEqual(new Set([staff.ines, staff.tom]))
    // Tom's 09:00-11:00 is New York time.
    const annexOnly = await slots("desk", `date=2026-11-24&location_ids=${annex}`, ownerToken)
    expect(starts(annexOnly)).toEqual(["2026-11-24T14:00:00Z", "2026-11-24T14:15:00Z", "2026-11-24T14:30:00Z", "2026-11-24T14:45:00Z", "2026-11-24T15:00:00Z"])
    const inesOnly = await slots("desk", `date=2026-11-24&staff_member_ids=${staff.ines}`, ownerToken)
    expect(inesOnly.json.available_slots.every((s: Slot) => s.staff_member_id === staff.ines)).toBe(true)
    expect(inesOnly.json.available_slots).toHaveLength(9)
  })

  it("leaves out past times; today is the default date", async () => {
    clock.set("2026-11-23T18:20:00Z") // Monday 10:20
    expect(starts(await slots("desk", "", ownerToken))).toEqual(["2026-11-23T18:30:00Z", "2026-11-23T18:45:00Z", "2026-11-23T19:00:00Z"])
    clock.set("2026-11-24T07:59:59Z") // Monday 23:59:59: still Monday, nothing left
    expect(starts(await slots("desk", "", ownerToken))).toEqual([])
    clock.set("2026-11-24T08:00:00Z") // Tuesday 00:00
    expect((await slots("desk", "", ownerToken)).json.available_slots).toHaveLength(9 + 5)
  })

  it("follows wall-clock hours across DST changes", async () => {
    clock.set("2026-10-25T12:00:00Z")
    // 01:00-04:00 on the fall-back night is four real hours; on the spring-forward night two.
    const fallBack = await slots("desk", "date=2026-11-01", ownerToken)
    expect(starts(fallBack)[0]).toBe("2026-11-01T08:00:00Z")
    expect(starts(fallBack).at(-1)).toBe("2026-11-01T11:00:00Z")
    expect(fallBack.json.available_slots).toHaveLength(13)
    const springForward = await slots("desk", "date=2027-03-14", ownerToken)
    expect(starts(springForward)).toEqual(["2027-03-14T09:00:00Z", "2027-03-14T09:15:00Z", "2027-03-14T09:30:00Z", "2027-03-14T09:45:00Z", "2027-03-14T10:00:00Z"])
  })

  it("is a 404 for a service that is no appointment or belongs to another business; a bad date is a 400", async () => {
    for (const id of [services.yoga, services.foreign, 999999]) {
      const response = await server.request("GET", `/api/v2/desk/appointments/${id}/available_slots`, { token: ownerToken })
      expect(response.status).toBe(404)
      expect(response.json).toEqual({ errors: [`Appointment service ${id} not found`] })
    }
    const bad = await slots("desk", "date=2026-02-30", ownerToken)
    expect(bad.status).toBe(400)
    expect(bad.json).toEqual({ errors: ["date must be a date such as 2015-07-06"] })
  })

  it("refuses client mode callers and other tenants", async () => {
    expect((await slots("desk", "", clientToken)).status).toBe(403)
    expect((await slots("desk", "")).status).toBe(401)
    const elsewhere = await server.request("GET", `/api/v2/desk/appointments/${services.private}/available_slots`, {
      host: `elsewhere.${TEST_BASE_DOMAIN}`,
      token: ownerToken
    })
    expect(elsewhere.status).toBe(401)
  })
})

describe("GET /api/v2/front/appointments/:service_id/available_slots", () => {
  it("omits staff hidden from clients and locations hidden from clients", async () => {
    clock.set("2026-11-22T20:00:00Z")
    const saturday = "date=2026-11-28"
    expect((await slots("desk", saturday, ownerToken)).json.available_slots).toHaveLength(5)
    // Saturday 28th is beyond the booking window here: check the hidden staff on a date inside it.
    clock.set("2026-11-26T20:00:00Z")
    expect((await slots("desk", saturday, ownerToken)).json.available_slots).toHaveLength(5)
    expect((await slots("front", saturday)).json.available_slots).toEqual([])
    clock.set("2026-11-22T20:00:00Z")
    const tuesday = await slots("front", "date=2026-11-24", clientToken)
    expect(new Set(tuesday.json.available_slots.map((s: Slot) => s.staff_member_id))).toEqual(new Set([staff.ines]))
  })

  it("hides times past the online deadline (the blackout window)", async () => {
    clock.set("2026-11-23T16:30:00Z") // Monday 08:30: the deadline is two hours ahead, 10:30
    expect(starts(await slots("front", ""))).toEqual(["2026-11-23T18:30:00Z", "2026-11-23T18:45:00Z", "2026-11-23T19:00:00Z"])
    expect(await slots("desk", "", ownerToken).then((r) => r.json.available_slots.length)).toBe(9)
  })

  it("hides days not open for booking yet: the booking window opens at local midnight", async () => {
    clock.set("2026-11-24T07:59:59Z") // Monday 23:59:59: Friday 27th opens at Tuesday 00:00
    expect((await slots("front", "date=2026-11-27")).json.available_slots).toEqual([])
    clock.set("2026-11-24T08:00:00Z")
    expect((await slots("front", "date=2026-11-27")).json.available_slots).toHaveLength(9)
  })

  it("is a 404 for an appointment hidden from the caller", async () => {
    clock.set("2026-11-22T20:00:00Z")
    const path = `/api/v2/front/appointments/${services.membersOnly}/available_slots?date=2026-11-23`
    const anonymous = await server.request("GET", `${path}&client_id=test-app`)
    expect(anonymous.status).toBe(404)
    expect(anonymous.json).toEqual({ errors: [`Appointment service ${services.membersOnly} not found`] })
    expect((await server.request("GET", path, { token: clientToken })).status).toBe(404)
    expect((await server.request("GET", path, { token: memberToken })).json.available_slots).toHaveLength(9)
  })

  it("needs a client_id without a token, and refuses another business's token", async () => {
    expect((await server.request("GET", `/api/v2/front/appointments/${services.private}/available_slots`)).status).toBe(401)
    const elsewhere = await server.request("GET", `/api/v2/front/appointments/${services.private}/available_slots`, {
      host: `elsewhere.${TEST_BASE_DOMAIN}`,
      token: clientToken
    })
    expect(elsewhere.status).toBe(401)
  })
})

describe("GET /api/v2/{front,desk}/appointments/:service_id/available_slots/summary", () => {
  const summary = (mode: "front" | "desk", query: string, token?: string) =>
    server.request(
      "GET",
      `/api/v2/${mode}/appointments/${services.private}/available_slots/summary?${query}${token ? "" : "&client_id=test-app"}`,
      token ? { token } : {}
    )

  it("scores each day against the day with the most free times, as a bare object", async () => {
    clock.set("2026-11-22T20:00:00Z") // Sunday noon
    const desk = await summary("desk", "from=2026-11-23&to=2026-11-29", ownerToken)
    expect(desk.status).toBe(200)
    // Free starts: Mon 9, Tue 9 + 5 (Tom), Wed 5 (class), Thu 2 (appointment), Fri 9, Sat 5 (Sam), Sun 9.
    expect(desk.json).toEqual({
      "2026-11-23": 0.643,
      "2026-11-24": 1,
      "2026-11-25": 0.357,
      "2026-11-26": 0.143,
      "2026-11-27": 0.643,
      "2026-11-28": 0.357,
      "2026-11-29": 0.643
    })
    // Client mode: no Sam, no Tom (hidden location), nothing past the three-day booking window.
    const front = await summary("front", "from=2026-11-23&to=2026-11-29")
    expect(front.json).toEqual({
      "2026-11-23": 1,
      "2026-11-24": 1,
      "2026-11-25": 0.556,
      "2026-11-26": 0,
      "2026-11-27": 0,
      "2026-11-28": 0,
      "2026-11-29": 0
    })
  })

  it("runs from today to the end of the month by default, and gives no score to past days", async () => {
    clock.set("2026-11-22T20:00:00Z")
    const defaults = await summary("desk", "", ownerToken)
    expect(Object.keys(defaults.json)).toEqual(["2026-11-22", "2026-11-23", "2026-11-24", "2026-11-25", "2026-11-26", "2026-11-27", "2026-11-28", "2026-11-29", "2026-11-30"])
    const fromPast = await summary("desk", "from=2026-11-01&to=2026-11-23", ownerToken)
    expect(Object.keys(fromPast.json)).toEqual(["2026-11-22", "2026-11-23"])
    expect(Object.keys((await summary("desk", "from=2026-12-30", ownerToken)).json)).toEqual(["2026-12-30", "2026-12-31"])
  })

  it("allows 90 days at most, inclusive, and `to` not before `from`", async () => {
    clock.set("2026-11-22T20:00:00Z")
    const ninety = await summary("desk", "from=2026-12-01&to=2027-02-28", ownerToken)
    expect(ninety.status).toBe(200)
    expect(Object.keys(ninety.json)).toHaveLength(90)
    const tooLong = await summary("desk", "from=2026-12-01&to=2027-03-01", ownerToken)
    expect(tooLong.status).toBe(400)
    expect(tooLong.json).toEqual({ errors: ["from..to may span at most 90 days"] })
    const swedish = await server.request(
      "GET",
      `/api/v2/front/appointments/${services.private}/available_slots/summary?from=2026-12-01&to=2027-03-01`,
      { token: clientToken, headers: { "x-fd-locale": "sv" } }
    )
    expect(swedish.json).toEqual({ errors: ["from..to får omfatta högst 90 dagar"] })
    const backwards = await summary("front", "from=2026-12-02&to=2026-12-01")
    expect(backwards.json).toEqual({ errors: ["to must not be earlier than from"] })
    const malformed = await summary("desk", "from=12/01/2026", ownerToken)
    expect(malformed.json).toEqual({ errors: ["from must be a date such as 2015-07-06"] })
  })

  it("is a 404 for a hidden appointment in client mode, and refuses the wrong mode and tenant", async () => {
    const hidden = await server.request("GET", `/api/v2/front/appointments/${services.membersOnly}/available_slots/summary?client_id=test-app`)
    expect(hidden.status).toBe(404)
    expect((await summary("desk", "", clientToken)).status).toBe(403)
    expect((await server.request("GET", `/api/v2/front/appointments/${services.private}/available_slots/summary`)).status).toBe(401)
    const elsewhere = await server.request("GET", `/api/v2/desk/appointments/${services.private}/available_slots/summary`, {
      host: `elsewhere.${TEST_BASE_DOMAIN}`,
      token: ownerToken
    })
    expect(elsewhere.status).toBe(401)
  })
})
