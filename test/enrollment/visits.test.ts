import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { setOccurrenceState } from "../../src/event-occurrences/service.ts"
import { VISIT_STATES, VISIT_STATE_EVENTS, VISIT_TRANSITIONS } from "../../src/visits/model.ts"
import { makeSettableClock } from "../support/clock.ts"
import { createApplication, createBusiness, createLocation, createPerson, createToken } from "../support/factories.ts"
import { TEST_BASE_DOMAIN, type TestServer, startTestServer } from "../support/server.ts"
import { createDependent, pendingJobs } from "../people/fixtures.ts"
import { createService, occurrencesOf, scheduleEvent } from "../schedule/fixtures.ts"

/**
 * Visits over HTTP in a Los Angeles business whose clock stands at 2026-10-25 11:00 local
 * (18:00Z). Occurrences are made per test so each one controls its own places.
 */
const NOW = "2026-10-25T18:00:00Z"
const clock = makeSettableClock(NOW)

let server: TestServer
let business: { id: number; subdomain: string }
let elsewhere: { id: number; subdomain: string }
let location: number
let staffMemberId: number
let ownerToken: string
let ownerPersonId: number
let parent: Awaited<ReturnType<typeof createPerson>>
let parentToken: string
let childId: number
let other: Awaited<ReturnType<typeof createPerson>>
let otherToken: string
let foreignToken: string
let foreignOccurrence: number
let services: Record<"open" | "restricted" | "staffOnly", number>

type Visit = { id: number; person_id: number | null; state: string; [key: string]: unknown }

const desk = {
  post: (visit: unknown, token = ownerToken) => server.request("POST", "/api/v2/desk/visits", { token, body: { visit } }),
  put: (id: number, visit: unknown, token = ownerToken) => server.request("PUT", `/api/v2/desk/visits/${id}`, { token, body: { visit } }),
  get: (path: string, token = ownerToken) => server.request("GET", path, { token }),
  delete: (id: number, token = ownerToken) => server.request("DELETE", `/api/v2/desk/visits/${id}`, { token })
}
const front = {
  post: (visit: unknown, token = parentToken) => server.request("POST", "/api/v2/front/visits", { token, body: { visit } }),
  get: (path: string, token = parentToken) => server.request("GET", path, { token }),
  delete: (id: number, token = parentToken) => server.request("DELETE", `/api/v2/front/visits/${id}`, { token })
}

let dayCounter = 0
/** A one-off class on its own day (Nov 2026 onwards, so in the future) unless a date is given. */
const occurrence = async (
  options: { capacity?: number | null; service?: number; date?: string; start?: string; end?: string; businessId?: number } = {}
) => {
  const date = options.date ?? `2026-11-${String(2 + (dayCounter++ % 27)).padStart(2, "0")}`
  const businessId = options.businessId ?? business.id
  const eventId = await scheduleEvent(server, businessId, {
    service_id: options.service ?? services.open,
    location_id: businessId === business.id ? location : null,
    name: `Class ${dayCounter}`,
    frequency: "once",
    weekdays: [],
    start_date: date,
    start_time: options.start ?? "09:00",
    end_time: options.end ?? "10:00",
    capacity: options.capacity === undefined ? 10 : options.capacity,
    staff_member_ids: businessId === business.id ? [staffMemberId] : []
  })
  return (await occurrencesOf(server.pool, businessId, eventId))[0]!.id
}

const newPerson = async (fields: Parameters<typeof createPerson>[2] = {}) => (await createPerson(server.pool, business.id, fields)).personId

const visitRow = async (id: number) =>
  (await server.pool.query(`select * from visits where business_id = $1 and id = $2`, [business.id, id])).rows[0]

const mailsTo = async (to: string) =>
  ((await pendingJobs(server.pool, "send_mail")) as Array<{ to: string; template: string; subject: string; text: string }>).filter(
    (job) => job.to === to
  )

beforeAll(async () => {
  server = await startTestServer({ clock: clock.clock })
  await createApplication(server.pool, "test-app")
  business = await createBusiness(server.pool, { subdomain: "demo", name: "Demo Studio", time_zone: "America/Los_Angeles" })
  elsewhere = await createBusiness(server.pool, { subdomain: "elsewhere" })
  location = (await createLocation(server.pool, business.id, { name: "Main" })).id
  const owner = await createPerson(server.pool, business.id, { role: "owner", email: "owner@example.test" })
  ownerPersonId = owner.personId
  staffMemberId = owner.staffMemberId!
  ownerToken = await createToken(server.pool, owner.accountId, business.id)
  parent = await createPerson(server.pool, business.id, { first_name: "Pat", email: "pat@example.test" })
  parentToken = await createToken(server.pool, parent.accountId, business.id)
  childId = await createDependent(server.pool, business.id, parent.personId, { first_name: "Kim" })
  other = await createPerson(server.pool, business.id, { first_name: "Olga", email: "olga@example.test" })
  otherToken = await createToken(server.pool, other.accountId, business.id)
  const foreigner = await createPerson(server.pool, elsewhere.id)
  foreignToken = await createToken(server.pool, foreigner.accountId, elsewhere.id)
  services = {
    open: await createService(server.pool, business.id, { type: "GroupClass", name: "Open", enrollment_window_blackout_minutes: 60 }),
    restricted: await createService(server.pool, business.id, {
      type: "GroupClass",
      name: "Restricted",
      online_booking: false,
      clients_can_book: false,
      require_plan: true
    }),
    staffOnly: await createService(server.pool, business.id, { type: "GroupClass", name: "Staff only", visibility: "Staff" })
  }
  const foreignService = await createService(server.pool, elsewhere.id, { type: "GroupClass", name: "Theirs" })
  foreignOccurrence = await occurrence({ service: foreignService, businessId: elsewhere.id })
}, 120_000)

