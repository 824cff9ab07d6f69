import { describe, expect, it } from "vitest"
import { setOccurrenceState } from "../../src/schedule/event-occurrences/service.ts"
import { VISIT_STATES, VISIT_STATE_EVENTS, VISIT_TRANSITIONS } from "../../src/enrollment/visits/model.ts"
import { createPerson } from "../support/factories.ts"
import { NOW, business, childId, clock, dayCounter, desk, elsewhere, foreignOccurrence, mailsTo, newPerson, occurrence, ownerToken, server, setUpVisits, staffMemberId, visitRow } from "./visits-setup.ts"

/** Creating and changing visits as staff over HTTP (data: visits-setup.ts). */

setUpVisits()

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
