import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ELIGIBILITY_CODES } from "../../src/enrollment/eligibility/model.ts"
import { setOccurrenceState } from "../../src/schedule/event-occurrences/service.ts"
import { t } from "../../src/shared/i18n.ts"
import { LOCALES } from "../../src/shared/locale.ts"
import { makeSettableClock } from "../support/clock.ts"
import { createApplication, createBusiness, createLocation, createPerson, createToken } from "../support/factories.ts"
import { TEST_BASE_DOMAIN, type TestServer, startTestServer } from "../support/server.ts"
import { createDependent } from "../people/fixtures.ts"
import { createService, occurrencesOf, scheduleEvent, setStaffHidden } from "./fixtures.ts"
import { makeMember } from "../billing/punches-fixtures.ts"

/**
 * Enrollment eligibility in a Los Angeles business; `full` and `already_enrolled` read real
 * visits. Plans and cards arrive with billing.
 */
const clock = makeSettableClock("2026-10-25T18:00:00Z")
/** A registered visit, written directly: the visit endpoints are tested in test/enrollment. */
const visit = (occurrenceId: number, personId: number) =>
  server.pool.query(
    `insert into visits (business_id, event_occurrence_id, person_id, state, registered_at) values ($1, $2, $3, 'registered', now())`,
    [business.id, occurrenceId, personId]
  )

let server: TestServer
let business: { id: number }
let ownerToken: string
let parentToken: string
let memberToken: string
let strangerToken: string
let parentId: number
let childId: number
let memberId: number
let main: number
let hiddenLocation: number
let staff: Record<"ines" | "sam", number>
let services: Record<"open" | "restricted" | "course" | "window0" | "membersOnly", number>
let events: Record<"open" | "restricted" | "course" | "otherCourse", number>
let occurrence: Record<"midnight" | "nextWeek" | "restricted" | "fallBack" | "springForward" | "canceled" | "deleted" | "full", number>

const onDate = async (eventId: number, date: string) => (await occurrencesOf(server.pool, business.id, eventId)).find((o) => o.date === date)!.id