afterAll(async () => {
  await server?.close()
})

describe("POST /desk/visits", () => {
  it("creates a registered visit by default, stores notify_client and answers 201 with the visit", async () => {
    const o = await occurrence()
    const personId = await newPerson()
    const response = await desk.post({ person_id: personId, event_occurrence_id: o })
    expect(response.status, response.text).toBe(201)
    const [visit] = response.json.visits
    expect(visit).toEqual({
      id: expect.any(Number),
      person_id: personId,
      state: "registered",
      event_occurrence_id: o,
      registered_at: NOW,
      completed_at: null,
      noshow_at: null,
      cancelled_at: null,
      created_at: NOW,
      paid: false,
      paid_for_by: null,
      punch_id: null,
      // Create answers the visit as `:id` shows it (docs/decisions.md).
      status: "registered",
      event_occurrence: expect.objectContaining({ id: o }),
      person: expect.objectContaining({ id: personId })
    })
    const row = await visitRow(visit.id)
    expect(row.notify_client).toBe(true)
    expect(Number(row.created_by_staff_member_id)).toBe(staffMemberId)
    expect((await desk.post({ person_id: await newPerson(), event_occurrence_id: o, notify_client: false })).status).toBe(201)
    expect((await server.pool.query(`select notify_client from visits where event_occurrence_id = $1 order by id`, [o])).rows.map((r) => r.notify_client))
      .toEqual([true, false])
  })

  it("accepts every state; each but reserved needs a person (422), reserved may have none", async () => {
    const o = await occurrence()
    for (const state of VISIT_STATES) {
      const response = await desk.post({ person_id: await newPerson(), event_occurrence_id: o, state })
      expect(response.status, `${state}: ${response.text}`).toBe(201)
      expect(response.json.visits[0].state).toBe(state)
      const stamps = response.json.visits[0]
      expect(stamps.registered_at).toBe(state === "reserved" ? null : NOW)
      expect(stamps.completed_at).toBe(state === "completed" ? NOW : null)
      expect(stamps.noshow_at).toBe(state === "noshowed" ? NOW : null)
      expect(stamps.cancelled_at).toBe(state === "late_canceled" ? NOW : null)
    }
    for (const state of VISIT_STATES.filter((s) => s !== "reserved")) {
      const response = await desk.post({ event_occurrence_id: o, state })
      expect(response.status).toBe(422)
      expect(response.json.errors).toEqual([`person_id can't be blank for a visit in state ${state}`])
    }
    expect((await desk.post({ event_occurrence_id: o })).json.errors).toEqual(["person_id can't be blank for a visit in state registered"])
    const placeholder = await desk.post({ event_occurrence_id: o, state: "reserved" })
    expect(placeholder.status).toBe(201)
    expect(placeholder.json.visits[0].person_id).toBeNull()
  })

  it("refuses unknown and foreign people and occurrences with 404", async () => {
    const o = await occurrence()
    const foreignPerson = (await createPerson(server.pool, elsewhere.id)).personId
    expect((await desk.post({ person_id: 99999999, event_occurrence_id: o })).json).toEqual({ errors: ["Person 99999999 not found"] })
    expect((await desk.post({ person_id: foreignPerson, event_occurrence_id: o })).status).toBe(404)
    const unknown = await desk.post({ person_id: await newPerson(), event_occurrence_id: 99999999 })
    expect(unknown.status).toBe(404)
    expect(unknown.json.errors).toEqual(["Event occurrence 99999999 not found"])
    expect((await desk.post({ person_id: await newPerson(), event_occurrence_id: foreignOccurrence })).status).toBe(404)
  })

  it("overbooks unless `full` is listed; with it, a full occurrence is a 422", async () => {
    const o = await occurrence({ capacity: 1 })
    expect((await desk.post({ person_id: await newPerson(), event_occurrence_id: o, restrictions: ["full"] })).status).toBe(201)
    const refused = await desk.post({ person_id: await newPerson(), event_occurrence_id: o, restrictions: ["full"] })
    expect(refused.status).toBe(422)
    expect(refused.json.errors).toEqual(["This event is full"])
    expect((await desk.post({ person_id: await newPerson(), event_occurrence_id: o })).status).toBe(201)
    // A visit that takes no place (late cancel) is not refused for being full.
    expect((await desk.post({ person_id: await newPerson(), event_occurrence_id: o, state: "late_canceled", restrictions: ["full"] })).status).toBe(201)
    expect((await server.pool.query(`select count(*)::int as n from visits where event_occurrence_id = $1`, [o])).rows[0].n).toBe(3)
  })

  it("enforces in_the_past and inside_blackout_window only when listed, each with its description", async () => {
    // Ended: 2026-10-24 09:00-10:00 local. Inside the 60-minute blackout: today 11:30 local (18:30Z).
    const past = await occurrence({ date: "2026-10-24" })
    const soon = await occurrence({ date: "2026-10-25", start: "11:30", end: "12:30" })
    const later = await occurrence()
    for (const o of [past, soon]) expect((await desk.post({ person_id: await newPerson(), event_occurrence_id: o })).status).toBe(201)
    const ended = await desk.post({ person_id: await newPerson(), event_occurrence_id: past, restrictions: ["in_the_past"] })
    expect(ended.status).toBe(422)
    expect(ended.json.errors).toEqual(["This event has ended"])
    const both = await desk.post({ person_id: await newPerson(), event_occurrence_id: past, restrictions: ["in_the_past", "inside_blackout_window"] })
    expect(both.json.errors).toEqual(["This event has ended", "It's too late to enroll for this event"])
    const late = await desk.post({ person_id: await newPerson(), event_occurrence_id: soon, restrictions: ["inside_blackout_window"] })
    expect(late.status).toBe(422)
    expect(late.json.errors).toEqual(["It's too late to enroll for this event"])
    // Listed but passing.
    expect((await desk.post({ person_id: await newPerson(), event_occurrence_id: soon, restrictions: ["in_the_past"] })).status).toBe(201)
    const all = await desk.post({ person_id: await newPerson(), event_occurrence_id: later, restrictions: ["in_the_past", "inside_blackout_window", "full"] })
    expect(all.status).toBe(201)
    // Every failing rule at once, nothing written.
    const full = await occurrence({ date: "2026-10-24", capacity: 1 })
    await desk.post({ person_id: await newPerson(), event_occurrence_id: full })
    const many = await desk.post({ person_id: await newPerson(), event_occurrence_id: full, restrictions: ["full", "in_the_past"] })
    expect(many.json.errors).toEqual(["This event has ended", "This event is full"])
    expect((await server.pool.query(`select count(*)::int as n from visits where event_occurrence_id = $1`, [full])).rows[0].n).toBe(1)
  })

  it("refuses a person already on the occurrence, and cancelled or deleted occurrences, whatever the restrictions", async () => {
    const o = await occurrence()
    const personId = await newPerson()
    await desk.post({ person_id: personId, event_occurrence_id: o })
    const again = await desk.post({ person_id: personId, event_occurrence_id: o, state: "late_canceled" })
    expect(again.status).toBe(422)
    expect(again.json.errors).toEqual(["Already enrolled"])
    const cancelled = await occurrence()
    await server.runtime.runPromise(setOccurrenceState(business.id, [cancelled], "canceled"))
    expect((await desk.post({ person_id: personId, event_occurrence_id: cancelled })).json.errors).toEqual(["The event has been cancelled"])
    const deleted = await occurrence()
    await server.runtime.runPromise(setOccurrenceState(business.id, [deleted], "deleted"))
    expect((await desk.post({ person_id: personId, event_occurrence_id: deleted })).json.errors).toEqual(["The event has been deleted"])
  })

  it("answers 400 for malformed input: unknown restriction, wrong types, unknown state, unwrapped body", async () => {
    const o = await occurrence()
    const unknown = await desk.post({ person_id: await newPerson(), event_occurrence_id: o, restrictions: ["too_far_in_advance"] })
    expect(unknown.status).toBe(400)
    expect(unknown.json.errors).toEqual(["restrictions[0] must be one of: inside_blackout_window, full, in_the_past"])
    const types = await desk.post({ person_id: "abc", event_occurrence_id: o, notify_client: "maybe" })
    expect(types.status).toBe(400)
    expect(types.json.errors).toEqual(expect.arrayContaining(["person_id must be an integer", "notify_client must be true or false"]))
    expect((await desk.post({ person_id: await newPerson(), event_occurrence_id: o, state: "waiting" })).status).toBe(400)
    const missing = await desk.post({ person_id: await newPerson() })
    expect(missing.status).toBe(400)
    expect(missing.json.errors).toEqual(["event_occurrence_id can't be blank"])
    const unwrapped = await server.request("POST", "/api/v2/desk/visits", { token: ownerToken, body: { event_occurrence_id: o } })
    expect(unwrapped.status).toBe(400)
    expect(unwrapped.json.errors).toEqual(['The request body must be wrapped in "visit"'])
  })

  it("takes Rails form bodies", async () => {
    const o = await occurrence({ capacity: 1 })
    const personId = await newPerson()
    const response = await server.request("POST", "/api/v2/desk/visits", {
      token: ownerToken,
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: `visit[person_id]=${personId}&visit[event_occurrence_id]=${o}&visit[state]=completed&visit[notify_client]=false&visit[restrictions][]=full`
    })
    expect(response.status, response.text).toBe(201)
    expect(response.json.visits[0]).toMatchObject({ person_id: personId, state: "completed" })
    expect((await visitRow(response.json.visits[0].id)).notify_client).toBe(false)
  })

  it("mails a confirmation for reserved/registered visits with notify_client, to the provider for a child without e-mail", async () => {
    const o = await occurrence()
    const before = (await mailsTo("pat@example.test")).length
    expect((await desk.post({ person_id: childId, event_occurrence_id: o })).status).toBe(201)
    const mails = await mailsTo("pat@example.test")
    expect(mails).toHaveLength(before + 1)
    expect(mails.at(-1)).toMatchObject({ template: "visit_confirmation", subject: `Enrollment confirmed: Class ${dayCounter}` })
    expect(mails.at(-1)!.text).toContain("Hello Pat")
    expect(mails.at(-1)!.text).toContain("Kim is enrolled in")
    // notify_client false, and a recorded past state: no mail.
    const quiet = await newPerson({ email: "quiet@example.test" })
    await desk.post({ person_id: quiet, event_occurrence_id: o, notify_client: false })
    const recorded = await newPerson({ email: "recorded@example.test" })
    await desk.post({ person_id: recorded, event_occurrence_id: o, state: "completed" })
    expect(await mailsTo("quiet@example.test")).toHaveLength(0)
    expect(await mailsTo("recorded@example.test")).toHaveLength(0)
  })
})

