import { describe, expect, it } from "vitest"
import { setOccurrenceState } from "../../src/schedule/event-occurrences/service.ts"
import { TEST_BASE_DOMAIN } from "../support/server.ts"
import { type Visit, business, childId, desk, foreignOccurrence, foreignToken, front, mailsTo, newPerson, occurrence, other, otherToken, ownerPersonId, ownerToken, parent, parentToken, server, services, setUpVisits } from "./visits-setup.ts"

/**
 * Deleting and reading visits as staff, client mode, webhooks, deleting a person and the OpenAPI
 * document over HTTP (data: visits-setup.ts).
 */

setUpVisits()

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
