import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeSettableClock } from "../support/clock.ts"
import { createBusiness, createLocation, createPerson, createToken } from "../support/factories.ts"
import { type TestServer, startTestServer } from "../support/server.ts"
import { createService, occurrencesOf, scheduleEvent } from "../schedule/fixtures.ts"

/** Make-ups: reasons and generating one for a late-canceled visit (staff mode). */
const clock = makeSettableClock("2026-10-25T18:00:00Z")

let server: TestServer
let business: { id: number }
let elsewhere: { id: number }
let ownerToken: string
let clientToken: string
let staffMemberId: number
let serviceId: number
let occurrenceId: number
let reasons: { sick: number; travel: number; foreign: number }

const generate = (body: unknown, token = ownerToken) => server.request("POST", "/api/v2/desk/make_ups/generate", { token, body })

/** A visit in the given state for a new person, through the desk endpoint. */
const visitIn = async (state: string) => {
  const personId = (await createPerson(server.pool, business.id)).personId
  const response = await server.request("POST", "/api/v2/desk/visits", {
    token: ownerToken,
    body: { visit: { person_id: personId, event_occurrence_id: occurrenceId, state } }
  })
  expect(response.status, response.text).toBe(201)
  return { id: response.json.visits[0].id as number, personId }
}

beforeAll(async () => {
  server = await startTestServer({ clock: clock.clock })
  business = await createBusiness(server.pool, { subdomain: "demo" })
  elsewhere = await createBusiness(server.pool, { subdomain: "elsewhere" })
  const location = (await createLocation(server.pool, business.id)).id
  const owner = await createPerson(server.pool, business.id, { role: "owner" })
  staffMemberId = owner.staffMemberId!
  ownerToken = await createToken(server.pool, owner.accountId, business.id)
  clientToken = await createToken(server.pool, (await createPerson(server.pool, business.id)).accountId, business.id)
  serviceId = await createService(server.pool, business.id, { type: "GroupClass", name: "Yoga" })
  const eventId = await scheduleEvent(server, business.id, {
    service_id: serviceId,
    location_id: location,
    name: "Yoga",
    frequency: "once",
    weekdays: [],
    start_date: "2026-11-02",
    start_time: "09:00",
    end_time: "10:00",
    capacity: 100,
    staff_member_ids: [staffMemberId]
  })
  occurrenceId = (await occurrencesOf(server.pool, business.id, eventId))[0]!.id
  const reason = async (businessId: number, name: string, position: number) =>
    Number(
      (await server.pool.query(`insert into make_up_reasons (business_id, name, position) values ($1, $2, $3) returning id`, [businessId, name, position]))
        .rows[0].id
    )
  reasons = { travel: await reason(business.id, "Travel", 2), sick: await reason(business.id, "Sick", 1), foreign: await reason(elsewhere.id, "Theirs", 0) }
}, 120_000)

afterAll(async () => {
  await server?.close()
})

describe("GET /desk/make_ups/reasons", () => {
  it("lists the business's reasons in their order, nobody else's", async () => {
    const response = await server.request("GET", "/api/v2/desk/make_ups/reasons", { token: ownerToken })
    expect(response.status).toBe(200)
    expect(response.json).toEqual({ make_up_reasons: [{ id: reasons.sick, name: "Sick" }, { id: reasons.travel, name: "Travel" }] })
  })

  it("is staff only", async () => {
    expect((await server.request("GET", "/api/v2/desk/make_ups/reasons", { token: clientToken })).status).toBe(403)
    expect((await server.request("GET", "/api/v2/desk/make_ups/reasons")).status).toBe(401)
  })
})

