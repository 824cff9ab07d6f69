import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { setOccurrenceState } from "../../src/schedule/event-occurrences/service.ts"
import { admitVisits, placesFreed } from "../../src/enrollment/visits/capacity.ts"
import { expireStartedEntries, offerWaitlistPlaces } from "../../src/enrollment/waitlists/offer.ts"
import { offerWaitlistPlacesTask } from "../../workers/tasks/offer_waitlist_places.ts"
import { makeSettableClock } from "../support/clock.ts"
import { createApplication, createBusiness, createLocation, createPerson, createToken } from "../support/factories.ts"
import { type TestServer, startTestServer } from "../support/server.ts"
import { createDependent, pendingJobs } from "../people/fixtures.ts"
import { createService, occurrencesOf, scheduleEvent } from "../schedule/fixtures.ts"

/**
 * Waitlists over HTTP: eligibility codes, joining and leaving in both modes, the staff state
 * events, and the offer job that gives freed places to the oldest waiting person.
 * Classes run daily at 10:00 Los Angeles time; "now" is 2026-11-02 10:00 UTC (02:00 local).
 */
const clock = makeSettableClock("2026-11-02T10:00:00Z")
let server: TestServer
let businessId: number
let ownerToken: string
let clientToken: string
let otherToken: string
let client: { personId: number }
let dependentId: number
let other: { personId: number }
const fillers: Array<number> = []
/** Occurrences by role, each a future session unless named otherwise. */
const occ: Record<string, number> = {}
let foreignOccurrence: number

const request = (method: string, path: string, token?: string, body?: unknown) =>
  server.request(method, path, { ...(token ? { token } : {}), ...(body === undefined ? {} : { body }) })

/** Fills the occurrence's places with visits of filler people. */
const fill = async (occurrenceId: number, count: number) => {
  for (let i = 0; i < count; i++) {
    await server.pool.query(
      `insert into visits (business_id, event_occurrence_id, person_id, state, registered_at) values ($1, $2, $3, 'registered', now())`,
      [businessId, occurrenceId, fillers[i]]
    )
  }
}

const entryState = async (id: number) =>
  (await server.pool.query(`select state from waitlist_entries where id = $1`, [id])).rows[0]?.state as string

const join = async (personId: number, occurrenceId: number) => {
  const response = await request("POST", "/api/v2/desk/waitlist_entries", ownerToken, {
    waitlist_entry: { person_id: personId, event_occurrence_id: occurrenceId }
  })
  expect(response.status, response.text).toBe(201)
  return response.json.waitlist_entries[0].id as number
}

const codes = (response: { json: any }, personId: number) =>
  response.json.waitlist_eligibilities.find((e: any) => e.person_id === personId).restrictions.map((r: any) => r.code)

