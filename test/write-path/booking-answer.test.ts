import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeSettableClock } from "../support/clock.ts"
import { NOW, type Studio, setUpStudio, studioCallers } from "../support/studio.ts"

/**
 * A booking is answered from what it wrote, not re-read: the answer must be exactly what a
 * read of the booking shows afterwards, for a completed booking and a hold, with a course's
 * several sessions, a person created by the booking (the name comes from the insert) and a
 * POST of one more lease.
 */
const clock = makeSettableClock(NOW)
let s: Studio
const { desk, front } = studioCallers(() => s)

beforeAll(async () => {
  s = await setUpStudio(clock, { capacity: 10 })
})
afterAll(async () => s?.server.close())

describe("a booking's answer", () => {
  it("completed at once: the answer is what GET shows, leases registered with their people's names and sessions", async () => {
    clock.set(NOW)
    const created = await desk("POST", "/bookings", {
      booking: {
        complete_booking: true,
        leases: [
          { event_occurrence_id: s.yoga("2026-11-06").id, person: { id: s.cleo.personId } },
          { event_id: s.events.course, person: { email: "new.student@example.com", first_name: "Nia", last_name: "Stone" } }
        ]
      }
    })
    expect(created.status, created.text).toBe(201)
    const booking = created.json.bookings[0]
    expect(booking.state).toBe("completed")
    expect(booking.leases.map((lease: { state: string }) => lease.state)).toEqual(["registered", "registered"])
    expect(booking.leases[1].person.name).toBe("Nia Stone")
    expect(booking.leases[1].event_occurrence_ids.length).toBeGreaterThan(1)
    const shown = await desk("GET", `/bookings/${booking.id}`)
    expect(shown.json.bookings[0]).toEqual(booking)
  })

  it("a hold, then one more lease: each answer is what GET shows", async () => {
    clock.set(NOW)
    const created = await front("POST", "/bookings", { booking: { leases: [{ event_occurrence_id: s.yoga("2026-11-09").id, person: { id: s.cleo.personId } }] } })
    expect(created.status, created.text).toBe(201)
    const booking = created.json.bookings[0]
    expect(booking.state).toBe("incomplete")
    expect((await front("GET", `/bookings/${booking.id}`)).json.bookings[0]).toEqual(booking)
    const added = await front("POST", `/bookings/${booking.id}/leases`, { lease: { event_occurrence_id: s.yoga("2026-11-10").id, person: { id: s.cleo.personId } } })
    expect(added.status, added.text).toBe(201)
    const lease = added.json.leases[0]
    expect(lease.person.name).not.toBe("")
    expect((await front("GET", `/bookings/${booking.id}/leases/${lease.id}`)).json.leases[0]).toEqual(lease)
  })
})