beforeAll(async () => {
  server = await startTestServer({ clock: clock.clock })
  await createApplication(server.pool, "test-app")
  business = await createBusiness(server.pool, { subdomain: "demo", time_zone: "America/Los_Angeles" })
  await createBusiness(server.pool, { subdomain: "elsewhere" })
  main = (await createLocation(server.pool, business.id, { name: "Main" })).id
  hiddenLocation = (await createLocation(server.pool, business.id, { name: "Back office", show_in_client_mode: false })).id
  const owner = await createPerson(server.pool, business.id, { role: "owner" })
  ownerToken = await createToken(server.pool, owner.accountId, business.id)
  const parent = await createPerson(server.pool, business.id)
  parentId = parent.personId
  parentToken = await createToken(server.pool, parent.accountId, business.id)
  childId = await createDependent(server.pool, business.id, parentId, { first_name: "Kid" })
  await server.pool.query(`update people set is_member = true where id = $1`, [childId])
  await makeMember(server.pool, business.id, childId, { count: 0 })
  const member = await createPerson(server.pool, business.id)
  memberId = member.personId
  await server.pool.query(`update people set is_member = true where id = $1`, [memberId])
  await makeMember(server.pool, business.id, memberId, { count: 0 })
  memberToken = await createToken(server.pool, member.accountId, business.id)
  // An account with a token for this business but no person in it.
  const stranger = await server.pool.query(`insert into accounts (email) values ('stranger@example.test') returning id`)
  strangerToken = await createToken(server.pool, Number(stranger.rows[0].id), business.id)
  staff = {
    ines: (await createPerson(server.pool, business.id, { role: "standard" })).staffMemberId!,
    sam: (await createPerson(server.pool, business.id, { role: "standard" })).staffMemberId!
  }
  await setStaffHidden(server.pool, business.id, staff.sam)
  services = {
    open: await createService(server.pool, business.id, { type: "GroupClass", name: "Open", enrollment_window_blackout_minutes: 60, booking_window_days: 7 }),
    restricted: await createService(server.pool, business.id, {
      type: "GroupClass",
      name: "Restricted",
      online_booking: false,
      clients_can_book: false,
      members_can_book: false,
      client_purchase_disabled: true,
      require_cc: true,
      require_plan: true
    }),
    course: await createService(server.pool, business.id, { type: "Course", name: "Course", maximum_clients: 2 }),
    window0: await createService(server.pool, business.id, { type: "GroupClass", name: "Same day", enrollment_window_blackout_minutes: 60, booking_window_days: 0 }),
    membersOnly: await createService(server.pool, business.id, { type: "GroupClass", name: "Members", visibility: "Members" })
  }
  const once = (service: number, name: string, date: string, start: string, end: string) =>
    scheduleEvent(server, business.id, {
      service_id: service,
      location_id: main,
      name,
      frequency: "once",
      weekdays: [],
      start_date: date,
      start_time: start,
      end_time: end,
      staff_member_ids: [staff.ines]
    })
  // Scheduled while the clock is on 2026-10-25: the fall-back night is inside the window.
  const fallBack = await once(services.window0, "Late", "2026-11-01", "23:30", "00:30")
  clock.set("2026-11-20T18:00:00Z")
  const springForward = await once(services.window0, "Early", "2027-03-14", "03:30", "04:30")
  events = {
    open: await scheduleEvent(server, business.id, {
      service_id: services.open,
      location_id: main,
      name: "Open",
      frequency: "weekly",
      weekdays: [6],
      start_date: "2026-11-01",
      start_time: "00:30",
      end_time: "01:30",
      staff_member_ids: [staff.ines]
    }),
    restricted: await once(services.restricted, "Restricted", "2026-12-01", "09:00", "10:00"),
    course: await scheduleEvent(server, business.id, {
      service_id: services.course,
      location_id: main,
      name: "Course",
      frequency: "weekly",
      weekdays: [0],
      start_date: "2026-12-06",
      session_count: 3,
      start_time: "10:00",
      end_time: "11:00",
      staff_member_ids: [staff.ines]
    }),
    otherCourse: await once(services.course, "Other course", "2026-12-13", "12:00", "13:00")
  }
  occurrence = {
    midnight: await onDate(events.open, "2026-11-21"),
    nextWeek: await onDate(events.open, "2026-11-28"),
    restricted: await onDate(events.restricted, "2026-12-01"),
    fallBack: (await occurrencesOf(server.pool, business.id, fallBack))[0]!.id,
    springForward: (await occurrencesOf(server.pool, business.id, springForward))[0]!.id,
    canceled: await onDate(events.open, "2026-12-05"),
    deleted: await onDate(events.open, "2026-12-12"),
    full: await onDate(events.open, "2026-12-19")
  }
  await server.runtime.runPromise(setOccurrenceState(business.id, [occurrence.canceled], "canceled"))
  await server.runtime.runPromise(setOccurrenceState(business.id, [occurrence.deleted], "deleted"))
})
afterAll(async () => server?.close())

type Item = { code: string; description: string }
type Record_ = { person_id: number; can_enroll: boolean; warnings: Array<Item>; restrictions: Array<Item> }
const codes = (record: Record_) => ({
  person_id: record.person_id,
  can_enroll: record.can_enroll,
  warnings: record.warnings.map((w) => w.code),
  restrictions: record.restrictions.map((r) => r.code)
})
const front = (path: string, token = parentToken, locale?: string) =>
  server.request("GET", `/api/v2/front/${path}`, { token, ...(locale ? { headers: { "x-fd-locale": locale } } : {}) })