describe("POST /desk/make_ups/generate", () => {
  it("creates one make-up for a late-canceled visit, with or without a reason", async () => {
    const visit = await visitIn("late_canceled")
    const response = await generate({ visit_id: visit.id, make_up: { make_up_reason_id: reasons.sick, free_form_reason: "  Flu  " } })
    expect(response.status, response.text).toBe(201)
    expect(response.json).toEqual({
      make_ups: [
        {
          id: expect.any(Number),
          visit_id: visit.id,
          person_id: visit.personId,
          service_id: serviceId,
          make_up_reason_id: reasons.sick,
          free_form_reason: "Flu",
          expires_on: null,
          created_at: "2026-10-25T18:00:00Z"
        }
      ]
    })
    const row = (await server.pool.query(`select created_by_staff_member_id from make_ups where id = $1`, [response.json.make_ups[0].id])).rows[0]
    expect(Number(row.created_by_staff_member_id)).toBe(staffMemberId)
    const second = await generate({ visit_id: visit.id })
    expect(second.status).toBe(422)
    expect(second.json.errors).toEqual([`A make-up was already generated for visit ${visit.id}`])

    const bare = await visitIn("late_canceled")
    const plain = await generate({ visit_id: bare.id })
    expect(plain.status).toBe(201)
    expect(plain.json.make_ups[0]).toMatchObject({ make_up_reason_id: null, free_form_reason: null })
  })

  it("takes a form body", async () => {
    const visit = await visitIn("late_canceled")
    const response = await server.request("POST", "/api/v2/desk/make_ups/generate", {
      token: ownerToken,
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: `visit_id=${visit.id}&make_up[make_up_reason_id]=${reasons.travel}`
    })
    expect(response.status, response.text).toBe(201)
    expect(response.json.make_ups[0].make_up_reason_id).toBe(reasons.travel)
  })

  it("refuses visits in any other state, no-shows included", async () => {
    for (const state of ["reserved", "registered", "completed", "noshowed"]) {
      const visit = await visitIn(state)
      const response = await generate({ visit_id: visit.id })
      expect(response.status, state).toBe(422)
      expect(response.json.errors).toEqual([`A make-up can only be generated for a late-canceled visit (this one is ${state})`])
    }
  })

  it("checks the make_up object: a reason is required when it is sent and must be the business's", async () => {
    const visit = await visitIn("late_canceled")
    expect((await generate({ visit_id: visit.id, make_up: { free_form_reason: "x" } })).json.errors).toEqual([
      "make_up.make_up_reason_id can't be blank"
    ])
    expect((await generate({ visit_id: visit.id, make_up: { make_up_reason_id: reasons.foreign } })).json.errors).toEqual([
      `make_up.make_up_reason_id ${reasons.foreign} does not exist`
    ])
    const long = await generate({ visit_id: visit.id, make_up: { make_up_reason_id: reasons.sick, free_form_reason: "a".repeat(1001) } })
    expect(long.status).toBe(422)
    expect(long.json.errors).toEqual(["make_up.free_form_reason is too long (maximum is 1000 characters)"])
    expect((await server.pool.query(`select 1 from make_ups where visit_id = $1`, [visit.id])).rowCount).toBe(0)
  })

  it("needs visit_id (422), an integer (400), of this business (404)", async () => {
    const missing = await generate({})
    expect(missing.status).toBe(422)
    expect(missing.json.errors).toEqual(["visit_id can't be blank"])
    const wrong = await generate({ visit_id: "abc" })
    expect(wrong.status).toBe(400)
    expect(wrong.json.errors).toEqual(["visit_id must be an integer"])
    expect((await generate({ visit_id: 99999999 })).json).toEqual({ errors: ["Visit 99999999 not found"] })
    const foreignOccurrence = await server.pool.query(
      `insert into event_occurrences (business_id, service_id, name, start_at, end_at, time_zone, state)
       values ($1, $2, 'Theirs', now(), now() + interval '1 hour', 'UTC', 'active') returning id`,
      [elsewhere.id, await createService(server.pool, elsewhere.id, { type: "GroupClass", name: "Theirs" })]
    )
    const foreignPerson = (await createPerson(server.pool, elsewhere.id)).personId
    const foreignVisit = await server.pool.query(
      `insert into visits (business_id, event_occurrence_id, person_id, state) values ($1, $2, $3, 'late_canceled') returning id`,
      [elsewhere.id, foreignOccurrence.rows[0].id, foreignPerson]
    )
    expect((await generate({ visit_id: Number(foreignVisit.rows[0].id) })).status).toBe(404)
    expect((await generate({ visit_id: Number(foreignVisit.rows[0].id) }, clientToken)).status).toBe(403)
  })
})