describe("PUT /desk/visits/:id", () => {
  it("follows the transition table for all five events from all five states", async () => {
    const o = await occurrence({ capacity: null })
    for (const from of VISIT_STATES) {
      for (const event of VISIT_STATE_EVENTS) {
        const created = await desk.post({ person_id: await newPerson(), event_occurrence_id: o, state: from })
        const id = created.json.visits[0].id
        const response = await desk.put(id, { state_event: event })
        const transition = VISIT_TRANSITIONS[event]
        if (transition.from.includes(from)) {
          expect(response.status, `${event} from ${from}: ${response.text}`).toBe(200)
          expect(response.json.visits[0].state).toBe(transition.to)
        } else {
          expect(response.status, `${event} from ${from}`).toBe(422)
          expect(response.json.errors).toEqual([`Cannot ${event} a visit that is ${from}`])
          expect((await visitRow(id)).state).toBe(from)
        }
      }
    }
  })

  it("sets the timestamps of each transition; reset clears them but keeps registered_at", async () => {
    const o = await occurrence()
    const created = await desk.post({ person_id: await newPerson(), event_occurrence_id: o, state: "reserved" })
    const id = created.json.visits[0].id
    expect(created.json.visits[0].registered_at).toBeNull()
    clock.set("2026-10-25T18:05:00Z")
    try {
      expect((await desk.put(id, { state_event: "register" })).json.visits[0]).toMatchObject({ state: "registered", registered_at: "2026-10-25T18:05:00Z" })
      clock.set("2026-10-25T18:10:00Z")
      expect((await desk.put(id, { state_event: "complete" })).json.visits[0]).toMatchObject({ state: "completed", completed_at: "2026-10-25T18:10:00Z" })
      const reset = (await desk.put(id, { state_event: "reset" })).json.visits[0]
      expect(reset).toMatchObject({ state: "registered", registered_at: "2026-10-25T18:05:00Z", completed_at: null, noshow_at: null, cancelled_at: null })
      expect((await desk.put(id, { state_event: "noshow" })).json.visits[0]).toMatchObject({ state: "noshowed", noshow_at: "2026-10-25T18:10:00Z" })
      await desk.put(id, { state_event: "reset" })
      expect((await desk.put(id, { state_event: "late_cancel" })).json.visits[0]).toMatchObject({
        state: "late_canceled",
        cancelled_at: "2026-10-25T18:10:00Z",
        noshow_at: null
      })
    } finally {
      clock.set(NOW)
    }
  })

  it("sets person_id on a visit without one, never changes it, and registers only with a person", async () => {
    const o = await occurrence()
    const placeholder = (await desk.post({ event_occurrence_id: o, state: "reserved" })).json.visits[0].id
    const noPerson = await desk.put(placeholder, { state_event: "register" })
    expect(noPerson.status).toBe(422)
    expect(noPerson.json.errors).toEqual(["A visit needs a person to be registered"])
    expect((await desk.put(placeholder, { person_id: 99999999 })).status).toBe(404)
    const taken = await newPerson()
    await desk.post({ person_id: taken, event_occurrence_id: o })
    expect((await desk.put(placeholder, { person_id: taken })).json.errors).toEqual(["Already enrolled"])
    const personId = await newPerson()
    // Person and event together: the person is set first.
    const both = await desk.put(placeholder, { person_id: personId, state_event: "register" })
    expect(both.status, both.text).toBe(200)
    expect(both.json.visits[0]).toMatchObject({ person_id: personId, state: "registered" })
    expect((await desk.put(placeholder, { person_id: personId })).status).toBe(200)
    const changed = await desk.put(placeholder, { person_id: await newPerson() })
    expect(changed.status).toBe(422)
    expect(changed.json.errors).toEqual(["person_id cannot be changed once the visit has a person"])
    expect((await desk.put(placeholder, { state_event: "dance" })).status).toBe(400)
  })

  it("frees the place on noshow and late_cancel", async () => {
    const o = await occurrence({ capacity: 1 })
    const id = (await desk.post({ person_id: await newPerson(), event_occurrence_id: o })).json.visits[0].id
    expect((await desk.post({ person_id: await newPerson(), event_occurrence_id: o, restrictions: ["full"] })).status).toBe(422)
    await desk.put(id, { state_event: "noshow" })
    const occ = await desk.get(`/api/v2/desk/event_occurrences/${o}`)
    expect(occ.json.event_occurrences[0]).toMatchObject({ full: false, capacity_remaining: 1 })
    expect((await desk.post({ person_id: await newPerson(), event_occurrence_id: o, restrictions: ["full"] })).status).toBe(201)
  })

  it("is a 404 for unknown and other businesses' visits", async () => {
    const theirs = await server.pool.query(
      `insert into visits (business_id, event_occurrence_id, state) values ($1, $2, 'reserved') returning id`,
      [elsewhere.id, foreignOccurrence]
    )
    const foreignVisit = Number(theirs.rows[0].id)
    expect((await desk.put(foreignVisit, { state_event: "register" })).status).toBe(404)
    expect((await desk.put(99999999, { state_event: "register" })).json.errors).toEqual(["Visit 99999999 not found"])
    expect((await desk.get(`/api/v2/desk/visits/${foreignVisit}`)).status).toBe(404)
    expect((await desk.delete(foreignVisit)).status).toBe(404)
    expect((await server.pool.query(`select 1 from visits where id = $1`, [foreignVisit])).rowCount).toBe(1)
  })
})