beforeAll(async () => {
  server = await startTestServer({ clock: clock.clock })
  await createApplication(server.pool, "test-app")
  businessId = (await createBusiness(server.pool, { subdomain: "demo", time_zone: "America/Los_Angeles" })).id
  const elsewhere = (await createBusiness(server.pool, { subdomain: "elsewhere" })).id
  const location = (await createLocation(server.pool, businessId, { name: "Main" })).id
  ownerToken = await createToken(server.pool, (await createPerson(server.pool, businessId, { role: "owner" })).accountId, businessId)
  const clientAccount = await createPerson(server.pool, businessId, { first_name: "Cleo", last_name: "Client" })
  client = clientAccount
  clientToken = await createToken(server.pool, clientAccount.accountId, businessId)
  dependentId = await createDependent(server.pool, businessId, client.personId, { first_name: "Kid" })
  const otherAccount = await createPerson(server.pool, businessId, { first_name: "Otto" })
  other = otherAccount
  otherToken = await createToken(server.pool, otherAccount.accountId, businessId)
  for (let i = 0; i < 3; i++) fillers.push((await createPerson(server.pool, businessId, { first_name: `Filler${i}` })).personId)

  const service = (fields: Parameters<typeof createService>[2]) => createService(server.pool, businessId, fields)
  const yoga = await service({ type: "GroupClass", name: "Yoga", maximum_clients: 2 })
  const open = await service({ type: "GroupClass", name: "Open Floor", maximum_clients: null })
  const closed = await service({ type: "GroupClass", name: "No Waitlist", maximum_clients: 1 })
  await server.pool.query(`update services set waitlist_enabled = false where id = $1`, [closed])
  const bounded = await service({ type: "GroupClass", name: "Small Waitlist", maximum_clients: 1 })
  await server.pool.query(`update services set waitlist_capacity = 1 where id = $1`, [bounded])
  const common = { location_id: location, frequency: "weekly" as const, start_date: "2026-10-30", weekdays: [0, 1, 2, 3, 4, 5, 6], start_time: "10:00", end_time: "11:00", staff_member_ids: [] }
  const yogaEvent = await scheduleEvent(server, businessId, { ...common, service_id: yoga, name: "Yoga" })
  const yogaSessions = await occurrencesOf(server.pool, businessId, yogaEvent)
  const byDate = (sessions: Array<{ id: number; date: string }>, date: string) => sessions.find((s) => s.date === date)!.id
  occ.past = byDate(yogaSessions, "2026-11-01")
  occ.full = byDate(yogaSessions, "2026-11-02")
  occ.later = byDate(yogaSessions, "2026-11-03")
  occ.offer = byDate(yogaSessions, "2026-11-04")
  occ.cancelled = byDate(yogaSessions, "2026-11-05")
  occ.deleted = byDate(yogaSessions, "2026-11-06")
  occ.enrolled = byDate(yogaSessions, "2026-11-07")
  occ.expiry = byDate(yogaSessions, "2026-11-08")
  occ.transitions = byDate(yogaSessions, "2026-11-09")
  occ.withPlaces = byDate(yogaSessions, "2026-11-10")
  occ.skip = byDate(yogaSessions, "2026-11-11")
  occ.open = byDate(await occurrencesOf(server.pool, businessId, await scheduleEvent(server, businessId, { ...common, service_id: open, name: "Open" })), "2026-11-02")
  occ.closed = byDate(await occurrencesOf(server.pool, businessId, await scheduleEvent(server, businessId, { ...common, service_id: closed, name: "Closed" })), "2026-11-02")
  occ.bounded = byDate(await occurrencesOf(server.pool, businessId, await scheduleEvent(server, businessId, { ...common, service_id: bounded, name: "Bounded" })), "2026-11-02")
  for (const key of ["past", "full", "later", "offer", "cancelled", "deleted", "enrolled", "expiry", "transitions", "skip"]) await fill(occ[key]!, 2)
  await fill(occ.closed!, 1)
  await fill(occ.bounded!, 1)
  await server.runtime.runPromise(setOccurrenceState(businessId, [occ.cancelled!], "canceled"))
  await server.runtime.runPromise(setOccurrenceState(businessId, [occ.deleted!], "deleted"))
  // The client holds one of the places of `enrolled`.
  await server.pool.query(`update visits set person_id = $1 where event_occurrence_id = $2 and person_id = $3`, [client.personId, occ.enrolled, fillers[0]])

  const foreignService = await createService(server.pool, elsewhere, { type: "GroupClass", name: "Elsewhere", maximum_clients: 1 })
  const foreignLocation = (await createLocation(server.pool, elsewhere, { name: "There" })).id
  const foreignEvent = await scheduleEvent(server, elsewhere, { ...common, location_id: foreignLocation, service_id: foreignService, name: "Far" })
  foreignOccurrence = (await occurrencesOf(server.pool, elsewhere, foreignEvent)).find((s) => s.date === "2026-11-02")!.id
}, 120_000)

afterAll(async () => {
  await server?.close()
})

