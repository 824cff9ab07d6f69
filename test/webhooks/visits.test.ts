import { Webhook } from "standardwebhooks"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createBusiness, createLocation, createPerson, createToken } from "../support/factories.ts"
import { type TestServer, startTestServer } from "../support/server.ts"
import { createService, occurrencesOf, scheduleEvent } from "../schedule/fixtures.ts"
import { type Receiver, type Received, startReceiver } from "./receiver.ts"

/**
 * visit.created and visit.updated end to end: the real service with its
 * graphile-worker runner on the wall clock, a real HTTP receiver on loopback, every delivery
 * verified with the `standardwebhooks` package, and each body compared with what GET
 * /api/v2/desk/visits/:id answers. Visits come from the three paths that create them: POST
 * visits, a booking completed at once, and a waitlist place offered when one is freed.
 */

let server: TestServer
let business: { id: number; subdomain: string }
let ownerToken: string
let location: number
let staffMemberId: number
let groupClass: number
let receiver: Receiver
let created: { id: number; secret: string }
let updated: { id: number; secret: string }

const subscribe = async (topic: string, path: string) => {
  const response = await server.request("POST", "/api/v3/webhooks", {
    token: ownerToken,
    headers: { "content-type": "application/vnd.api+json" },
    body: JSON.stringify({ data: { type: "webhooks", attributes: { target: receiver.url(path), topic } } })
  })
  expect(response.status, response.text).toBe(201)
  return { id: Number(response.json.data.id), secret: response.json.data.attributes.secret as string }
}

/** Verifies as a consumer does: throws unless signature and timestamp are good; returns the payload. */
const verify = (secret: string, request: Received) =>
  new Webhook(secret).verify(request.body, {
    "webhook-id": String(request.headers["webhook-id"]),
    "webhook-timestamp": String(request.headers["webhook-timestamp"]),
    "webhook-signature": String(request.headers["webhook-signature"])
  }) as any

/** The verified payloads on a path that concern one visit. */
const payloadsFor = (path: string, secret: string, visitId: number) =>
  receiver.received.filter((r) => r.path === path && r.json?.visits?.[0]?.id === visitId).map((r) => verify(secret, r))

const waitForVisit = (path: string, visitId: number, count = 1) =>
  receiver.waitFor(
    (all) => all.filter((r) => r.path === path && r.json?.visits?.[0]?.id === visitId).length >= count,
    `${count} request(s) on ${path} for visit ${visitId}`
  )

const deskVisit = async (id: number) => {
  const response = await server.request("GET", `/api/v2/desk/visits/${id}`, { token: ownerToken })
  expect(response.status, response.text).toBe(200)
  return response.json.visits as Array<Record<string, unknown>>
}

/** A one-off class `daysAhead` days from now (the wall clock: the worker delivers in real time). */
const occurrence = async (daysAhead: number, capacity: number | null = 10) => {
  const date = new Date(Date.now() + daysAhead * 86_400_000).toISOString().slice(0, 10)
  const eventId = await scheduleEvent(server, business.id, {
    service_id: groupClass,
    location_id: location,
    name: `Class in ${daysAhead} days`,
    frequency: "once",
    weekdays: [],
    start_date: date,
    start_time: "09:00",
    end_time: "10:00",
    capacity,
    staff_member_ids: [staffMemberId]
  })
  return (await occurrencesOf(server.pool, business.id, eventId))[0]!.id
}

const newPerson = async (first_name: string) => (await createPerson(server.pool, business.id, { first_name })).personId

beforeAll(async () => {
  receiver = await startReceiver()
  server = await startTestServer({ worker: true })
  business = await createBusiness(server.pool, { subdomain: "demo", name: "Demo Studio" })
  await server.pool.query("update businesses set webhooks_enabled = true where id = $1", [business.id])
  location = (await createLocation(server.pool, business.id, { name: "Main" })).id
  const owner = await createPerson(server.pool, business.id, { role: "owner" })
  staffMemberId = owner.staffMemberId!
  ownerToken = await createToken(server.pool, owner.accountId, business.id)
  groupClass = await createService(server.pool, business.id, { type: "GroupClass", name: "Yoga" })
  created = await subscribe("visit.created", "/visit-created")
  updated = await subscribe("visit.updated", "/visit-updated")
}, 120_000)

afterAll(async () => {
  await server?.close()
  await receiver?.close()
})