describe("DELETE /desk/visits/:id", () => {
  it("deletes (204), frees the place and mails the client only when notify_client was set", async () => {
    const o = await occurrence({ capacity: 1 })
    const loud = await newPerson({ email: "loud@example.test" })
    const id = (await desk.post({ person_id: loud, event_occurrence_id: o })).json.visits[0].id
    const deleted = await desk.delete(id)
    expect(deleted.status).toBe(204)
    expect((await desk.get(`/api/v2/desk/visits/${id}`)).status).toBe(404)
    expect((await mailsTo("loud@example.test")).map((m) => m.template)).toEqual(["visit_confirmation", "visit_cancellation"])
    const silent = await newPerson({ email: "silent@example.test" })
    const quiet = (await desk.post({ person_id: silent, event_occurrence_id: o, notify_client: false, restrictions: ["full"] })).json.visits[0].id
    expect((await desk.delete(quiet)).status).toBe(204)
    expect(await mailsTo("silent@example.test")).toHaveLength(0)
    expect((await desk.delete(quiet)).status).toBe(404)
  })
})

describe("reading visits (staff)", () => {
  it("lists a person's visits by occurrence start, paginated, with from/to and event_occurrence_id", async () => {
    const personId = await newPerson()
    // Made in reverse order of their starts.
    const late = await occurrence({ date: "2026-12-20" })
    const middle = await occurrence({ date: "2026-12-10" })
    const early = await occurrence({ date: "2026-12-01" })
    for (const o of [late, middle, early]) await desk.post({ person_id: personId, event_occurrence_id: o })
    const all = await desk.get(`/api/v2/desk/people/${personId}/visits`)
    expect(all.status).toBe(200)
    expect(all.json.visits.map((v: Visit) => v.event_occurrence_id)).toEqual([early, middle, late])
    expect(all.json.total_count).toBe(3)
    expect(all.json.next).toBeUndefined()
    const page1 = await desk.get(`/api/v2/desk/people/${personId}/visits?per_page=2`)
    expect(page1.json.visits.map((v: Visit) => v.event_occurrence_id)).toEqual([early, middle])
    expect(page1.json.next).toBe(`http://demo.${TEST_BASE_DOMAIN}/api/v2/desk/people/${personId}/visits?per_page=2&page=2`)
    const page2 = await desk.get(`/api/v2/desk/people/${personId}/visits?per_page=2&page=2`)
    expect(page2.json.visits.map((v: Visit) => v.event_occurrence_id)).toEqual([late])
    expect(page2.json.prev).toBeDefined()
    const ranged = await desk.get(`/api/v2/desk/people/${personId}/visits?from=2026-12-05T00:00:00-0800&to=2026-12-20T09:00:00-08:00`)
    expect(ranged.json.visits.map((v: Visit) => v.event_occurrence_id)).toEqual([middle, late])
    const one = await desk.get(`/api/v2/desk/people/${personId}/visits?event_occurrence_id=${middle}`)
    expect(one.json.visits.map((v: Visit) => v.event_occurrence_id)).toEqual([middle])
  })

  it("needs from and to together, in order, as timestamps (400)", async () => {
    const path = `/api/v2/desk/people/${ownerPersonId}/visits`
    expect((await desk.get(`${path}?from=2026-12-01T00:00:00Z`)).json).toEqual({ errors: ["to can't be blank"] })
    expect((await desk.get(`${path}?to=2026-12-01T00:00:00Z`)).json).toEqual({ errors: ["from can't be blank"] })
    const reversed = await desk.get(`${path}?from=2026-12-02T00:00:00Z&to=2026-12-01T00:00:00Z`)
    expect(reversed.status).toBe(400)
    expect(reversed.json.errors).toEqual(["to must not be earlier than from"])
    expect((await desk.get(`${path}?from=yesterday&to=2026-12-01T00:00:00Z`)).status).toBe(400)
    expect((await desk.get(`${path}?page=0`)).status).toBe(400)
    expect((await desk.get(`/api/v2/desk/people/99999999/visits`)).status).toBe(404)
    expect((await desk.get(`/api/v2/desk/people/me/visits`)).status).toBe(200)
  })

  it("lists an occurrence's visits in the order they were made, paginated", async () => {
    const o = await occurrence()
    const ids: Array<number> = []
    for (let i = 0; i < 3; i++) ids.push((await desk.post({ person_id: await newPerson(), event_occurrence_id: o })).json.visits[0].id)
    const response = await desk.get(`/api/v2/desk/event_occurrences/${o}/visits?per_page=2`)
    expect(response.status).toBe(200)
    expect(response.json.visits.map((v: Visit) => v.id)).toEqual(ids.slice(0, 2))
    expect(response.json.total_count).toBe(3)
    expect(response.json.next).toContain("page=2")
    expect((await desk.get(`/api/v2/desk/event_occurrences/${foreignOccurrence}/visits`)).status).toBe(404)
    expect((await desk.get(`/api/v2/desk/event_occurrences/99999999/visits`)).status).toBe(404)
  })

  it("summarizes completed visits overall and per service", async () => {
    const personId = await newPerson()
    const empty = await desk.get(`/api/v2/desk/people/${personId}/visits/summary`)
    expect(empty.json).toEqual({
      summaries: [{ person_id: personId, first_visited_at: null, last_visited_at: null, services_visited_at: [], completed_count: 0 }]
    })
    const a = await occurrence({ date: "2026-10-20" })
    const b = await occurrence({ date: "2026-10-22" })
    const c = await occurrence({ date: "2026-10-21", service: services.restricted })
    const notCompleted = await occurrence({ date: "2026-10-19" })
    for (const o of [a, b, c]) await desk.post({ person_id: personId, event_occurrence_id: o, state: "completed" })
    await desk.post({ person_id: personId, event_occurrence_id: notCompleted, state: "noshowed" })
    const summary = await desk.get(`/api/v2/desk/people/${personId}/visits/summary`)
    expect(summary.json).toEqual({
      summaries: [
        {
          person_id: personId,
          first_visited_at: "2026-10-20T16:00:00Z",
          last_visited_at: "2026-10-22T16:00:00Z",
          services_visited_at: [
            { service_id: services.open, first_visited_at: "2026-10-20T16:00:00Z", last_visited_at: "2026-10-22T16:00:00Z", name: "Open", completed_count: 2 },
            { service_id: services.restricted, first_visited_at: "2026-10-21T16:00:00Z", last_visited_at: "2026-10-21T16:00:00Z", name: "Restricted", completed_count: 1 }
          ],
          completed_count: 3
        }
      ]
    })
    expect((await desk.get(`/api/v2/desk/people/99999999/visits/summary`)).status).toBe(404)
  })

  it("refuses a client token on desk endpoints as the staff middleware does (403)", async () => {
    const response = await desk.get(`/api/v2/desk/people/${parent.personId}/visits`, parentToken)
    expect(response.status).toBe(403)
    expect(response.json.error).toBeDefined()
    expect((await desk.post({ person_id: parent.personId, event_occurrence_id: await occurrence() }, parentToken)).status).toBe(403)
  })
})