describe("waitlist eligibility", () => {
  it("lets the client and their dependent join a full class", async () => {
    const response = await request("GET", `/api/v2/front/event_occurrences/${occ.full}/waitlist_eligibilities`, clientToken)
    expect(response.status, response.text).toBe(200)
    expect(response.json).toEqual({
      waitlist_eligibilities: [
        { person_id: client.personId, can_waitlist: true, restrictions: [] },
        { person_id: dependentId, can_waitlist: true, restrictions: [] }
      ]
    })
    expect(response.headers["cache-control"]).toContain("private")
  })

  it("produces every restriction code with a localized description", async () => {
    const check = async (occurrenceId: number, expected: Array<string>) => {
      const response = await request("GET", `/api/v2/front/event_occurrences/${occurrenceId}/waitlist_eligibilities`, clientToken)
      expect(response.status, response.text).toBe(200)
      expect(codes(response, client.personId)).toEqual(expected)
      expect(response.json.waitlist_eligibilities[0].can_waitlist).toBe(false)
      return response
    }
    const past = await check(occ.past!, ["event_in_past"])
    expect(past.json.waitlist_eligibilities[0].restrictions[0].description).toBe("The event has already started")
    await check(occ.cancelled!, ["event_cancelled"])
    await check(occ.deleted!, ["event_deleted"])
    await check(occ.open!, ["waitlist_unavailable"])
    await check(occ.withPlaces!, ["waitlist_unavailable"])
    await check(occ.closed!, ["waitlist_disabled"])
    await check(occ.enrolled!, ["person_already_enrolled"])
    // The dependent is not enrolled there: only the client is restricted.
    const enrolled = await request("GET", `/api/v2/front/event_occurrences/${occ.enrolled}/waitlist_eligibilities`, clientToken)
    expect(codes(enrolled, dependentId)).toEqual([])

    await join(other.personId, occ.bounded!)
    await check(occ.bounded!, ["waitlist_full"])
    const entry = await join(client.personId, occ.later!)
    const later = await check(occ.later!, ["person_already_waitlisted"])
    expect(codes(later, dependentId)).toEqual([])
    await request("DELETE", `/api/v2/desk/waitlist_entries/${entry}`, ownerToken)

    const german = await server.request("GET", `/api/v2/front/event_occurrences/${occ.closed}/waitlist_eligibilities`, {
      token: clientToken,
      headers: { "x-fd-locale": "de" }
    })
    expect(german.json.waitlist_eligibilities[0].restrictions[0].description).toBe("Diese Veranstaltung hat keine Warteliste")
  })

  it("needs a token and an occurrence of this business", async () => {
    const anonymous = await request("GET", `/api/v2/front/event_occurrences/${occ.full}/waitlist_eligibilities?client_id=test-app`)
    expect(anonymous.status).toBe(401)
    const foreign = await request("GET", `/api/v2/front/event_occurrences/${foreignOccurrence}/waitlist_eligibilities`, clientToken)
    expect(foreign.status).toBe(404)
    expect(foreign.json.errors).toEqual([`Event occurrence ${foreignOccurrence} not found`])
    expect((await request("GET", `/api/v2/front/event_occurrences/abc/waitlist_eligibilities`, clientToken)).status).toBe(400)
  })
})

