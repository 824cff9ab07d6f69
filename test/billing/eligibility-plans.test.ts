import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createHold, createPlan, createPlanProduct } from "../support/billing-factories.ts"
import { createToken } from "../support/factories.ts"
import { type BillingWorld, makeMember, startBillingWorld } from "./punches-fixtures.ts"

/**
 * Everything that asks about plans, answered from real plans: `plan_required` (Commerce.planHolders,
 * the automatic choice's coverage on the visit's date), the members-only and clients-only rules
 * and Members-only visibility (memberOn), and a client booking a service that requires a plan.
 */
let w: BillingWorld
let requirePlan: number

type Eligibility = { person_id: number; can_enroll: boolean; restrictions: Array<{ code: string }>; warnings: Array<{ code: string }> }
const codes = (records: Array<Eligibility>) =>
  Object.fromEntries(records.map((record) => [record.person_id, record.restrictions.map((item) => item.code)]))

const deskOccurrence = async (occurrenceId: number, personIds: ReadonlyArray<number>) => {
  const response = await w.server.request(
    "GET",
    `/api/v2/desk/event_occurrences/${occurrenceId}/enrollment_eligibilities?person_ids=${personIds.join(",")}`,
    { token: w.ownerToken }
  )
  expect(response.status, response.text).toBe(200)
  return codes(response.json.enrollment_eligibilities)
}

const pack = async (personId: number, plan: Parameters<typeof createPlan>[4] = {}, product: Parameters<typeof createPlanProduct>[2] = {}) => {
  const { id } = await createPlanProduct(w.pool, w.business.id, { kind: "pack", count: 5, ...product })
  return (await createPlan(w.pool, w.business.id, id, [personId], { start_date: "2026-10-01", ...plan })).id
}

beforeAll(async () => {
  w = await startBillingWorld()
  requirePlan = await w.service({ name: "Plan holders only", require_plan: true })
}, 120_000)

afterAll(async () => {
  await w?.server.close()
})

describe("plan_required", () => {
  it("is lifted only by a plan available on the visit's date that covers its service, location and staff", async () => {
    const date = "2026-11-12"
    const occurrenceId = await w.occurrence({ service: requirePlan, date, location: w.locations.main, staff: [w.owner.staffMemberId!] })
    const otherService = await w.service()
    const people = {
      none: await w.person("None"),
      suitable: await w.person("Suitable"),
      listed: await w.person("Listed"),
      annex: await w.person("Annex"),
      otherService: await w.person("Other service"),
      instructor: await w.person("Instructor"),
      usedUp: await w.person("Used up"),
      held: await w.person("Held"),
      later: await w.person("Later")
    }
    await pack(people.suitable)
    await pack(people.listed, {}, { service_ids: [requirePlan, otherService] })
    await pack(people.annex, { location_id: w.locations.annex })
    await pack(people.otherService, {}, { service_ids: [otherService] })
    await pack(people.instructor, { staff_member_id: w.instructor.staffMemberId! })
    const usedUp = await pack(people.usedUp, {}, { count: 1 })
    await w.pool.query(`insert into punches (business_id, visit_id, plan_id, person_id, visit_date) values ($1, $2, $3, $4, '2026-11-01')`, [
      w.business.id,
      await w.rawVisit(await w.occurrence({ service: otherService }), people.usedUp),
      usedUp,
      people.usedUp
    ])
    await createHold(w.pool, w.business.id, await pack(people.held), "2026-11-10", "2026-11-14")
    await pack(people.later, { start_date: "2026-11-13" })

    const result = await deskOccurrence(occurrenceId, Object.values(people))
    const required = (id: number) => result[id]!.includes("plan_required")
    expect(Object.fromEntries(Object.entries(people).map(([name, id]) => [name, required(id)]))).toEqual({
      none: true,
      suitable: false,
      listed: false,
      annex: true,
      otherService: true,
      instructor: true,
      usedUp: true,
      held: true,
      later: true
    })
  })

  it("services' eligibility reads the plan target from location_id, staff_member_ids and start_at", async () => {
    const personId = await w.person()
    await pack(personId, { location_id: w.locations.annex, staff_member_id: w.instructor.staffMemberId!, start_date: "2026-11-10" })
    const ask = async (query: string) => {
      const response = await w.server.request(
        "GET",
        `/api/v2/desk/services/${requirePlan}/enrollment_eligibilities?person_ids=${personId}${query}`,
        { token: w.ownerToken }
      )
      expect(response.status, response.text).toBe(200)
      return codes(response.json.enrollment_eligibilities)[personId]!.includes("plan_required")
    }
    const target = `&location_id=${w.locations.annex}&staff_member_ids=${w.instructor.staffMemberId}`
    expect(await ask(`${target}&start_at=2026-11-20T09:00:00`)).toBe(false)
    // Before the plan starts; at another location; without the plan's staff member; with nothing named.
    expect(await ask(`${target}&start_at=2026-11-05T09:00:00`)).toBe(true)
    expect(await ask(`&location_id=${w.locations.main}&staff_member_ids=${w.instructor.staffMemberId}&start_at=2026-11-20T09:00:00`)).toBe(true)
    expect(await ask(`&location_id=${w.locations.annex}&start_at=2026-11-20T09:00:00`)).toBe(true)
    expect(await ask("")).toBe(true)
  })

  it("a client holding a suitable plan books the service (the visit is paid by it); without one, 422 plan_required", async () => {
    const occurrenceId = await w.occurrence({ service: requirePlan })
    const post = () =>
      w.server.request("POST", "/api/v2/front/visits", { token: w.clientToken, body: { visit: { event_occurrence_id: String(occurrenceId) } } })
    const refused = await post()
    expect(refused.status).toBe(422)
    expect(refused.json).toEqual({ errors: ["No available visits"] })
    expect((await w.pool.query(`select count(*)::int as n from visits where event_occurrence_id = $1`, [occurrenceId])).rows[0].n).toBe(0)

    const planId = await pack(w.client.personId, {}, { name: "Client pack" })
    const booked = await post()
    expect(booked.status, booked.text).toBe(201)
    expect(booked.json.visits[0]).toMatchObject({ paid: true, paid_for_by: "Client pack" })
    expect(await w.punchCount(planId)).toBe(1)
    await w.pool.query(`update plans set deactivated_at = now() where id = $1`, [planId])
  })

  it("credit_card_required warns when a service asks and the person has no card on file, and not once they have one", async () => {
    const cards = await w.service({ require_cc: true })
    const personId = await w.person()
    await pack(personId)
    const occurrence = await w.occurrence({ service: cards })
    const warnings = async () => {
      const response = await w.server.request(
        "GET",
        `/api/v2/desk/event_occurrences/${occurrence}/enrollment_eligibilities?person_ids=${personId}`,
        { token: w.ownerToken }
      )
      return response.json.enrollment_eligibilities[0].warnings.map((item: { code: string }) => item.code)
    }
    expect(await warnings()).toEqual(["credit_card_required"])
    const business = await w.pool.query(`select business_id from people where id = $1`, [personId])
    await w.pool.query(
      `insert into forms_of_payment (business_id, person_id, type, autobill, gateway_token, card_type, last_four, expire_month, expire_year)
       values ($1, $2, 'creditcard', true, 'tok_on_file', 'visa', '4242', 12, 2030)`,
      [business.rows[0].business_id, personId]
    )
    expect(await warnings()).toEqual([])
  })
})

