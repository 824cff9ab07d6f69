import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createHold, createPlan, createPlanProduct } from "../support/billing-factories.ts"
import { type BillingWorld, startBillingWorld } from "./punches-fixtures.ts"

/**
 * The automatic plan choice (src/billing/punches/choice.ts), observed through POST /desk/punches without
 * plan_id: which of a person's competing plans pays a visit. Each test gives a new person plans
 * that compete on one rule, and a visit on a new occurrence (written straight to the table, so
 * auto-pay does not run first).
 */
let w: BillingWorld
let serviceId: number

const choose = async (visitId: number) => {
  const response = await w.server.request("POST", "/api/v2/desk/punches", { token: w.ownerToken, body: { punch: { visit_id: visitId } } })
  return response.status === 201 ? (response.json.punches[0].plan_id as number) : response.status
}

const pack = async (personId: number, plan: Parameters<typeof createPlan>[4] = {}, product: Parameters<typeof createPlanProduct>[2] = {}) => {
  const { id } = await createPlanProduct(w.pool, w.business.id, { kind: "pack", count: 5, ...product })
  return (await createPlan(w.pool, w.business.id, id, [personId], { start_date: "2026-10-01", ...plan })).id
}

const visitOf = async (personId: number, occurrence: Parameters<BillingWorld["occurrence"]>[0] = { service: serviceId }) =>
  w.rawVisit(await w.occurrence(occurrence), personId)

beforeAll(async () => {
  w = await startBillingWorld()
  serviceId = await w.service()
}, 120_000)

afterAll(async () => {
  await w?.server.close()
})

describe("what a plan must cover", () => {
  it("location: a plan of another location never pays; one of the visit's location does", async () => {
    const personId = await w.person()
    const annexOnly = await pack(personId, { location_id: w.locations.annex, end_date: "2026-12-01" })
    const anywhere = await pack(personId, { end_date: "2027-06-01" })
    expect(await choose(await visitOf(personId, { service: serviceId, location: w.locations.main }))).toBe(anywhere)
    // At the annex the annex pack ends first, so it goes first.
    expect(await choose(await visitOf(personId, { service: serviceId, location: w.locations.annex }))).toBe(annexOnly)
    // A visit without a location: only plans without a location restriction.
    expect(await choose(await visitOf(personId, { service: serviceId, location: null }))).toBe(anywhere)
  })

  it("service: a product listing other services never pays; one listing the service, or none, does", async () => {
    const personId = await w.person()
    const otherService = await w.service()
    await pack(personId, { end_date: "2026-12-01" }, { service_ids: [otherService] })
    const listed = await pack(personId, { end_date: "2026-12-15" }, { service_ids: [otherService, serviceId] })
    const all = await pack(personId, { end_date: "2027-01-01" })
    expect(await choose(await visitOf(personId))).toBe(listed)
    expect(await choose(await visitOf(personId))).toBe(listed)
    await w.pool.query(`update plans set deactivated_at = now() where id = $1`, [listed])
    expect(await choose(await visitOf(personId))).toBe(all)
  })

  it("staff: a plan tied to a staff member pays only visits that staff member instructs", async () => {
    const personId = await w.person()
    const instructorOnly = await pack(personId, { staff_member_id: w.instructor.staffMemberId!, end_date: "2026-11-30" })
    expect(await choose(await visitOf(personId, { service: serviceId, staff: [w.owner.staffMemberId!] }))).toBe(422)
    expect(await choose(await visitOf(personId, { service: serviceId, staff: [w.owner.staffMemberId!, w.instructor.staffMemberId!] }))).toBe(
      instructorOnly
    )
    expect(await choose(await visitOf(personId, { service: serviceId, staff: [] }))).toBe(422)
  })

  it("dates: only plans current on the visit's local date; on hold then or used up, the next plan pays", async () => {
    const personId = await w.person()
    const date = "2026-11-18"
    const notYet = await pack(personId, { start_date: "2026-11-19", end_date: "2026-11-25" })
    const over = await pack(personId, { end_date: "2026-11-17" })
    const held = await pack(personId, { end_date: "2026-11-20" })
    await createHold(w.pool, w.business.id, held, "2026-11-18", "2026-11-18")
    const usedUp = await pack(personId, { end_date: "2026-11-21" }, { count: 1 })
    await w.pool.query(
      `insert into punches (business_id, visit_id, plan_id, person_id, visit_date) values ($1, $2, $3, $4, '2026-11-10')`,
      [w.business.id, await visitOf(personId), usedUp, personId]
    )
    const fallback = await pack(personId, { end_date: "2026-11-30" })
    expect(await choose(await visitOf(personId, { service: serviceId, date }))).toBe(fallback)
    // The day after the hold, the held plan ends first again.
    expect(await choose(await visitOf(personId, { service: serviceId, date: "2026-11-19" }))).toBe(held)
    expect([notYet, over]).not.toContain(fallback)
  })

  it("another person's plan does not pay", async () => {
    const personId = await w.person()
    const someoneElse = await w.person()
    await pack(someoneElse)
    expect(await choose(await visitOf(personId))).toBe(422)
  })
})

describe("the order among suitable plans", () => {
  it("the one ending first, then the fewest visits left, unlimited last, then the oldest", async () => {
    const personId = await w.person()
    const noEnd = await pack(personId, { end_date: null })
    const late = await pack(personId, { end_date: "2027-03-01" })
    const early = await pack(personId, { end_date: "2027-01-01" })
    expect(await choose(await visitOf(personId))).toBe(early)
    await w.pool.query(`update plans set deactivated_at = now() where id = any($1)`, [[early, late]])
    expect(await choose(await visitOf(personId))).toBe(noEnd)

    const other = await w.person()
    const unlimited = await pack(other, { end_date: "2027-01-01", count: null, type: "Prepaid" }, { kind: "prepaid", count: null })
    const many = await pack(other, { end_date: "2027-01-01", count: 10 })
    const few = await pack(other, { end_date: "2027-01-01", count: 3 })
    const fewToo = await pack(other, { end_date: "2027-01-01", count: 3 })
    expect(await choose(await visitOf(other))).toBe(few)
    // few now has 2 left, fewer than fewToo's 3.
    expect(await choose(await visitOf(other))).toBe(few)
    expect(await choose(await visitOf(other))).toBe(few)
    // few is used up: fewToo (3 left) before many (10), and the unlimited plan last.
    expect(await choose(await visitOf(other))).toBe(fewToo)
    await w.pool.query(`update plans set deactivated_at = now() where id = any($1)`, [[fewToo, many]])
    expect(await choose(await visitOf(other))).toBe(unlimited)
    expect(await w.exhaustedAt(few)).not.toBeNull()
  })

  it("equal plans: the oldest (lowest id) first", async () => {
    const personId = await w.person()
    const first = await pack(personId, { end_date: "2027-01-01" })
    await pack(personId, { end_date: "2027-01-01" })
    expect(await choose(await visitOf(personId))).toBe(first)
  })
})