describe("client mode", () => {
  it("enrolls the token's person by default and a dependent on request, mailing each (a child's mail to the provider)", async () => {
    const o = await occurrence()
    const before = (await mailsTo("pat@example.test")).length
    const self = await front.post({ event_occurrence_id: o })
    expect(self.status, self.text).toBe(201)
    expect(self.json.visits[0]).toMatchObject({ person_id: parent.personId, state: "registered", event_occurrence_id: o })
    const child = await front.post({ person_id: childId, event_occurrence_id: o })
    expect(child.status).toBe(201)
    expect(child.json.visits[0].person_id).toBe(childId)
    const mails = await mailsTo("pat@example.test")
    expect(mails.slice(before).map((m) => m.template)).toEqual(["visit_confirmation", "visit_confirmation"])
    expect(mails.at(-1)!.text).toContain("Kim is enrolled in")
  })

  it("is a 404 for someone else, an occurrence the client cannot see, or an unknown one", async () => {
    const o = await occurrence()
    expect((await front.post({ person_id: other.personId, event_occurrence_id: o })).json).toEqual({ errors: [`Person ${other.personId} not found`] })
    const hidden = await occurrence({ service: services.staffOnly })
    expect((await front.post({ event_occurrence_id: hidden })).status).toBe(404)
    expect((await front.post({ event_occurrence_id: 99999999 })).status).toBe(404)
    expect((await front.post({ event_occurrence_id: foreignOccurrence })).status).toBe(404)
  })

  it("enforces every client-mode restriction with its description", async () => {
    const restricted = await occurrence({ service: services.restricted })
    const refused = await front.post({ event_occurrence_id: restricted })
    expect(refused.status).toBe(422)
    expect(refused.json.errors).toEqual([
      "This may not be booked online. Please contact us for details.",
      "You must be a member to enroll in this event",
      "No available visits"
    ])
    const past = await occurrence({ date: "2026-10-24" })
    expect((await front.post({ event_occurrence_id: past })).json.errors).toEqual(["This event has ended"])
    const soon = await occurrence({ date: "2026-10-25", start: "11:30", end: "12:30" })
    expect((await front.post({ event_occurrence_id: soon })).json.errors).toEqual(["It's too late to enroll for this event"])
    const full = await occurrence({ capacity: 1 })
    await desk.post({ person_id: await newPerson(), event_occurrence_id: full })
    expect((await front.post({ event_occurrence_id: full })).json.errors).toEqual(["This event is full"])
    const twice = await occurrence()
    expect((await front.post({ event_occurrence_id: twice })).status).toBe(201)
    expect((await front.post({ event_occurrence_id: twice })).json.errors).toEqual(["Already enrolled"])
    const cancelled = await occurrence()
    await server.runtime.runPromise(setOccurrenceState(business.id, [cancelled], "canceled"))
    expect((await front.post({ event_occurrence_id: cancelled })).json.errors).toEqual(["The event has been cancelled"])
    expect((await server.pool.query(`select count(*)::int as n from visits where event_occurrence_id = any($1)`, [[restricted, past, soon, cancelled]])).rows[0].n).toBe(0)
  })

  it("translates restriction messages per X-FD-Locale", async () => {
    const past = await occurrence({ date: "2026-10-24" })
    const response = await server.request("POST", "/api/v2/front/visits", {
      token: parentToken,
      headers: { "x-fd-locale": "de" },
      body: { visit: { event_occurrence_id: past } }
    })
    expect(response.json.errors).toEqual(["Diese Veranstaltung ist vorbei"])
  })

  it("reads only the token's person's and dependents' visits; anything else is a 404; a client_id alone is a 401", async () => {
    const o = await occurrence()
    const mine = (await front.post({ event_occurrence_id: o })).json.visits[0].id
    const kids = (await front.post({ person_id: childId, event_occurrence_id: o })).json.visits[0].id
    const theirs = (await front.post({ event_occurrence_id: o }, otherToken)).json.visits[0].id
    expect((await front.get(`/api/v2/front/visits/${mine}`)).json.visits[0].id).toBe(mine)
    expect((await front.get(`/api/v2/front/visits/${kids}`)).status).toBe(200)
    const hidden = await front.get(`/api/v2/front/visits/${theirs}`)
    expect(hidden.status).toBe(404)
    expect(hidden.json.errors).toEqual([`Visit ${theirs} not found`])
    expect((await front.get(`/api/v2/front/visits/${mine}`, otherToken)).status).toBe(404)
    expect((await front.get(`/api/v2/front/visits/${mine}`, foreignToken)).status).toBe(401)
    expect((await server.request("GET", `/api/v2/front/visits/${mine}?client_id=test-app`)).status).toBe(401)
    expect((await server.request("GET", `/api/v2/front/people/${parent.personId}/visits?client_id=test-app`)).status).toBe(401)
    const list = await front.get(`/api/v2/front/people/me/visits?event_occurrence_id=${o}`)
    expect(list.json.visits.map((v: Visit) => v.id)).toEqual([mine])
    expect((await front.get(`/api/v2/front/people/${childId}/visits?event_occurrence_id=${o}`)).json.visits.map((v: Visit) => v.id)).toEqual([kids])
    expect((await front.get(`/api/v2/front/people/${other.personId}/visits`)).status).toBe(404)
    expect((await front.get(`/api/v2/front/people/${parent.personId}/visits?from=2026-10-01T00:00:00Z`)).status).toBe(400)
    expect((await front.post({ event_occurrence_id: o }, "not-a-token")).status).toBe(401)
  })

  it("cancels a reserved or registered visit before its start (204, place freed, mailed); later or otherwise a 422", async () => {
    const o = await occurrence({ capacity: 1 })
    const before = (await mailsTo("pat@example.test")).length
    const id = (await front.post({ event_occurrence_id: o })).json.visits[0].id
    expect((await front.delete(id, otherToken)).status).toBe(404)
    expect((await front.delete(id)).status).toBe(204)
    expect((await mailsTo("pat@example.test")).slice(before).map((m) => m.template)).toEqual(["visit_confirmation", "visit_cancellation"])
    expect((await front.post({ event_occurrence_id: o }, otherToken)).status).toBe(201)

    const started = await occurrence({ date: "2026-10-25", start: "10:30", end: "12:00" })
    const late = (await desk.post({ person_id: parent.personId, event_occurrence_id: started })).json.visits[0].id
    const refused = await front.delete(late)
    expect(refused.status).toBe(422)
    expect(refused.json.errors).toEqual(["This visit can no longer be cancelled: the event has started"])
    const done = await occurrence()
    const completed = (await desk.post({ person_id: parent.personId, event_occurrence_id: done, state: "completed" })).json.visits[0].id
    expect((await front.delete(completed)).json.errors).toEqual(["A visit that is completed cannot be cancelled"])
    expect((await front.delete(99999999)).status).toBe(404)
  })
})

