import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { availableOn, currentOn, memberOn, onHoldOn, visitsLeft } from "../../src/shared/plan-rules.ts"
import { createHold, createPlan, createPlanProduct } from "../support/billing-factories.ts"
import { createBusiness, createPerson } from "../support/factories.ts"
import { startTestServer, type TestServer } from "../support/server.ts"

/** The shared plan rules (src/shared/plan-rules.ts) as SQL against a real database. */
let server: TestServer
let businessId: number
let alice: number
let bob: number

beforeAll(async () => {
  server = await startTestServer()
  const business = await createBusiness(server.pool)
  businessId = business.id
  alice = (await createPerson(server.pool, businessId)).personId
  bob = (await createPerson(server.pool, businessId)).personId
})
afterAll(() => server.close())

const rules = (planId: number, personId: number, date: string) =>
  server.runtime.runPromise(
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const rows = yield* sql<{ current: boolean; on_hold: boolean; left: number | null; available: boolean }>`
        select ${currentOn(sql, "p", date)} as current, ${onHoldOn(sql, "p", date)} as on_hold,
               ${visitsLeft(sql, "p", personId, date)} as left, ${availableOn(sql, "p", personId, date)} as available
        from plans p where p.business_id = ${businessId} and p.id = ${planId}`
      return rows[0]
    })
  )

const punch = async (planId: number, personId: number, visitDate: string) => {
  const occurrence = await server.pool.query(
    `with s as (insert into services (business_id, type, name, duration_in_minutes) values ($1, 'GroupClass', $2, 60) returning id),
          e as (insert into events (business_id, service_id, name, frequency, start_date, start_time, end_time)
                select $1, s.id, 'Class', 'once', $3::date, '09:00', '10:00' from s returning id, service_id)
     insert into event_occurrences (business_id, event_id, scheduled_date, service_id, name, time_zone, start_at, end_at)
     select $1, e.id, $3::date, e.service_id, 'Class', 'UTC', $3::date + time '09:00', $3::date + time '10:00' from e returning id`,
    [businessId, `Service ${Math.random()}`, visitDate]
  )
  const visit = await server.pool.query(
    `insert into visits (business_id, event_occurrence_id, person_id, state) values ($1, $2, $3, 'registered') returning id`,
    [businessId, occurrence.rows[0].id, personId]
  )
  await server.pool.query(
    `insert into punches (business_id, visit_id, plan_id, person_id, visit_date) values ($1, $2, $3, $4, $5)`,
    [businessId, visit.rows[0].id, planId, personId, visitDate]
  )
}

describe("plan rules", () => {
  it("a pack is available between its dates while visits are left, shared or per person", async () => {
    const product = await createPlanProduct(server.pool, businessId, { kind: "pack", count: 2 })
    const shared = await createPlan(server.pool, businessId, product.id, [alice], { start_date: "2026-01-01", end_date: "2026-03-31" })
    expect(await rules(shared.id, alice, "2025-12-31")).toMatchObject({ current: false, left: 2, available: false })
    expect(await rules(shared.id, alice, "2026-03-31")).toMatchObject({ current: true, on_hold: false, left: 2, available: true })
    await punch(shared.id, alice, "2026-01-05")
    await punch(shared.id, alice, "2026-01-06")
    expect(await rules(shared.id, alice, "2026-02-01")).toMatchObject({ left: 0, available: false })

    const perPerson = await createPlan(server.pool, businessId, product.id, [alice, bob], { start_date: "2026-01-01", end_date: null })
    await punch(perPerson.id, alice, "2026-01-05")
    await punch(perPerson.id, alice, "2026-01-07")
    expect(await rules(perPerson.id, alice, "2026-02-01")).toMatchObject({ left: 0, available: false })
    expect(await rules(perPerson.id, bob, "2026-02-01")).toMatchObject({ left: 2, available: true })
  })

  it("holds pause a plan on their dates; an open-ended hold pauses it from then on", async () => {
    const product = await createPlanProduct(server.pool, businessId, { kind: "membership", count: null })
    const plan = await createPlan(server.pool, businessId, product.id, [alice], { start_date: "2026-01-01" })
    await createHold(server.pool, businessId, plan.id, "2026-02-01", "2026-02-10")
    await createHold(server.pool, businessId, plan.id, "2026-04-01")
    expect(await rules(plan.id, alice, "2026-02-05")).toMatchObject({ on_hold: true, left: null, available: false })
    expect(await rules(plan.id, alice, "2026-02-11")).toMatchObject({ on_hold: false, available: true })
    expect(await rules(plan.id, alice, "2027-01-01")).toMatchObject({ on_hold: true, available: false })
  })

  it("a membership's limit counts only the punches of the date's period", async () => {
    const product = await createPlanProduct(server.pool, businessId, { kind: "membership", count: 1, limit_period: "month" })
    const plan = await createPlan(server.pool, businessId, product.id, [bob], { start_date: "2026-01-01" })
    await punch(plan.id, bob, "2026-01-20")
    expect(await rules(plan.id, bob, "2026-01-31")).toMatchObject({ left: 0, available: false })
    expect(await rules(plan.id, bob, "2026-02-01")).toMatchObject({ left: 1, available: true })
  })
})

describe("membership", () => {
  it("a current consider_member plan not on hold makes a member, whatever its visits left", async () => {
    const carol = (await createPerson(server.pool, businessId)).personId
    const member = (date: string) =>
      server.runtime.runPromise(
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const rows = yield* sql<{ member: boolean }>`select ${memberOn(sql, businessId, carol, date)} as member`
          return rows[0]?.member ?? false
        })
      )
    expect(await member("2026-01-15")).toBe(false)
    const pack = await createPlanProduct(server.pool, businessId, { kind: "pack", count: 1, consider_member: false })
    await createPlan(server.pool, businessId, pack.id, [carol], { start_date: "2026-01-01" })
    expect(await member("2026-01-15")).toBe(false)
    const product = await createPlanProduct(server.pool, businessId, { kind: "membership", count: 1, limit_period: "month" })
    const plan = await createPlan(server.pool, businessId, product.id, [carol], { start_date: "2026-01-01", end_date: "2026-06-30" })
    await punch(plan.id, carol, "2026-01-10")
    expect(await member("2026-01-15")).toBe(true)
    expect(await member("2026-07-01")).toBe(false)
    await createHold(server.pool, businessId, plan.id, "2026-03-01", "2026-03-31")
    expect(await member("2026-03-15")).toBe(false)
  })
})