const desk = (path: string) => server.request("GET", `/api/v2/desk/${path}`, { token: ownerToken })
const all = (response: { json: { enrollment_eligibilities: Array<Record_> } }) => response.json.enrollment_eligibilities.map(codes)

describe("GET /api/v2/front/event_occurrences/:id/enrollment_eligibilities", () => {
  it("checks the token's person and their dependents: everything open gives a clean record", async () => {
    clock.set("2026-11-20T18:00:00Z")
    const response = await front(`event_occurrences/${occurrence.midnight}/enrollment_eligibilities`)
    expect(response.status).toBe(200)
    expect(response.json).toEqual({
      enrollment_eligibilities: [
        { person_id: parentId, can_enroll: true, warnings: [], restrictions: [] },
        { person_id: childId, can_enroll: true, warnings: [], restrictions: [] }
      ]
    })
  })

  it("gives each code of the service's rules, client_purchase_disabled as a restriction", async () => {
    clock.set("2026-11-20T18:00:00Z")
    const response = await front(`event_occurrences/${occurrence.restricted}/enrollment_eligibilities`)
    expect(all(response)).toEqual([
      {
        person_id: parentId,
        can_enroll: false,
        warnings: ["credit_card_required"],
        restrictions: ["client_purchase_disabled", "client_mode_booking_not_allowed", "clients_not_allowed", "plan_required"]
      },
      {
        person_id: childId,
        can_enroll: false,
        warnings: ["credit_card_required"],
        restrictions: ["client_purchase_disabled", "client_mode_booking_not_allowed", "members_not_allowed", "plan_required"]
      }
    ])
    expect(response.json.enrollment_eligibilities[0].restrictions[0]).toEqual({ code: "client_purchase_disabled", description: "Unable to enroll in this event" })
  })

  it("says cancelled, deleted, full and already enrolled", async () => {
    clock.set("2026-11-20T18:00:00Z")
    // Every code that applies is listed: these are also more than seven days ahead.
    expect(all(await front(`event_occurrences/${occurrence.canceled}/enrollment_eligibilities`))[0]!.restrictions).toEqual([
      "cancelled",
      "too_far_in_advance"
    ])
    expect(all(await front(`event_occurrences/${occurrence.deleted}/enrollment_eligibilities`))[0]!.restrictions).toEqual([
      "deleted",
      "too_far_in_advance"
    ])
    clock.set("2026-12-14T18:00:00Z") // the 19th is inside the seven-day booking window
    await server.pool.query(`update event_occurrences set capacity = 2 where id = $1`, [occurrence.full])
    await visit(occurrence.full, childId)
    await visit(occurrence.full, memberId)
    expect(all(await front(`event_occurrences/${occurrence.full}/enrollment_eligibilities`))).toEqual([
      { person_id: parentId, can_enroll: false, warnings: [], restrictions: ["full"] },
      { person_id: childId, can_enroll: false, warnings: [], restrictions: ["already_enrolled", "full"] }
    ])
    const listed = await server.request("GET", `/api/v2/front/event_occurrences?client_id=test-app&ids=${occurrence.full}`)
    expect(listed.json.event_occurrences[0]).toMatchObject({ full: true, capacity_remaining: 0 })
  })

  it("closes online enrollment at the blackout window: an occurrence at 00:30 closes at 23:30 the day before", async () => {
    clock.set("2026-11-21T07:29:59Z") // Friday 23:29:59
    expect(all(await front(`event_occurrences/${occurrence.midnight}/enrollment_eligibilities`))[0]!.restrictions).toEqual([])
    clock.set("2026-11-21T07:30:00Z")
    expect(all(await front(`event_occurrences/${occurrence.midnight}/enrollment_eligibilities`))[0]!.restrictions).toEqual(["inside_blackout_window"])
    clock.set("2026-11-21T09:29:59Z") // still running
    expect(all(await front(`event_occurrences/${occurrence.midnight}/enrollment_eligibilities`))[0]!.restrictions).toEqual(["inside_blackout_window"])
    clock.set("2026-11-21T09:30:00Z") // ended
    expect(all(await front(`event_occurrences/${occurrence.midnight}/enrollment_eligibilities`))[0]!.restrictions).toEqual(["in_the_past"])
  })

  it("opens online enrollment at local midnight, booking-window days before the day", async () => {
    clock.set("2026-11-21T07:59:59Z") // Friday 23:59:59: Saturday 28th is eight days ahead
    expect(all(await front(`event_occurrences/${occurrence.nextWeek}/enrollment_eligibilities`))[0]!.restrictions).toEqual(["too_far_in_advance"])
    clock.set("2026-11-21T08:00:00Z") // Saturday 00:00
    expect(all(await front(`event_occurrences/${occurrence.nextWeek}/enrollment_eligibilities`))[0]!.restrictions).toEqual([])
  })

  it("finds local midnight on the DST change days (23:30 on the fall-back day, 03:30 on the spring-forward day)", async () => {
    // Same-day booking window: opens at 00:00 PDT on 2026-11-01 (07:00Z), though the class is in PST.
    clock.set("2026-11-01T06:59:59Z")
    expect(all(await front(`event_occurrences/${occurrence.fallBack}/enrollment_eligibilities`))[0]!.restrictions).toEqual(["too_far_in_advance"])
    clock.set("2026-11-01T07:00:00Z")
    expect(all(await front(`event_occurrences/${occurrence.fallBack}/enrollment_eligibilities`))[0]!.restrictions).toEqual([])
    // 23:30 PST is 07:30Z the next day; the blackout hour starts at 06:30Z.
    clock.set("2026-11-02T06:30:00Z")
    expect(all(await front(`event_occurrences/${occurrence.fallBack}/enrollment_eligibilities`))[0]!.restrictions).toEqual(["inside_blackout_window"])
    // Opens at 00:00 PST on 2027-03-14 (08:00Z); 03:30 PDT is 10:30Z, closing at 09:30Z.
    clock.set("2027-03-14T07:59:59Z")
    expect(all(await front(`event_occurrences/${occurrence.springForward}/enrollment_eligibilities`))[0]!.restrictions).toEqual(["too_far_in_advance"])
    clock.set("2027-03-14T09:29:59Z")
    expect(all(await front(`event_occurrences/${occurrence.springForward}/enrollment_eligibilities`))[0]!.restrictions).toEqual([])
    clock.set("2027-03-14T09:30:00Z")
    expect(all(await front(`event_occurrences/${occurrence.springForward}/enrollment_eligibilities`))[0]!.restrictions).toEqual(["inside_blackout_window"])
  })

  it("describes each code in the request's locale, in all 12 locales", async () => {
    clock.set("2026-11-20T18:00:00Z")
    for (const locale of LOCALES) {
      const response = await front(`event_occurrences/${occurrence.restricted}/enrollment_eligibilities`, parentToken, locale)
      const items: Array<Item> = response.json.enrollment_eligibilities.flatMap((r: Record_) => [...r.warnings, ...r.restrictions])
      expect(items.length).toBeGreaterThan(0)
      for (const item of items) expect(item.description, `${locale} ${item.code}`).toBe(t(locale, `eligibility_${item.code}` as never))
    }
    const german = await front(`event_occurrences/${occurrence.canceled}/enrollment_eligibilities`, parentToken, "de")
    expect(german.json.enrollment_eligibilities[0].restrictions).toEqual([
      { code: "cancelled", description: "Die Veranstaltung wurde abgesagt" },
      { code: "too_far_in_advance", description: "Für eine Anmeldung zu dieser Veranstaltung ist es zu früh" }
    ])
  })

  it("needs a token with a person here; hidden and foreign occurrences are not found", async () => {
    const anonymous = await server.request("GET", `/api/v2/front/event_occurrences/${occurrence.midnight}/enrollment_eligibilities?client_id=test-app`)
    expect(anonymous.status).toBe(401)
    expect(anonymous.json).toEqual({ error: "An access token is required" })
    const stranger = await front(`event_occurrences/${occurrence.midnight}/enrollment_eligibilities`, strangerToken)
    expect(stranger.status).toBe(404)
    expect((await front("event_occurrences/999999/enrollment_eligibilities")).json).toEqual({ errors: ["Event occurrence 999999 not found"] })
    const elsewhere = await server.request("GET", `/api/v2/front/event_occurrences/${occurrence.midnight}/enrollment_eligibilities`, {
      host: `elsewhere.${TEST_BASE_DOMAIN}`,
      token: parentToken
    })
    expect(elsewhere.status).toBe(401)
  })
})

