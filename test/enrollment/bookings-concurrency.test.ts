import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeSettableClock } from "../support/clock.ts"
import { createPerson, createToken } from "../support/factories.ts"
import { type Studio, capacityRemaining, setUpStudio, visitStates } from "../support/studio.ts"

/**
 * The capacity rule under load: parallel bookings never oversell an occurrence, and two
 * leases for one staff member's slot never both succeed. No timing is asserted.
 */
const clock = makeSettableClock("2026-11-02T16:00:00Z")
let studio: Studio

beforeAll(async () => {
  studio = await setUpStudio(clock, { capacity: 10 })
})
afterAll(async () => studio?.server.close())

describe("parallel POST /api/v2/front/bookings on one occurrence", () => {
  it("50 people for 10 places: exactly 10 bookings succeed and the occurrence holds exactly 10 registered visits", { timeout: 120_000 }, async () => {
    const occurrence = studio.yoga("2026-11-04").id
    const clients = []
    for (let i = 0; i < 50; i++) {
      const person = await createPerson(studio.pool, studio.business.id, { first_name: `P${i}`, last_name: "Parallel" })
      clients.push({ personId: person.personId, token: await createToken(studio.pool, person.accountId, studio.business.id) })
    }
    const responses = await Promise.all(
      clients.map((client) =>
        studio.server.request("POST", "/api/v2/front/bookings", {
          token: client.token,
          body: { booking: { complete_booking: true, leases: [{ event_occurrence_id: occurrence, person: { id: client.personId } }] } }
        })
      )
    )
    const statuses = responses.map((response) => response.status)
    expect(statuses.filter((status) => status === 201)).toHaveLength(10)
    expect(statuses.filter((status) => status === 422)).toHaveLength(40)
    for (const refused of responses.filter((response) => response.status === 422)) {
      expect(refused.json).toEqual({ errors: ["This event is full"] })
    }
    for (const booked of responses.filter((response) => response.status === 201)) {
      expect(booked.json.bookings[0].state).toBe("completed")
      expect(booked.json.bookings[0].leases[0].state).toBe("registered")
    }
    expect(await visitStates(studio.server, occurrence)).toEqual(Array(10).fill("registered"))
    expect(await capacityRemaining(studio, occurrence)).toBe(0)
    // The refused bookings left nothing behind.
    const { rows } = await studio.pool.query(`select count(*)::int as n from bookings where business_id = $1`, [studio.business.id])
    expect(rows[0].n).toBe(10)
  })
})

describe("parallel appointment leases for one staff member's slot", () => {
  it("exactly one of 12 succeeds; the others are told the time is not available", async () => {
    const people = []
    for (let i = 0; i < 12; i++) people.push((await createPerson(studio.pool, studio.business.id, { first_name: `A${i}` })).personId)
    const responses = await Promise.all(
      people.map((personId) =>
        studio.server.request("POST", "/api/v2/desk/bookings", {
          token: studio.owner.token,
          body: {
            booking: {
              leases: [
                {
                  service_id: studio.services.private,
                  staff_member_id: studio.ines.staffMemberId,
                  location_id: studio.main,
                  start_at: "2026-11-05T19:00:00Z",
                  person: { id: personId }
                }
              ]
            }
          }
        })
      )
    )
    const statuses = responses.map((response) => response.status)
    expect(statuses.filter((status) => status === 201)).toHaveLength(1)
    expect(statuses.filter((status) => status === 422)).toHaveLength(11)
    for (const refused of responses.filter((response) => response.status === 422)) {
      expect(refused.json.errors).toEqual(["leases[0].start_at: the appointment time 2026-11-05T19:00:00Z is not available"])
    }
    const { rows } = await studio.pool.query(
      `select state from event_occurrences where business_id = $1 and service_id = $2 and start_at = '2026-11-05T19:00:00Z'`,
      [studio.business.id, studio.services.private]
    )
    expect(rows.map((row: { state: string }) => row.state)).toEqual(["reserved"])
  })
})
