import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeSettableClock } from "../support/clock.ts"
import { createPerson } from "../support/factories.ts"
import { countStatements } from "../support/statements.ts"
import { NOW, type Studio, setUpStudio, studioCallers } from "../support/studio.ts"

/**
 * A booking in a business that grew since PostgreSQL last gathered statistics, as a payment's is in
 * growing-business.test.ts (why it matters is written there): the statistics hold the other
 * business's bookings, then this one gains GROWTH people, each with a completed booking, a lease and
 * a visit. Counted in buffers by PostgreSQL: the booking's statements find what they need by key
 * (6 buffers more after the growth, measured); the lease answer's payer as a join of the business's
 * people, as it once was, made it 62 more.
 */
const GROWTH = 3000

const clock = makeSettableClock(NOW)
let s: Studio
const { desk } = studioCallers(() => s)

beforeAll(async () => {
  s = await setUpStudio(clock, { capacity: 50 })
})
afterAll(async () => s?.server.close())

/** A new person booked into a yoga session (a different date each time), completed at once: the booking counted. */
let booked = 0
const bookingCounted = async () => {
  const person = (await createPerson(s.pool, s.business.id, {})).personId
  const date = `2026-11-${String(4 + (booked++ % 14)).padStart(2, "0")}`
  return countStatements(s.pool, async () => {
    const response = await desk("POST", "/bookings", {
      booking: { complete_booking: true, leases: [{ event_occurrence_id: s.yoga(date).id, person: { id: person } }] }
    })
    expect(response.status, response.text).toBe(201)
  })
}

/** GROWTH people in a business, each booked into the occurrence (booking, lease, visit), written by SQL (no statistics gathered). */
const grow = async (businessId: number, occurrenceId: number) => {
  await s.pool.query(
    `with o as (select service_id from event_occurrences where business_id = $1 and id = $2),
     people as (
       insert into people (business_id, first_name, last_name, email)
       select $1, 'Grown', 'Booker ' || g, 'grown' || g || '@example.test' from generate_series(1, $3::int) g returning id),
     bookings as (
       insert into bookings (business_id, state, person_id, expires_at, completed_at)
       select $1, 'completed', id, now(), now() from people returning id, person_id),
     leases as (
       insert into leases (business_id, booking_id, kind, state, person_id, event_occurrence_id, service_id)
       select $1, b.id, 'event_occurrence', 'registered', b.person_id, $2, o.service_id from bookings b, o returning id, booking_id, person_id)
     insert into visits (business_id, event_occurrence_id, person_id, state, booking_id, lease_id, registered_at)
     select $1, $2, person_id, 'registered', booking_id, id, now() from leases`,
    [businessId, occurrenceId, GROWTH]
  )
}

describe("a business that grew since its statistics", () => {
  it("books without walking its people, bookings or visits", async () => {
    await grow(s.elsewhere.id, s.foreignOccurrence)
    await s.pool.query("analyze")
    for (let i = 0; i < 8; i++) await bookingCounted()
    const before = await bookingCounted()
    await grow(s.business.id, s.yoga("2026-11-20").id)
    const after = await bookingCounted()
    expect(before.buffers).toBeGreaterThan(0)
    expect(after.buffers, `before:\n${before.statements.join("\n")}\nafter:\n${after.statements.join("\n")}`).toBeLessThan(before.buffers + 30)
  })
})