describe("joining and leaving (client mode)", () => {
  it("joins for the token's person by default, and for a dependent", async () => {
    const self = await request("POST", "/api/v2/front/waitlist_entries", clientToken, { waitlist_entry: { event_occurrence_id: occ.full } })
    expect(self.status, self.text).toBe(201)
    expect(self.json).toEqual({
      waitlist_entries: [{
        id: expect.any(Number),
        person_id: client.personId,
        event_occurrence_id: occ.full,
        state: "waiting",
        // Embedded as the public documentation's examples show them.
        event_occurrence: expect.objectContaining({ id: occ.full }),
        person: expect.objectContaining({ id: client.personId })
      }]
    })
    // Rails form encoding, for the dependent.
    const kid = await server.request("POST", "/api/v2/front/waitlist_entries", {
      token: clientToken,
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: `waitlist_entry[person_id]=${dependentId}&waitlist_entry[event_occurrence_id]=${occ.full}`
    })
    expect(kid.status, kid.text).toBe(201)
    expect(kid.json.waitlist_entries[0].person_id).toBe(dependentId)

    const again = await request("POST", "/api/v2/front/waitlist_entries", clientToken, { waitlist_entry: { event_occurrence_id: occ.full } })
    expect(again.status).toBe(422)
    expect(again.json.errors).toEqual(["Already on the waitlist"])
  })

  it("refuses with every restriction's description", async () => {
    const response = await request("POST", "/api/v2/front/waitlist_entries", clientToken, {
      waitlist_entry: { event_occurrence_id: occ.past }
    })
    expect(response.status).toBe(422)
    expect(response.json.errors).toEqual(["The event has already started"])
    const open = await request("POST", "/api/v2/front/waitlist_entries", clientToken, { waitlist_entry: { event_occurrence_id: occ.open } })
    expect(open.json.errors).toEqual(["This event still has places: enroll instead of joining the waitlist"])
  })

  it("refuses other people, other businesses, malformed bodies and calls without a token", async () => {
    const stranger = await request("POST", "/api/v2/front/waitlist_entries", clientToken, {
      waitlist_entry: { person_id: other.personId, event_occurrence_id: occ.full }
    })
    expect(stranger.status).toBe(404)
    expect(stranger.json.errors).toEqual([`Person ${other.personId} not found`])
    const foreign = await request("POST", "/api/v2/front/waitlist_entries", clientToken, {
      waitlist_entry: { event_occurrence_id: foreignOccurrence }
    })
    expect(foreign.status).toBe(404)
    const malformed = await request("POST", "/api/v2/front/waitlist_entries", clientToken, { waitlist_entry: { event_occurrence_id: "soon" } })
    expect(malformed.status).toBe(400)
    const unwrapped = await request("POST", "/api/v2/front/waitlist_entries", clientToken, { event_occurrence_id: occ.full })
    expect(unwrapped.status).toBe(400)
    const anonymous = await request("POST", "/api/v2/front/waitlist_entries?client_id=test-app", undefined, {
      waitlist_entry: { event_occurrence_id: occ.full }
    })
    expect(anonymous.status).toBe(401)
    expect(await server.pool.query(`select 1 from waitlist_entries where person_id = $1`, [other.personId]).then((r) => r.rowCount)).toBe(1)
  })

  it("reads own entries only; staff see timestamps", async () => {
    const list = await request("GET", `/api/v2/front/people/${client.personId}/waitlist_entries`, clientToken)
    expect(list.status, list.text).toBe(200)
    const [entry] = list.json.waitlist_entries
    expect(Object.keys(entry).sort()).toEqual(["event_occurrence", "event_occurrence_id", "id", "person", "person_id", "state"])
    expect((await request("GET", `/api/v2/front/waitlist_entries/${entry.id}`, clientToken)).json.waitlist_entries).toEqual([entry])
    expect((await request("GET", `/api/v2/front/waitlist_entries/${entry.id}`, otherToken)).status).toBe(404)
    expect((await request("GET", `/api/v2/front/people/${client.personId}/waitlist_entries`, otherToken)).status).toBe(404)
    expect((await request("GET", `/api/v2/front/people/${dependentId}/waitlist_entries`, clientToken)).json.waitlist_entries).toHaveLength(1)
    expect((await request("GET", `/api/v2/front/waitlist_entries/${entry.id}?client_id=test-app`)).status).toBe(401)
    const desk = await request("GET", `/api/v2/desk/waitlist_entries/${entry.id}`, ownerToken)
    expect(desk.json.waitlist_entries[0]).toEqual({ ...entry, created_at: "2026-11-02T10:00:00Z", updated_at: "2026-11-02T10:00:00Z" })
    expect((await request("GET", `/api/v2/desk/waitlist_entries/${entry.id}`, clientToken)).status).toBe(403)
    expect((await request("GET", `/api/v2/desk/waitlist_entries/999999`, ownerToken)).status).toBe(404)
  })

  it("leaves: the entry is removed, gone for the client, kept for staff", async () => {
    const created = await request("POST", "/api/v2/front/waitlist_entries", clientToken, {
      waitlist_entry: { event_occurrence_id: occ.later }
    })
    const id = created.json.waitlist_entries[0].id
    expect((await request("DELETE", `/api/v2/front/waitlist_entries/${id}`, otherToken)).status).toBe(404)
    const deleted = await request("DELETE", `/api/v2/front/waitlist_entries/${id}`, clientToken)
    expect(deleted.status).toBe(204)
    expect((await request("GET", `/api/v2/front/waitlist_entries/${id}`, clientToken)).status).toBe(404)
    expect((await request("DELETE", `/api/v2/front/waitlist_entries/${id}`, clientToken)).status).toBe(404)
    const list = await request("GET", `/api/v2/front/people/${client.personId}/waitlist_entries`, clientToken)
    expect(list.json.waitlist_entries.map((e: any) => e.id)).not.toContain(id)
    expect((await request("GET", `/api/v2/desk/waitlist_entries/${id}`, ownerToken)).json.waitlist_entries[0].state).toBe("removed")
    // Removed, the person may join again.
    const rejoin = await request("POST", "/api/v2/front/waitlist_entries", clientToken, { waitlist_entry: { event_occurrence_id: occ.later } })
    expect(rejoin.status).toBe(201)
    await request("DELETE", `/api/v2/desk/waitlist_entries/${rejoin.json.waitlist_entries[0].id}`, ownerToken)
  })
})