describe("GET /api/v2/desk/event_occurrences/:id/enrollment_eligibilities", () => {
  it("checks person_ids in order, without dependents, skipping people who do not exist; client_purchase_disabled is a warning", async () => {
    clock.set("2026-11-20T18:00:00Z")
    const response = await desk(`event_occurrences/${occurrence.restricted}/enrollment_eligibilities?person_ids=${memberId},999999,${parentId}`)
    expect(response.status).toBe(200)
    expect(all(response)).toEqual([
      {
        person_id: memberId,
        can_enroll: false,
        warnings: ["credit_card_required", "client_purchase_disabled"],
        restrictions: ["client_mode_booking_not_allowed", "members_not_allowed", "plan_required"]
      },
      {
        person_id: parentId,
        can_enroll: false,
        warnings: ["credit_card_required", "client_purchase_disabled"],
        restrictions: ["client_mode_booking_not_allowed", "clients_not_allowed", "plan_required"]
      }
    ])
    expect(all(await desk(`event_occurrences/${occurrence.deleted}/enrollment_eligibilities?person_ids=${parentId}`))[0]!.restrictions).toEqual([
      "deleted",
      "too_far_in_advance"
    ])
  })

  it("requires person_ids, and refuses the wrong mode and tenant", async () => {
    const missing = await desk(`event_occurrences/${occurrence.midnight}/enrollment_eligibilities`)
    expect(missing.status).toBe(400)
    expect(missing.json).toEqual({ errors: ["person_ids can't be blank"] })
    expect((await desk(`event_occurrences/${occurrence.midnight}/enrollment_eligibilities?person_ids=x`)).json).toEqual({
      errors: ["person_ids must be a positive integer"]
    })
    expect((await desk(`event_occurrences/999999/enrollment_eligibilities?person_ids=${parentId}`)).status).toBe(404)
    const client = await server.request("GET", `/api/v2/desk/event_occurrences/${occurrence.midnight}/enrollment_eligibilities?person_ids=${parentId}`, {
      token: parentToken
    })
    expect(client.status).toBe(403)
    const elsewhere = await server.request("GET", `/api/v2/desk/event_occurrences/${occurrence.midnight}/enrollment_eligibilities?person_ids=1`, {
      host: `elsewhere.${TEST_BASE_DOMAIN}`,
      token: ownerToken
    })
    expect(elsewhere.status).toBe(401)
  })
})

