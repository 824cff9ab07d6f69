import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeSettableClock } from "../support/clock.ts"
import { createBusiness, createLocation, createPerson, createToken } from "../support/factories.ts"
import { type TestServer, startTestServer } from "../support/server.ts"
import { createService, occurrencesOf, scheduleEvent } from "../schedule/fixtures.ts"

/**
 * The capacity rule under load: 50 parallel enrollments for 10 places. Whatever the
 * interleaving, exactly 10 succeed, the others hear "This event is full", and the database
 * holds exactly 10 visits.
 */
const clock = makeSettableClock("2026-10-25T18:00:00Z")
const PLACES = 10
const REQUESTS = 50

let server: TestServer
let business: { id: number }
let ownerToken: string
let staffMemberId: number
let location: number
let serviceId: number
let day = 2

const newOccurrence = async () => {
  const eventId = await scheduleEvent(server, business.id, {
    service_id: serviceId,
    location_id: location,
    name: "Popular",
    frequency: "once",
    weekdays: [],
    start_date: `2026-11-${String(day++).padStart(2, "0")}`,
    start_time: "09:00",
    end_time: "10:00",
    capacity: PLACES,
    staff_member_ids: [staffMemberId]
  })
  return (await occurrencesOf(server.pool, business.id, eventId))[0]!.id
}

const people = async (n: number) => {
  const made: Array<{ personId: number; token: string }> = []
  for (let i = 0; i < n; i++) {
    const person = await createPerson(server.pool, business.id, { email: `p${day}-${i}@example.test` })
    made.push({ personId: person.personId, token: await createToken(server.pool, person.accountId, business.id) })
  }
  return made
}

const outcome = async (responses: ReadonlyArray<{ status: number; json: any }>, occurrenceId: number) => {
  const created = responses.filter((r) => r.status === 201)
  const refused = responses.filter((r) => r.status === 422)
  expect(created).toHaveLength(PLACES)
  expect(refused).toHaveLength(REQUESTS - PLACES)
  for (const r of refused) expect(r.json.errors).toEqual(["This event is full"])
  const { rows } = await server.pool.query(`select count(*)::int as n from visits where business_id = $1 and event_occurrence_id = $2`, [
    business.id,
    occurrenceId
  ])
  expect(rows[0].n).toBe(PLACES)
  const ids = new Set(created.map((r) => r.json.visits[0].person_id))
  expect(ids.size).toBe(PLACES)
}

beforeAll(async () => {
  server = await startTestServer({ clock: clock.clock })
  business = await createBusiness(server.pool, { subdomain: "demo" })
  location = (await createLocation(server.pool, business.id)).id
  const owner = await createPerson(server.pool, business.id, { role: "owner" })
  staffMemberId = owner.staffMemberId!
  ownerToken = await createToken(server.pool, owner.accountId, business.id)
  serviceId = await createService(server.pool, business.id, { type: "GroupClass", name: "Popular" })
}, 120_000)

afterAll(async () => {
  await server?.close()
})

describe("50 parallel enrollments for 10 places", () => {
  it("client mode: each person with their own token", async () => {
    const occurrenceId = await newOccurrence()
    const clients = await people(REQUESTS)
    const responses = await Promise.all(
      clients.map((client) =>
        server.request("POST", "/api/v2/front/visits", { token: client.token, body: { visit: { event_occurrence_id: occurrenceId } } })
      )
    )
    await outcome(responses, occurrenceId)
  }, 120_000)

  it("staff mode with restrictions [\"full\"]", async () => {
    const occurrenceId = await newOccurrence()
    const clients = await people(REQUESTS)
    const responses = await Promise.all(
      clients.map((client) =>
        server.request("POST", "/api/v2/desk/visits", {
          token: ownerToken,
          body: { visit: { person_id: client.personId, event_occurrence_id: occurrenceId, restrictions: ["full"] } }
        })
      )
    )
    await outcome(responses, occurrenceId)
  }, 120_000)
})
