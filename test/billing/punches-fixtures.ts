import { makeSettableClock } from "../support/clock.ts"
import { createApplication, createBusiness, createLocation, createPerson, createToken } from "../support/factories.ts"
import { type TestServer, startTestServer } from "../support/server.ts"
import { createService, occurrencesOf, scheduleEvent } from "../schedule/fixtures.ts"

/**
 * The surroundings of the punches and eligibility tests: a Los Angeles business whose clock
 * stands at 2026-10-25 11:00 local (18:00Z), two locations, two staff members (the owner and an
 * instructor), a client with a token, and a business elsewhere. Occurrences are made per test,
 * each on its own day of November 2026 unless a date is given.
 */
export const NOW = "2026-10-25T18:00:00Z"

export const startBillingWorld = async () => {
  const clock = makeSettableClock(NOW)
  const server: TestServer = await startTestServer({ clock: clock.clock })
  const pool = server.pool
  await createApplication(pool, "test-app")
  const business = await createBusiness(pool, { subdomain: "demo", name: "Demo Studio", time_zone: "America/Los_Angeles" })
  const elsewhere = await createBusiness(pool, { subdomain: "elsewhere" })
  const main = (await createLocation(pool, business.id, { name: "Main" })).id
  const annex = (await createLocation(pool, business.id, { name: "Annex" })).id
  const owner = await createPerson(pool, business.id, { role: "owner", email: "owner@example.test" })
  const instructor = await createPerson(pool, business.id, { role: "standard", email: "instructor@example.test" })
  const ownerToken = await createToken(pool, owner.accountId, business.id)
  const instructorToken = await createToken(pool, instructor.accountId, business.id)
  const client = await createPerson(pool, business.id, { first_name: "Pat", email: "pat@example.test" })
  const clientToken = await createToken(pool, client.accountId, business.id)
  const foreignOwner = await createPerson(pool, elsewhere.id, { role: "owner", email: "boss@elsewhere.test" })
  const foreignToken = await createToken(pool, foreignOwner.accountId, elsewhere.id)

  let day = 0
  /** A one-off class (own day in November 2026 unless `date`), 09:00-10:00 local. */
  const occurrence = async (options: {
    service: number
    location?: number | null
    staff?: ReadonlyArray<number>
    date?: string
    capacity?: number | null
    businessId?: number
  }) => {
    const businessId = options.businessId ?? business.id
    const date = options.date ?? `2026-11-${String(2 + (day++ % 27)).padStart(2, "0")}`
    const eventId = await scheduleEvent(server, businessId, {
      service_id: options.service,
      location_id: options.location === undefined ? (businessId === business.id ? main : null) : options.location,
      name: `Class ${day}`,
      frequency: "once",
      weekdays: [],
      start_date: date,
      start_time: "09:00",
      end_time: "10:00",
      capacity: options.capacity === undefined ? 30 : options.capacity,
      staff_member_ids: [...(options.staff ?? (businessId === business.id ? [owner.staffMemberId!] : []))]
    })
    return (await occurrencesOf(pool, businessId, eventId))[0]!.id
  }

  const person = async (first_name = "Sam") => (await createPerson(pool, business.id, { first_name })).personId

  /** A visit written straight to the table (no auto-pay): for tests of explicit punches. */
  const rawVisit = async (occurrenceId: number, personId: number | null, state = "registered", businessId = business.id) => {
    const { rows } = await pool.query(
      `insert into visits (business_id, event_occurrence_id, person_id, state, registered_at)
       values ($1, $2, $3, $4, case when $4 = 'reserved' then null else now() end) returning id`,
      [businessId, occurrenceId, personId, state]
    )
    return Number(rows[0].id)
  }

  const visit = async (id: number) => {
    const response = await server.request("GET", `/api/v2/desk/visits/${id}`, { token: ownerToken })
    return response.json.visits[0] as { id: number; paid: boolean; paid_for_by: string | null; punch_id: number | null; state: string }
  }

  const punchCount = async (planId: number) =>
    Number((await pool.query(`select count(*) from punches where business_id = $1 and plan_id = $2`, [business.id, planId])).rows[0].count)

  const exhaustedAt = async (planId: number) =>
    (await pool.query(`select exhausted_at from plans where business_id = $1 and id = $2`, [business.id, planId])).rows[0].exhausted_at as Date | null

  const service = (fields: Partial<Parameters<typeof createService>[2]> = {}) =>
    createService(pool, business.id, { type: "GroupClass", name: `Class ${Math.random().toString(36).slice(2, 7)}`, ...fields })

  return {
    clock,
    server,
    pool,
    business,
    elsewhere,
    locations: { main, annex },
    owner,
    instructor,
    ownerToken,
    instructorToken,
    client,
    clientToken,
    foreignToken,
    occurrence,
    person,
    rawVisit,
    visit,
    punchCount,
    exhaustedAt,
    service
  }
}
export type BillingWorld = Awaited<ReturnType<typeof startBillingWorld>>

/**
 * Makes the person a member the way the plan rules define it (src/shared/plan-rules.ts memberOn): a
 * current `consider_member` membership without an end, unlimited unless `count` is given
 * (`count: 0`: a member who holds no visit, so no plan lifts plan_required). Tests of other areas
 * use it where they set people.is_member before membership came from plans.
 */
export const makeMember = async (
  pool: import("pg").Pool,
  businessId: number,
  personId: number,
  options: { readonly startDate?: string; readonly count?: number } = {}
) => {
  const { createPlan, createPlanProduct } = await import("../support/billing-factories.ts")
  const product = await createPlanProduct(pool, businessId, { kind: "membership", name: "Membership", consider_member: true })
  return createPlan(pool, businessId, product.id, [personId], {
    start_date: options.startDate ?? "2020-01-01",
    end_date: null,
    ...(options.count === undefined ? {} : { count: options.count })
  })
}