describe("lists", () => {
  it("orders by the occurrence's start, paginates and filters", async () => {
    // The client waits on `full` (Nov 2) and `expiry` (Nov 8); three entries on `later` (Nov 3) were removed.
    await join(client.personId, occ.expiry!)
    const first = await request("GET", `/api/v2/desk/people/${client.personId}/waitlist_entries?per_page=4`, ownerToken)
    expect(first.status, first.text).toBe(200)
    expect(first.json.total_count).toBe(5)
    expect(first.json.waitlist_entries.map((e: any) => [e.event_occurrence_id, e.state])).toEqual([
      [occ.full, "waiting"],
      [occ.later, "removed"],
      [occ.later, "removed"],
      [occ.later, "removed"]
    ])
    expect(first.json.prev).toBeUndefined()
    const next = new URL(first.json.next)
    expect(next.searchParams.get("page")).toBe("2")
    const second = await server.request("GET", next.pathname + next.search, { token: ownerToken })
    expect(second.json.waitlist_entries.map((e: any) => e.event_occurrence_id)).toEqual([occ.expiry])
    expect(second.json.prev).toBeDefined()
    expect(second.json.next).toBeUndefined()

    const front = await request("GET", `/api/v2/front/people/${client.personId}/waitlist_entries`, clientToken)
    expect(front.json.waitlist_entries.map((e: any) => e.event_occurrence_id)).toEqual([occ.full, occ.expiry])
    expect(front.json.total_count).toBe(2)

    const ranged = await request(
      "GET",
      `/api/v2/front/people/${client.personId}/waitlist_entries?from=2026-11-05T00:00:00-0800&to=2026-11-30T00:00:00-08:00`,
      clientToken
    )
    expect(ranged.json.waitlist_entries.map((e: any) => e.event_occurrence_id)).toEqual([occ.expiry])
    const byOccurrence = await request("GET", `/api/v2/front/people/${client.personId}/waitlist_entries?event_occurrence_id=${occ.full}`, clientToken)
    expect(byOccurrence.json.waitlist_entries.map((e: any) => e.event_occurrence_id)).toEqual([occ.full])

    const occurrence = await request("GET", `/api/v2/desk/event_occurrences/${occ.full}/waitlist_entries`, ownerToken)
    expect(occurrence.json.waitlist_entries.map((e: any) => e.person_id)).toEqual([client.personId, dependentId])
  })

  it("needs from and to together, in order", async () => {
    const fromOnly = await request("GET", `/api/v2/front/people/${client.personId}/waitlist_entries?from=2026-11-05T00:00:00Z`, clientToken)
    expect(fromOnly.status).toBe(400)
    expect(fromOnly.json.errors).toEqual(["to is required when from is given"])
    const toOnly = await request("GET", `/api/v2/desk/event_occurrences/${occ.full}/waitlist_entries?to=2026-11-05T00:00:00Z`, ownerToken)
    expect(toOnly.json.errors).toEqual(["from is required when to is given"])
    const backwards = await request("GET", `/api/v2/desk/people/${client.personId}/waitlist_entries?from=2026-11-05T00:00:00Z&to=2026-11-01T00:00:00Z`, ownerToken)
    expect(backwards.status).toBe(400)
    expect((await request("GET", `/api/v2/desk/people/${client.personId}/waitlist_entries?from=yesterday&to=today`, ownerToken)).status).toBe(400)
  })

  it("is not found for unknown people and occurrences, or another business's", async () => {
    expect((await request("GET", `/api/v2/desk/people/999999/waitlist_entries`, ownerToken)).status).toBe(404)
    expect((await request("GET", `/api/v2/desk/event_occurrences/${foreignOccurrence}/waitlist_entries`, ownerToken)).status).toBe(404)
    expect((await request("GET", `/api/v2/desk/people/${client.personId}/waitlist_entries`)).status).toBe(401)
  })
})