describe("GET /api/v2/front/services/:id/enrollment_eligibilities", () => {
  it("gives client_purchase_disabled as both a warning and a restriction, and never cancelled or deleted", async () => {
    clock.set("2026-11-20T18:00:00Z")
    const response = await front(`services/${services.restricted}/enrollment_eligibilities`)
    expect(all(response)[0]).toEqual({
      person_id: parentId,
      can_enroll: false,
      warnings: ["credit_card_required", "client_purchase_disabled"],
      restrictions: ["client_purchase_disabled", "client_mode_booking_not_allowed", "clients_not_allowed", "plan_required"]
    })
    expect(all(response)).toHaveLength(2)
    const open = await front(`services/${services.open}/enrollment_eligibilities`)
    expect(all(open).map((r) => r.can_enroll)).toEqual([true, true])
  })

  it("applies the time rules to start_at, or to the event's next session", async () => {
    clock.set("2026-11-20T18:00:00Z")
    const at = (start: string) => front(`services/${services.open}/enrollment_eligibilities?start_at=${encodeURIComponent(start)}`)
    expect(all(await at("2026-11-20T09:00:00-08:00"))[0]!.restrictions).toEqual(["in_the_past"])
    expect(all(await at("2026-11-20T10:30:00-08:00"))[0]!.restrictions).toEqual(["inside_blackout_window"])
    expect(all(await at("2026-11-28T00:00:00-0800"))[0]!.restrictions).toEqual(["too_far_in_advance"])
    expect(all(await at("2026-11-27T23:59:00-08:00"))[0]!.restrictions).toEqual([])
    // The next session of the event: Saturday 21st 00:30, seven days ahead at most.
    expect(all(await front(`services/${services.open}/enrollment_eligibilities?event_id=${events.open}`))[0]!.restrictions).toEqual([])
    clock.set("2026-11-21T07:45:00Z")
    expect(all(await front(`services/${services.open}/enrollment_eligibilities?event_id=${events.open}`))[0]!.restrictions).toEqual(["inside_blackout_window"])
  })

  it("uses a course's whole run for full and already_enrolled", async () => {
    clock.set("2026-11-20T18:00:00Z")
    const [firstSession] = await occurrencesOf(server.pool, business.id, events.course)
    await visit(firstSession!.id, parentId)
    await visit(firstSession!.id, memberId)
    expect(all(await front(`services/${services.course}/enrollment_eligibilities?event_id=${events.course}`))).toEqual([
      { person_id: parentId, can_enroll: false, warnings: [], restrictions: ["already_enrolled", "full"] },
      { person_id: childId, can_enroll: false, warnings: [], restrictions: ["full"] }
    ])
    // Without an event there is no run to be full.
    expect(all(await front(`services/${services.course}/enrollment_eligibilities`))[0]!.restrictions).toEqual([])
    clock.set("2026-12-06T18:30:00Z") // the first session started: the run is under way
    expect(all(await front(`services/${services.course}/enrollment_eligibilities?event_id=${events.otherCourse}`))[0]!.restrictions).toEqual([])
    expect(all(await front(`services/${services.course}/enrollment_eligibilities?event_id=${events.course}`))[1]!.restrictions).toEqual([
      "full",
      "inside_blackout_window"
    ])
  })

  it("refuses ill-formed or unknown event_id, location_id, staff_member_ids and start_at, naming each", async () => {
    clock.set("2026-11-20T18:00:00Z")
    const path = `services/${services.open}/enrollment_eligibilities`
    const malformed = await front(`${path}?event_id=abc&location_id=0&start_at=tomorrow&staff_member_ids=1,x`)
    expect(malformed.status).toBe(400)
    expect(malformed.json.errors).toEqual([
      "event_id must be a positive integer",
      "location_id must be a positive integer",
      "staff_member_ids must be a positive integer",
      "start_at must be an ISO 8601 timestamp, such as 2015-07-06T00:00:00-07:00 (without an offset: the business's time zone)"
    ])
    const unknown = await front(`${path}?event_id=999999&location_id=999998&staff_member_ids=${staff.ines},999997`)
    expect(unknown.json).toEqual({
      errors: ["event_id 999999 does not exist", "location_id 999998 does not exist", "staff_member_ids 999997 does not exist"]
    })
    const otherService = await front(`${path}?event_id=${events.course}`)
    expect(otherService.json).toEqual({ errors: [`event_id ${events.course} is not an event of service ${services.open}`] })
    // Hidden from clients: does not exist in client mode.
    const hidden = await front(`${path}?location_id=${hiddenLocation}&staff_member_ids=${staff.sam}`)
    expect(hidden.json).toEqual({ errors: [`location_id ${hiddenLocation} does not exist`, `staff_member_ids ${staff.sam} does not exist`] })
    const dutch = await front(`${path}?event_id=999999`, parentToken, "nl-NL")
    expect(dutch.json).toEqual({ errors: ["event_id 999999 bestaat niet"] })
  })

  it("is a 404 for a service the caller may not see, and needs a token", async () => {
    expect((await front(`services/${services.membersOnly}/enrollment_eligibilities`)).status).toBe(404)
    expect((await front(`services/${services.membersOnly}/enrollment_eligibilities`, memberToken)).status).toBe(200)
    expect((await server.request("GET", `/api/v2/front/services/${services.open}/enrollment_eligibilities?client_id=test-app`)).status).toBe(401)
    const elsewhere = await server.request("GET", `/api/v2/front/services/${services.open}/enrollment_eligibilities`, {
      host: `elsewhere.${TEST_BASE_DOMAIN}`,
      token: parentToken
    })
    expect(elsewhere.status).toBe(401)
  })
})

