import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createPlan, createPlanProduct } from "../support/billing-factories.ts"
import { makeSettableClock } from "../support/clock.ts"
import { createPerson } from "../support/factories.ts"
import { ok } from "../support/http.ts"
import { countStatements } from "../support/statements.ts"
import { NOW, type Studio, setUpStudio, studioCallers } from "../support/studio.ts"

/**
 * Enrollment's writes in a business that grew since PostgreSQL last gathered statistics, as a
 * payment is in growing-business-billing.test.ts (why it matters is written there). Here the
 * statistics are taken when this business has a few rows of each kind beside another business's
 * thousands; then it gains GROWTH people, each holding a pack and booked into one occurrence
 * (booking, lease, visit). Each write is counted in buffers by PostgreSQL before and after.
 * Measured after the growth: a booking 117 buffers against 115 before, a visit 82 against 83, a
 * state event 39 and 39, a punch 84 against 82; with the lease answer's payer written as a join of
 * the business's people, as it once was, the booking took 189. Since a write's statements are planned
 * generically (2026-11-30): a booking 104 against 103, a visit 77 against 75, a state event 37 and 37,
 * a punch 76 against 75; the punch's used-up refresh, joined to its own plans, had read 93 against 50. (A business with no rows at all
 * when the statistics were taken is the billing test's case: there a visit's read by key goes
 * through another index of the business's visits too, the residual written down in that file.)
 */
const GROWTH = 3000
const BOUND = 30

const clock = makeSettableClock(NOW)
let s: Studio
let pack = 0
const { desk } = studioCallers(() => s)

beforeAll(async () => {
  s = await setUpStudio(clock, { capacity: 50 })
  pack = (await createPlanProduct(s.pool, s.business.id, { kind: "pack", count: 10, price_cents: 12000 })).id
})
afterAll(async () => s?.server.close())

const person = async () => (await createPerson(s.pool, s.business.id, {})).personId
// A different yoga session each time (2026-11-04 … 2026-11-17), so no one is booked twice.
let sessions = 0
const session = () => s.yoga(`2026-11-${String(4 + (sessions++ % 14)).padStart(2, "0")}`).id

/** The writes, each prepared (a new person, a visit to change) and then counted alone. */
const writes = {
  booking: async () => {
    const [who, occurrence] = [await person(), session()]
    return countStatements(s.pool, async () => {
      ok(await desk("POST", "/bookings", { booking: { complete_booking: true, leases: [{ event_occurrence_id: occurrence, person: { id: who } }] } }), 201)
    })
  },
  visit: async () => {
    const [who, occurrence] = [await person(), session()]
    return countStatements(s.pool, async () => {
      ok(await desk("POST", "/visits", { visit: { person_id: who, event_occurrence_id: occurrence } }), 201)
    })
  },
  stateEvent: async () => {
    const visit = ok(await desk("POST", "/visits", { visit: { person_id: await person(), event_occurrence_id: session() } }), 201).json.visits[0].id
    return countStatements(s.pool, async () => {
      ok(await desk("PUT", `/visits/${visit}`, { visit: { state_event: "noshow" } }), 200)
    })
  },
  punch: async () => {
    const holder = await person()
    const plan = (await createPlan(s.pool, s.business.id, pack, [holder], { type: "Pack", count: 10, start_date: "2026-11-01" })).id
    const visit = ok(await desk("POST", "/visits", { visit: { person_id: holder, event_occurrence_id: session(), state: "reserved" } }), 201).json.visits[0].id
    return countStatements(s.pool, async () => {
      ok(await desk("POST", "/punches", { punch: { visit_id: visit, plan_id: plan } }), 201)
    })
  }
}
type Counted = Awaited<ReturnType<typeof writes.booking>>

/** GROWTH people in a business, each holding a pack and booked into the occurrence (booking, lease, visit), written by SQL. */
const grow = async (businessId: number, occurrenceId: number, packId: number) => {
  await s.pool.query(
    `with o as (select service_id from event_occurrences where business_id = $1 and id = $2),
     people as (
       insert into people (business_id, first_name, last_name, email)
       select $1, 'Grown', 'Booker ' || g, 'grown' || g || '@example.test' from generate_series(1, $3::int) g returning id),
     plans as (
       insert into plans (business_id, plan_product_id, type, name, price_cents, count, visits_shared, start_date)
       select $1, $4, 'Pack', 'Pack ' || id, 12000, 10, true, '2026-11-01' from people returning id, name),
     holders as (
       insert into plan_people (business_id, plan_id, person_id, is_primary)
       select $1, plans.id, people.id, true from plans join people on plans.name = 'Pack ' || people.id),
     bookings as (
       insert into bookings (business_id, state, person_id, expires_at, completed_at)
       select $1, 'completed', id, now(), now() from people returning id, person_id),
     leases as (
       insert into leases (business_id, booking_id, kind, state, person_id, event_occurrence_id, service_id)
       select $1, b.id, 'event_occurrence', 'registered', b.person_id, $2, o.service_id from bookings b, o returning id, booking_id, person_id)
     insert into visits (business_id, event_occurrence_id, person_id, state, booking_id, lease_id, registered_at)
     select $1, $2, person_id, 'registered', booking_id, id, now() from leases`,
    [businessId, occurrenceId, GROWTH, packId]
  )
}

describe("a business that grew since its statistics", () => {
  it("books, adds and changes visits and punches without walking its rows", async () => {
    const foreignPack = (await createPlanProduct(s.pool, s.elsewhere.id, { kind: "pack", count: 10, price_cents: 12000 })).id
    await grow(s.elsewhere.id, s.foreignOccurrence, foreignPack)
    const names = Object.keys(writes) as Array<keyof typeof writes>
    // Each write a few times (the caches warm), then statistics: the tables hold the other business's rows and a few of this one's.
    for (let i = 0; i < 6; i++) for (const name of names) await writes[name]()
    await s.pool.query("analyze")
    for (const name of names) await writes[name]()
    const before = new Map<string, Counted>()
    for (const name of names) before.set(name, await writes[name]())
    await grow(s.business.id, s.yoga("2026-11-20").id, pack)
    for (const name of names) {
      const [was, now] = [before.get(name)!, await writes[name]()]
      expect(was.buffers, name).toBeGreaterThan(0)
      expect(now.buffers, `${name} before:\n${was.statements.join("\n")}\nafter:\n${now.statements.join("\n")}`).toBeLessThan(was.buffers + BOUND)
    }
  })
})