describe("staff state events", () => {
  const put = (id: number, stateEvent: unknown) =>
    request("PUT", `/api/v2/desk/waitlist_entries/${id}`, ownerToken, { waitlist_entry: { id, state_event: stateEvent } })

  it("enrolls and puts back to waiting from any state but removed", async () => {
    const id = await join(other.personId, occ.transitions!)
    const enrolled = await put(id, "enroll")
    expect(enrolled.status, enrolled.text).toBe(200)
    expect(enrolled.json.waitlist_entries[0].state).toBe("enrolled")
    // Only the entry changes, not the roster.
    expect((await server.pool.query(`select 1 from visits where event_occurrence_id = $1 and person_id = $2`, [occ.transitions, other.personId])).rowCount).toBe(0)
    expect((await put(id, "enroll")).json.waitlist_entries[0].state).toBe("enrolled")
    expect((await put(id, "wait")).json.waitlist_entries[0].state).toBe("waiting")
    await server.pool.query(`update waitlist_entries set state = 'expired' where id = $1`, [id])
    expect((await put(id, "wait")).json.waitlist_entries[0].state).toBe("waiting")
    await server.pool.query(`update waitlist_entries set state = 'pending' where id = $1`, [id])
    expect((await put(id, "wait")).json.waitlist_entries[0].state).toBe("waiting")
    await server.pool.query(`update waitlist_entries set state = 'expired' where id = $1`, [id])
    expect((await put(id, "enroll")).json.waitlist_entries[0].state).toBe("enrolled")
  })

  it("refuses to enroll a removed entry, and to wait twice", async () => {
    const id = await join(dependentId, occ.transitions!)
    expect((await request("DELETE", `/api/v2/desk/waitlist_entries/${id}`, ownerToken)).status).toBe(204)
    const refused = await put(id, "enroll")
    expect(refused.status).toBe(422)
    expect(refused.json.errors).toEqual(["A waitlist entry in state removed cannot be enrolled"])
    expect(await entryState(id)).toBe("removed")
    // A newer live entry blocks putting the removed one back.
    const newer = await join(dependentId, occ.transitions!)
    const twice = await put(id, "wait")
    expect(twice.status).toBe(422)
    expect(twice.json.errors).toEqual(["Already on the waitlist"])
    await request("DELETE", `/api/v2/desk/waitlist_entries/${newer}`, ownerToken)
    expect((await put(id, "wait")).json.waitlist_entries[0].state).toBe("waiting")
  })

  it("rejects unknown events, unknown ids and client tokens", async () => {
    const id = await join(fillers[2]!, occ.transitions!)
    const unknown = await put(id, "remove")
    expect(unknown.status).toBe(400)
    expect(unknown.json.errors.join(" ")).toContain("state_event")
    expect((await put(999999, "wait")).status).toBe(404)
    const asClient = await request("PUT", `/api/v2/desk/waitlist_entries/${id}`, clientToken, { waitlist_entry: { state_event: "enroll" } })
    expect(asClient.status).toBe(403)
    expect(await entryState(id)).toBe("waiting")
  })
})