describe("GET /api/v2/desk/services/:id/enrollment_eligibilities", () => {
  it("checks person_ids (no error for unknown people), client_purchase_disabled only as a warning", async () => {
    clock.set("2026-11-20T18:00:00Z")
    const response = await desk(`services/${services.restricted}/enrollment_eligibilities?person_ids=${childId},424242`)
    expect(response.status).toBe(200)
    expect(all(response)).toEqual([
      {
        person_id: childId,
        can_enroll: false,
        warnings: ["credit_card_required", "client_purchase_disabled"],
        restrictions: ["client_mode_booking_not_allowed", "members_not_allowed", "plan_required"]
      }
    ])
    // Staff see what is hidden from clients: no error there.
    const hidden = await desk(`services/${services.open}/enrollment_eligibilities?person_ids=${parentId}&location_id=${hiddenLocation}&staff_member_ids=${staff.sam}`)
    expect(hidden.status).toBe(200)
  })

  it("requires person_ids, refuses bad parameters, and the wrong mode and tenant", async () => {
    const missing = await desk(`services/${services.open}/enrollment_eligibilities`)
    expect(missing.json).toEqual({ errors: ["person_ids can't be blank"] })
    const unknown = await desk(`services/${services.open}/enrollment_eligibilities?person_ids=${parentId}&event_id=999999&staff_member_ids=999998`)
    expect(unknown.json).toEqual({ errors: ["event_id 999999 does not exist", "staff_member_ids 999998 does not exist"] })
    expect((await desk(`services/999999/enrollment_eligibilities?person_ids=${parentId}`)).json).toEqual({ errors: ["Service 999999 not found"] })
    const client = await server.request("GET", `/api/v2/desk/services/${services.open}/enrollment_eligibilities?person_ids=${parentId}`, {
      token: parentToken
    })
    expect(client.status).toBe(403)
    const elsewhere = await server.request("GET", `/api/v2/desk/services/${services.open}/enrollment_eligibilities?person_ids=1`, {
      host: `elsewhere.${TEST_BASE_DOMAIN}`,
      token: ownerToken
    })
    expect(elsewhere.status).toBe(401)
  })
})

describe("eligibility descriptions", () => {
  it("exist for every code and are translated in every locale but English", () => {
    for (const locale of LOCALES) {
      for (const code of ELIGIBILITY_CODES) {
        const text = t(locale, `eligibility_${code}` as never)
        expect(text.length, `${locale} ${code}`).toBeGreaterThan(0)
        if (!locale.startsWith("en")) expect(text, `${locale} ${code}`).not.toBe(t("en", `eligibility_${code}` as never))
      }
    }
    expect(t("en", "eligibility_inside_blackout_window")).toBe("It's too late to enroll for this event")
  })
})