describe("webhooks", () => {
  it("stores visit.created and visit.updated events when subscribed", async () => {
    await server.pool.query("update businesses set webhooks_enabled = true where id = $1", [business.id])
    for (const topic of ["visit.created", "visit.updated"]) {
      const response = await server.request("POST", "/api/v3/webhooks", {
        token: ownerToken,
        headers: { "content-type": "application/vnd.api+json" },
        body: JSON.stringify({ data: { type: "webhooks", attributes: { target: "http://127.0.0.1:9/hook", topic } } })
      })
      expect(response.status, response.text).toBe(201)
    }
    const o = await occurrence()
    const id = (await desk.post({ person_id: await newPerson(), event_occurrence_id: o })).json.visits[0].id
    await desk.put(id, { state_event: "complete" })
    const frontId = (await front.post({ event_occurrence_id: o })).json.visits[0].id
    const { rows } = await server.pool.query(`select topic, payload from webhook_events where business_id = $1 order by id`, [business.id])
    const events = rows.map((row: { topic: string; payload: { visits: Array<Visit> } }) => ({ topic: row.topic, visit: row.payload.visits[0]! }))
    expect(events.map((e) => [e.topic, e.visit.id, e.visit.state])).toEqual([
      ["visit.created", id, "registered"],
      ["visit.updated", id, "completed"],
      ["visit.created", frontId, "registered"]
    ])
  })
})