describe("enrollment from the waitlist", () => {
  it("a visit created for a waitlisted person enrolls their entry", async () => {
    const id = await join(fillers[2]!, occ.skip!)
    await server.runtime.runPromise(
      admitVisits(businessId, [{ occurrenceId: occ.skip!, personId: fillers[2]!, state: "registered" }], { enforceCapacity: false })
    )
    expect(await entryState(id)).toBe("enrolled")
  })

  it("gives a freed place to the oldest waiting person, and no place that does not exist", async () => {
    const [a, b, c] = [other.personId, dependentId, client.personId]
    const ids = { a: await join(a, occ.offer!), b: await join(b, occ.offer!), c: await join(c, occ.offer!) }
    // Nothing free: the job changes nothing.
    expect(await server.runtime.runPromise(offerWaitlistPlaces(businessId, occ.offer!))).toEqual({ enrolled: 0, expired: 0 })
    expect(await entryState(ids.a)).toBe("waiting")

    await server.pool.query(`update visits set state = 'late_canceled' where event_occurrence_id = $1 and person_id = $2`, [occ.offer, fillers[0]])
    await server.runtime.runPromise(placesFreed(businessId, [occ.offer!]))
    expect(await pendingJobs(server.pool, "offer_waitlist_places")).toContainEqual({ business_id: businessId, event_occurrence_id: occ.offer })
    await server.runtime.runPromise(offerWaitlistPlacesTask({ business_id: businessId, event_occurrence_id: occ.offer }))
    expect([await entryState(ids.a), await entryState(ids.b), await entryState(ids.c)]).toEqual(["enrolled", "waiting", "waiting"])
    const visits = await server.pool.query(
      `select person_id, state from visits where event_occurrence_id = $1 and state in ('reserved', 'registered', 'completed') order by id`,
      [occ.offer]
    )
    expect(visits.rows.map((row) => Number(row.person_id))).toEqual([fillers[1], a])
    expect(visits.rows.map((row) => row.state)).toEqual(["registered", "registered"])
    const mails = (await pendingJobs(server.pool, "send_mail")) as Array<{ to: string; template: string; subject: string }>
    expect(mails.filter((mail) => mail.template === "waitlist_enrolled").map((mail) => mail.subject)).toEqual(["You have a place in Yoga"])

    // Run again: still full, nobody else gets in.
    expect(await server.runtime.runPromise(offerWaitlistPlaces(businessId, occ.offer!))).toEqual({ enrolled: 0, expired: 0 })
    expect(await entryState(ids.b)).toBe("waiting")
  })

  it("skips a waiting person who already has a visit", async () => {
    // skip: fillers 0 and 1 hold the places, filler 2 was admitted above (overbooked by staff).
    await server.pool.query(`delete from visits where event_occurrence_id = $1 and person_id = any($2)`, [occ.skip, [fillers[0], fillers[2]]])
    // Now one place is free: nobody may join (there is room), so queue two entries by hand.
    const rows = await server.pool.query(
      `insert into waitlist_entries (business_id, event_occurrence_id, person_id, state, created_at)
       values ($1, $2, $3, 'waiting', now() - interval '2 hours'), ($1, $2, $4, 'waiting', now() - interval '1 hour') returning id`,
      [businessId, occ.skip, fillers[1], other.personId]
    )
    const [alreadyThere, next] = rows.rows.map((row) => Number(row.id))
    const result = await server.runtime.runPromise(offerWaitlistPlaces(businessId, occ.skip!))
    expect(result).toEqual({ enrolled: 1, expired: 0 })
    expect(await entryState(alreadyThere!)).toBe("enrolled")
    expect(await entryState(next!)).toBe("enrolled")
    expect((await server.pool.query(`select 1 from visits where event_occurrence_id = $1 and person_id = $2`, [occ.skip, other.personId])).rowCount).toBe(1)
  })
})