describe("membership from plans", () => {
  it("members_not_allowed and clients_not_allowed follow a current consider_member plan on the visit's date, not on hold", async () => {
    const membersBarred = await w.service({ members_can_book: false })
    const clientsBarred = await w.service({ clients_can_book: false })
    const member = await w.person("Member")
    const held = await w.person("Held member")
    const future = await w.person("Joins on the 15th")
    const packHolder = await w.person("Pack only")
    await makeMember(w.pool, w.business.id, member)
    const heldPlan = await makeMember(w.pool, w.business.id, held)
    await createHold(w.pool, w.business.id, heldPlan.id, "2026-11-01", null)
    await makeMember(w.pool, w.business.id, future, { startDate: "2026-11-15" })
    await pack(packHolder)
    const everyone = [member, held, future, packHolder]

    const early = await deskOccurrence(await w.occurrence({ service: clientsBarred, date: "2026-11-10" }), everyone)
    expect(early).toEqual({ [member]: [], [held]: ["clients_not_allowed"], [future]: ["clients_not_allowed"], [packHolder]: ["clients_not_allowed"] })
    const late = await deskOccurrence(await w.occurrence({ service: clientsBarred, date: "2026-11-20" }), everyone)
    expect(late[future]).toEqual([])
    const barred = await deskOccurrence(await w.occurrence({ service: membersBarred, date: "2026-11-20" }), everyone)
    expect(barred).toEqual({ [member]: ["members_not_allowed"], [held]: [], [future]: ["members_not_allowed"], [packHolder]: [] })
  })

  it("Members-only services are listed to a client who is a member today", async () => {
    const membersOnly = await w.service({ name: "Members Flow", visibility: "Members" })
    const listed = async (token: string) => {
      const response = await w.server.request("GET", "/api/v2/front/services", { token })
      expect(response.status, response.text).toBe(200)
      return response.json.services.some((service: { id: number }) => service.id === membersOnly)
    }
    const { createPerson } = await import("../support/factories.ts")
    const person = await createPerson(w.pool, w.business.id, { first_name: "Mia" })
    const token = await createToken(w.pool, person.accountId, w.business.id)
    expect(await listed(token)).toBe(false)
    const plan = await makeMember(w.pool, w.business.id, person.personId)
    expect(await listed(token)).toBe(true)
    // On hold from today (2026-10-25 in Los Angeles): not a member today.
    await createHold(w.pool, w.business.id, plan.id, "2026-10-25", null)
    expect(await listed(token)).toBe(false)
  })
})