describe("deleting a person with future visits", () => {
  it("is a 422 while a future visit holds a place; past and released visits do not block", async () => {
    const personId = await newPerson()
    const past = await occurrence({ date: "2026-10-20" })
    await desk.post({ person_id: personId, event_occurrence_id: past, state: "completed" })
    const noshow = await occurrence()
    await desk.post({ person_id: personId, event_occurrence_id: noshow, state: "late_canceled" })
    const future = await occurrence()
    const id = (await desk.post({ person_id: personId, event_occurrence_id: future })).json.visits[0].id
    const refused = await server.request("DELETE", `/api/v2/desk/people/${personId}`, { token: ownerToken })
    expect(refused.status).toBe(422)
    expect(refused.json.errors).toEqual(["This person has future visits (1); cancel them first"])
    await desk.delete(id)
    expect((await server.request("DELETE", `/api/v2/desk/people/${personId}`, { token: ownerToken })).status).toBe(204)
  })
})

describe("OpenAPI", () => {
  it("documents the visit and make-up endpoints", async () => {
    const response = await server.request("GET", "/api/openapi.json")
    expect(response.status).toBe(200)
    const paths = Object.keys(response.json.paths)
    for (const path of [
      "/api/v2/front/visits",
      "/api/v2/front/visits/{id}",
      "/api/v2/front/people/{person_id}/visits",
      "/api/v2/desk/visits",
      "/api/v2/desk/visits/{id}",
      "/api/v2/desk/people/{person_id}/visits",
      "/api/v2/desk/people/{person_id}/visits/summary",
      "/api/v2/desk/event_occurrences/{event_occurrence_id}/visits",
      "/api/v2/desk/make_ups/reasons",
      "/api/v2/desk/make_ups/generate"
    ]) {
      expect(paths).toContain(path)
    }
    expect(response.json.paths["/api/v2/desk/visits"].post.description).toContain("restrictions")
  })
})