describe("over the visit endpoints", () => {
  it("staff creating a visit for a waitlisted person enrolls the entry; deleting a visit offers the place", async () => {
    // `transitions` is full (fillers 0 and 1); filler 2 waits there already (staff state events above).
    const waiting = (await server.pool.query(
      `select id from waitlist_entries where event_occurrence_id = $1 and person_id = $2 and state = 'waiting'`,
      [occ.transitions, fillers[2]]
    )).rows.map((row) => Number(row.id))
    expect(waiting).toHaveLength(1)
    const created = await request("POST", "/api/v2/desk/visits", ownerToken, {
      visit: { person_id: fillers[2], event_occurrence_id: occ.transitions, notify_client: false }
    })
    expect(created.status, created.text).toBe(201)
    expect(await entryState(waiting[0]!)).toBe("enrolled")

    // Now the client's dependent waits (the removed entry put back earlier); a deleted visit frees a place.
    const kid = (await server.pool.query(
      `select id from waitlist_entries where event_occurrence_id = $1 and person_id = $2 and state = 'waiting'`,
      [occ.transitions, dependentId]
    )).rows.map((row) => Number(row.id))
    expect(kid).toHaveLength(1)
    const visitId = (await server.pool.query(`select id from visits where event_occurrence_id = $1 and person_id = $2`, [occ.transitions, fillers[0]])).rows[0].id
    expect((await request("DELETE", `/api/v2/desk/visits/${visitId}`, ownerToken)).status).toBe(204)
    expect(await pendingJobs(server.pool, "offer_waitlist_places")).toContainEqual({ business_id: businessId, event_occurrence_id: occ.transitions })
    // Still overbooked by the staff visit (3 holding for 2 places minus the deleted one): no place for the queue.
    expect(await server.runtime.runPromise(offerWaitlistPlaces(businessId, occ.transitions!))).toEqual({ enrolled: 0, expired: 0 })
    const another = (await server.pool.query(`select id from visits where event_occurrence_id = $1 and person_id = $2`, [occ.transitions, fillers[1]])).rows[0].id
    expect((await request("DELETE", `/api/v2/desk/visits/${another}`, ownerToken)).status).toBe(204)
    expect(await server.runtime.runPromise(offerWaitlistPlaces(businessId, occ.transitions!))).toEqual({ enrolled: 1, expired: 0 })
    expect(await entryState(kid[0]!)).toBe("enrolled")
    const roster = await request("GET", `/api/v2/desk/event_occurrences/${occ.transitions}/visits`, ownerToken)
    expect(roster.json.visits.map((v: any) => v.person_id).sort()).toEqual([fillers[2], dependentId].sort())
  })
})

describe("expiry", () => {
  it("expires waiting entries once the occurrence has started", async () => {
    const waitingFull = await join(other.personId, occ.expiry!)
    const waitingLater = await join(other.personId, occ.later!)
    clock.set("2026-11-08T18:30:00Z") // 10:30 in Los Angeles: the Nov 8 class has started
    try {
      expect(await server.runtime.runPromise(offerWaitlistPlaces(businessId, occ.expiry!))).toEqual({ enrolled: 0, expired: 2 })
      expect(await entryState(waitingFull)).toBe("expired")
      expect(await entryState(waitingLater)).toBe("waiting")
      // The sweep expires the rest of what has started (the Nov 2 class), nothing in the future.
      expect(await server.runtime.runPromise(expireStartedEntries())).toBeGreaterThan(0)
      const states = await server.pool.query(`select state from waitlist_entries where event_occurrence_id = $1`, [occ.full])
      expect(new Set(states.rows.map((row) => row.state))).toEqual(new Set(["expired"]))
      expect(await entryState(waitingLater)).toBe("expired")
    } finally {
      clock.set("2026-11-02T10:00:00Z")
    }
  })
})

// Last: it leaves a removed entry on `later`, which the lists above count.
describe("leaving twice at once", () => {
  it("leaves once when the request arrives ten times at once: one 204, the repeats 404 as after it", async () => {
    const created = await request("POST", "/api/v2/front/waitlist_entries", clientToken, { waitlist_entry: { event_occurrence_id: occ.later } })
    expect(created.status, created.text).toBe(201)
    const id = created.json.waitlist_entries[0].id
    const answers = await Promise.all(Array.from({ length: 10 }, () => request("DELETE", `/api/v2/front/waitlist_entries/${id}`, clientToken)))
    expect(answers.map((answer) => answer.status).sort()).toEqual([204, ...Array(9).fill(404)])
  })
})