describe("visit.created and visit.updated", () => {
  it("POST then PUT (state_event complete): each delivered, signed, with the visit as GET shows it", async () => {
    const o = await occurrence(3)
    const personId = await newPerson("Vera")
    const post = await server.request("POST", "/api/v2/desk/visits", {
      token: ownerToken,
      body: { visit: { person_id: personId, event_occurrence_id: o } }
    })
    expect(post.status, post.text).toBe(201)
    const visitId = post.json.visits[0].id as number

    await waitForVisit("/visit-created", visitId)
    const [request] = receiver.received.filter((r) => r.path === "/visit-created" && r.json?.visits?.[0]?.id === visitId)
    expect(request!.headers["content-type"]).toBe("application/json")
    const createdPayload = verify(created.secret, request!)
    expect(createdPayload).toEqual({
      id: request!.headers["webhook-id"],
      topic: "visit.created",
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/),
      business_id: business.id,
      visits: post.json.visits
    })
    expect(createdPayload.visits[0]).toMatchObject({ person_id: personId, event_occurrence_id: o, state: "registered" })
    // Signed with the visit.created subscription's secret only.
    expect(() => verify(updated.secret, request!)).toThrow()

    const put = await server.request("PUT", `/api/v2/desk/visits/${visitId}`, {
      token: ownerToken,
      body: { visit: { state_event: "complete" } }
    })
    expect(put.status, put.text).toBe(200)
    await waitForVisit("/visit-updated", visitId)
    const [updatedPayload] = payloadsFor("/visit-updated", updated.secret, visitId)
    expect(updatedPayload).toEqual({
      id: expect.stringMatching(/^msg_[0-9a-f]{32}$/),
      topic: "visit.updated",
      created_at: expect.stringMatching(/Z$/),
      business_id: business.id,
      visits: await deskVisit(visitId)
    })
    expect(updatedPayload.visits[0]).toMatchObject({ state: "completed", completed_at: expect.stringMatching(/Z$/) })
    expect(updatedPayload.id).not.toBe(createdPayload.id)
    // The update is not announced as a creation.
    expect(payloadsFor("/visit-created", created.secret, visitId)).toHaveLength(1)
  })

  it("a booking completed at once announces each of its visits as created", async () => {
    const o = await occurrence(4)
    const [ann, ben] = [await newPerson("Ann"), await newPerson("Ben")]
    const booking = await server.request("POST", "/api/v2/desk/bookings", {
      token: ownerToken,
      body: {
        booking: {
          complete_booking: true,
          leases: [
            { event_occurrence_id: o, person: { id: ann } },
            { event_occurrence_id: o, person: { id: ben } }
          ]
        }
      }
    })
    expect(booking.status, booking.text).toBe(201)
    const { rows } = await server.pool.query(
      "select id::int, person_id::int from visits where business_id = $1 and event_occurrence_id = $2 order by id",
      [business.id, o]
    )
    expect(rows.map((row: { person_id: number }) => row.person_id)).toEqual([ann, ben])
    for (const row of rows as Array<{ id: number }>) {
      await waitForVisit("/visit-created", row.id)
      const payloads = payloadsFor("/visit-created", created.secret, row.id)
      expect(payloads).toHaveLength(1)
      expect(payloads[0].topic).toBe("visit.created")
      expect(payloads[0].visits).toEqual(await deskVisit(row.id))
      expect(payloads[0].visits[0].state).toBe("registered")
    }
  })

  it("a place freed to the waitlist is announced as a created visit", async () => {
    await server.pool.query("update services set waitlist_enabled = true where business_id = $1 and id = $2", [business.id, groupClass])
    const o = await occurrence(5, 1)
    const [first, waiting] = [await newPerson("First"), await newPerson("Waiting")]
    const taken = await server.request("POST", "/api/v2/desk/visits", {
      token: ownerToken,
      body: { visit: { person_id: first, event_occurrence_id: o } }
    })
    expect(taken.status, taken.text).toBe(201)
    const entry = await server.request("POST", "/api/v2/desk/waitlist_entries", {
      token: ownerToken,
      body: { waitlist_entry: { person_id: waiting, event_occurrence_id: o } }
    })
    expect(entry.status, entry.text).toBe(201)

    // Deleting the visit frees the place; the offer job (run by the worker) enrolls the waiting person.
    expect((await server.request("DELETE", `/api/v2/desk/visits/${taken.json.visits[0].id}`, { token: ownerToken })).status).toBe(204)
    await receiver.waitFor(
      (all) => all.some((r) => r.path === "/visit-created" && r.json?.visits?.[0]?.person_id === waiting),
      "the waitlisted person's visit.created"
    )
    const request = receiver.received.find((r) => r.path === "/visit-created" && r.json?.visits?.[0]?.person_id === waiting)!
    const payload = verify(created.secret, request)
    expect(payload.visits[0]).toMatchObject({ person_id: waiting, event_occurrence_id: o, state: "registered" })
    expect(payload.visits).toEqual(await deskVisit(payload.visits[0].id))
  })

  it("a refused visit (422) emits nothing", async () => {
    const before = Number((await server.pool.query("select count(*) from webhook_events where topic = 'visit.created'")).rows[0].count)
    const refused = await server.request("POST", "/api/v2/desk/visits", {
      token: ownerToken,
      body: { visit: { event_occurrence_id: await occurrence(6) } }
    })
    expect(refused.status).toBe(422)
    const after = Number((await server.pool.query("select count(*) from webhook_events where topic = 'visit.created'")).rows[0].count)
    expect(after).toBe(before)
  })
})
