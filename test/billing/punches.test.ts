import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createHold, createPlan, createPlanProduct } from "../support/billing-factories.ts"
import { createPerson } from "../support/factories.ts"
import { createService } from "../schedule/fixtures.ts"
import { type BillingWorld, startBillingWorld } from "./punches-fixtures.ts"

/**
 * POST/GET/DELETE /desk/punches over HTTP: the punch, the visit it pays, the plan it spends, every
 * refusal (nothing written), tenancy and mode, form bodies, and concurrent punches of one pack.
 * Visits are written straight to the table here so auto-pay does not pay them first.
 */
let w: BillingWorld
let serviceId: number

const post = (punch: unknown, token = w.ownerToken) => w.server.request("POST", "/api/v2/desk/punches", { token, body: { punch } })
const postForm = (form: string, token = w.ownerToken) =>
  w.server.request("POST", "/api/v2/desk/punches", {
    token,
    body: form,
    headers: { "content-type": "application/x-www-form-urlencoded" }
  })
const get = (id: number, token = w.ownerToken) => w.server.request("GET", `/api/v2/desk/punches/${id}`, { token })
const del = (id: number, token = w.ownerToken) => w.server.request("DELETE", `/api/v2/desk/punches/${id}`, { token })

/** A person holding a fresh pack of `count` visits, and a registered visit of theirs on a new occurrence. */
const packAndVisit = async (count = 5, plan: Parameters<typeof createPlan>[4] = {}, productFields: Parameters<typeof createPlanProduct>[2] = {}) => {
  const personId = await w.person()
  const product = await createPlanProduct(w.pool, w.business.id, { kind: "pack", count, name: "Ten-class pack", ...productFields })
  const { id: planId } = await createPlan(w.pool, w.business.id, product.id, [personId], { start_date: "2026-10-01", ...plan })
  const occurrenceId = await w.occurrence({ service: serviceId })
  const visitId = await w.rawVisit(occurrenceId, personId)
  return { personId, planId, visitId, occurrenceId, productId: product.id }
}

beforeAll(async () => {
  w = await startBillingWorld()
  serviceId = await w.service()
}, 120_000)

afterAll(async () => {
  await w?.server.close()
})

describe("POST /desk/punches", () => {
  it("pays the visit with the named plan: 201 with the punch, the visit paid and the punch dated by the occurrence's local day", async () => {
    const { planId, visitId, personId } = await packAndVisit()
    const response = await post({ visit_id: visitId, plan_id: planId })
    expect(response.status, response.text).toBe(201)
    const [punch] = response.json.punches
    expect(Object.keys(punch).sort()).toEqual(["created_at", "id", "person_id", "plan_id", "visit_id"])
    expect(punch).toMatchObject({ visit_id: visitId, plan_id: planId, person_id: personId, created_at: "2026-10-25T18:00:00Z" })
    expect(await w.visit(visitId)).toMatchObject({ paid: true, paid_for_by: "Ten-class pack", punch_id: punch.id })
    const { rows } = await w.pool.query(`select visit_date::text, created_by_staff_member_id from punches where id = $1`, [punch.id])
    expect(rows[0]).toEqual({ visit_date: expect.stringMatching(/^2026-11-\d\d$/), created_by_staff_member_id: String(w.owner.staffMemberId) })
    expect((await get(punch.id)).json).toEqual(response.json)
  })

  it("accepts a Rails form body with string values, as the booking integration sends it (the pack's id as plan_id)", async () => {
    const { planId, visitId } = await packAndVisit(1)
    const response = await postForm(`punch%5Bvisit_id%5D=${visitId}&punch%5Bplan_id%5D=${planId}`)
    expect(response.status, response.text).toBe(201)
    expect(response.json.punches[0]).toMatchObject({ visit_id: visitId, plan_id: planId })
  })

  it("chooses a suitable plan when plan_id is absent, and refuses when there is none", async () => {
    const { planId, visitId, occurrenceId } = await packAndVisit()
    const chosen = await post({ visit_id: String(visitId) })
    expect(chosen.status, chosen.text).toBe(201)
    expect(chosen.json.punches[0].plan_id).toBe(planId)

    const planless = await w.rawVisit(occurrenceId, await w.person())
    const refused = await post({ visit_id: planless, plan_id: null })
    expect(refused.status).toBe(422)
    expect(refused.json).toEqual({ errors: [`No plan of the visit's person can pay for visit ${planless}`] })
  })

  it("spends a named plan whatever its services, location and staff member (staff are unrestricted)", async () => {
    const otherService = await w.service()
    const { planId, visitId } = await packAndVisit(
      5,
      { location_id: w.locations.annex, staff_member_id: w.instructor.staffMemberId! },
      { service_ids: [otherService] }
    )
    const response = await post({ visit_id: visitId, plan_id: planId })
    expect(response.status, response.text).toBe(201)
  })

  it("answers the existing punch when the plan that paid the visit is named again; refuses another plan", async () => {
    const { planId, visitId, personId } = await packAndVisit()
    const first = await post({ visit_id: visitId, plan_id: planId })
    const again = await post({ visit_id: visitId, plan_id: planId })
    expect(again.status).toBe(201)
    expect(again.json.punches[0].id).toBe(first.json.punches[0].id)
    expect(await w.punchCount(planId)).toBe(1)

    const product = await createPlanProduct(w.pool, w.business.id, { kind: "pack", count: 5 })
    const { id: second } = await createPlan(w.pool, w.business.id, product.id, [personId], { start_date: "2026-10-01" })
    const refused = await post({ visit_id: visitId, plan_id: second })
    expect(refused.status).toBe(422)
    expect(refused.json).toEqual({ errors: [`Visit ${visitId} is already paid`] })
    const automatic = await post({ visit_id: visitId })
    expect(automatic.status).toBe(422)
    expect(await w.punchCount(second)).toBe(0)
  })

  it("refuses a visit without a person", async () => {
    const { planId, occurrenceId } = await packAndVisit()
    const placeholder = await w.rawVisit(occurrenceId, null, "reserved")
    const response = await post({ visit_id: placeholder, plan_id: planId })
    expect(response.status).toBe(422)
    expect(response.json).toEqual({ errors: [`Visit ${placeholder} has no person to pay for`] })
    expect(await w.punchCount(planId)).toBe(0)
  })

  it("refuses a plan the visit's person does not hold", async () => {
    const { planId } = await packAndVisit()
    const { visitId } = await packAndVisit()
    const response = await post({ visit_id: visitId, plan_id: planId })
    expect(response.status).toBe(422)
    expect(response.json.errors).toEqual([`Plan ${planId} is not held by the visit's person`])
    expect(await w.punchCount(planId)).toBe(0)
  })

  it("refuses a plan not current on the visit's local date: not started, ended or deactivated", async () => {
    const date = "2026-11-20"
    const personId = await w.person()
    const product = await createPlanProduct(w.pool, w.business.id, { kind: "pack", count: 5 })
    const later = await createPlan(w.pool, w.business.id, product.id, [personId], { start_date: "2026-11-21" })
    const ended = await createPlan(w.pool, w.business.id, product.id, [personId], { start_date: "2026-10-01", end_date: "2026-11-19" })
    const off = await createPlan(w.pool, w.business.id, product.id, [personId], { start_date: "2026-10-01", deactivated_at: new Date() })
    // 09:00 in Los Angeles on the 20th is the 20th locally (17:00Z): the end date itself still counts.
    const lastDay = await createPlan(w.pool, w.business.id, product.id, [personId], { start_date: "2026-10-01", end_date: date })
    const visitId = await w.rawVisit(await w.occurrence({ service: serviceId, date }), personId)
    for (const plan of [later, ended, off]) {
      const response = await post({ visit_id: visitId, plan_id: plan.id })
      expect(response.status).toBe(422)
      expect(response.json.errors).toEqual([`Plan ${plan.id} is not current on ${date}`])
    }
    expect((await post({ visit_id: visitId, plan_id: lastDay.id })).status).toBe(201)
  })

  it("refuses a plan on hold on the visit's date, and one with no visit left", async () => {
    const { planId, visitId, personId, occurrenceId } = await packAndVisit(1)
    await createHold(w.pool, w.business.id, planId, "2026-10-30", null)
    const held = await post({ visit_id: visitId, plan_id: planId })
    expect(held.status).toBe(422)
    expect(held.json.errors[0]).toMatch(new RegExp(`^Plan ${planId} is on hold on 2026-11-\\d\\d$`))
    await w.pool.query(`delete from plan_holds where plan_id = $1`, [planId])
    expect((await post({ visit_id: visitId, plan_id: planId })).status).toBe(201)

    const second = await w.rawVisit(await w.occurrence({ service: serviceId }), personId)
    const usedUp = await post({ visit_id: second, plan_id: planId })
    expect(usedUp.status).toBe(422)
    expect(usedUp.json.errors[0]).toMatch(new RegExp(`^Plan ${planId} has no visits left on 2026-11-\\d\\d$`))
    expect(await w.punchCount(planId)).toBe(1)
    expect(occurrenceId).toBeGreaterThan(0)
  })

  it("lists every problem of a named plan at once, in the request's locale", async () => {
    const { planId } = await packAndVisit(1, { start_date: "2026-12-01" })
    const { visitId } = await packAndVisit()
    const response = await w.server.request("POST", "/api/v2/desk/punches", {
      token: w.ownerToken,
      headers: { "x-fd-locale": "de" },
      body: { punch: { visit_id: visitId, plan_id: planId } }
    })
    expect(response.status).toBe(422)
    expect(response.json.errors).toEqual([
      `Plan ${planId} gehört nicht der Person des Besuchs`,
      expect.stringMatching(new RegExp(`^Plan ${planId} ist am 2026-11-\\d\\d nicht gültig$`))
    ])
  })

  it("is not found for unknown or another business's visits and plans; 400 naming a missing or malformed field", async () => {
    const { planId, visitId } = await packAndVisit()
    expect((await post({ visit_id: 99999999, plan_id: planId })).status).toBe(404)
    const unknownPlan = await post({ visit_id: visitId, plan_id: 99999999 })
    expect(unknownPlan.status).toBe(404)
    expect(unknownPlan.json).toEqual({ errors: ["Plan 99999999 not found"] })

    const theirService = await createService(w.pool, w.elsewhere.id, { type: "GroupClass", name: "Theirs" })
    const theirOccurrence = await w.occurrence({ service: theirService, businessId: w.elsewhere.id })
    const theirPerson = (await createPerson(w.pool, w.elsewhere.id)).personId
    const theirProduct = await createPlanProduct(w.pool, w.elsewhere.id, { kind: "pack", count: 5 })
    const theirPlan = await createPlan(w.pool, w.elsewhere.id, theirProduct.id, [theirPerson], { start_date: "2026-10-01" })
    const otherPlan = await post({ visit_id: visitId, plan_id: theirPlan.id })
    expect(otherPlan.status).toBe(404)
    expect(otherPlan.json).toEqual({ errors: [`Plan ${theirPlan.id} not found`] })
    const theirVisit = await w.rawVisit(theirOccurrence, theirPerson, "registered", w.elsewhere.id)
    expect((await post({ visit_id: theirVisit, plan_id: planId })).status).toBe(404)
    expect(await w.punchCount(theirPlan.id)).toBe(0)
    // Our visit and plan, asked on the other business's host: not found there.
    expect((await post({ visit_id: visitId, plan_id: planId }, w.foreignToken)).status).toBe(401)

    const missing = await post({ plan_id: planId })
    expect(missing.status).toBe(400)
    expect(missing.json.errors.join(" ")).toContain("visit_id")
    const malformed = await post({ visit_id: "seven", plan_id: planId })
    expect(malformed.status).toBe(400)
    expect(malformed.json.errors.join(" ")).toContain("visit_id")
    expect(await w.punchCount(planId)).toBe(0)
    expect((await w.visit(visitId)).paid).toBe(false)
  })

  it("is staff mode only: a client token is refused and nothing is written", async () => {
    const { planId, visitId } = await packAndVisit()
    const response = await post({ visit_id: visitId, plan_id: planId }, w.clientToken)
    expect(response.status).toBe(403)
    expect(await w.punchCount(planId)).toBe(0)
    expect((await w.server.request("POST", "/api/v2/desk/punches", { body: { punch: { visit_id: visitId } } })).status).toBe(401)
  })

  it("announces punch.created with the punch, in the punch's transaction", async () => {
    await w.pool.query(`update businesses set webhooks_enabled = true where id = $1`, [w.business.id])
    await w.pool.query(
      `insert into webhook_subscriptions (business_id, created_by_staff_member_id, created_by_account_id, topic, target, secret_encrypted)
       values ($1, $2, $3, 'punch.created', 'http://127.0.0.1:9/', '\\x00')`,
      [w.business.id, w.owner.staffMemberId, w.owner.accountId]
    )
    const { planId, visitId } = await packAndVisit()
    const response = await post({ visit_id: visitId, plan_id: planId })
    const { rows } = await w.pool.query(`select payload from webhook_events where business_id = $1 and topic = 'punch.created'`, [w.business.id])
    expect(rows).toHaveLength(1)
    expect(rows[0].payload).toMatchObject({ topic: "punch.created", business_id: w.business.id, punches: response.json.punches })
    // A refused punch announces nothing.
    await post({ visit_id: visitId, plan_id: 99999999 })
    await w.pool.query(`delete from webhook_subscriptions where business_id = $1 and topic = 'punch.created'`, [w.business.id])
  })
})

describe("exhausted packs", () => {
  it("marks the pack exhausted when its last visit is spent, and clears it when a punch is deleted", async () => {
    const { planId, visitId, personId } = await packAndVisit(2)
    expect((await post({ visit_id: visitId, plan_id: planId })).status).toBe(201)
    expect(await w.exhaustedAt(planId)).toBeNull()
    const second = await w.rawVisit(await w.occurrence({ service: serviceId }), personId)
    const last = await post({ visit_id: second, plan_id: planId })
    expect(last.status).toBe(201)
    expect(await w.exhaustedAt(planId)).toEqual(new Date("2026-10-25T18:00:00Z"))
    expect((await del(last.json.punches[0].id)).status).toBe(204)
    expect(await w.exhaustedAt(planId)).toBeNull()
  })
})

describe("GET and DELETE /desk/punches/:id", () => {
  it("deletes the punch: 204, the visit unpaid, the visit back on the plan; then not found", async () => {
    const { planId, visitId } = await packAndVisit(1)
    const id = (await post({ visit_id: visitId, plan_id: planId })).json.punches[0].id
    const response = await del(id)
    expect(response.status).toBe(204)
    expect(await w.visit(visitId)).toMatchObject({ paid: false, paid_for_by: null, punch_id: null })
    expect((await get(id)).status).toBe(404)
    expect((await del(id)).status).toBe(404)
    // The visit can be paid again: the pack has its visit back.
    expect((await post({ visit_id: visitId, plan_id: planId })).status).toBe(201)
  })

  it("is not found for unknown ids and on another business's host; refused to clients", async () => {
    const { planId, visitId } = await packAndVisit()
    const id = (await post({ visit_id: visitId, plan_id: planId })).json.punches[0].id
    const unknown = await get(99999999)
    expect(unknown.status).toBe(404)
    expect(unknown.json).toEqual({ errors: ["Punch 99999999 not found"] })
    expect((await w.server.request("GET", `/api/v2/desk/punches/${id}`, { token: w.foreignToken, host: "elsewhere.studio.test" })).status).toBe(404)
    expect((await w.server.request("DELETE", `/api/v2/desk/punches/${id}`, { token: w.foreignToken, host: "elsewhere.studio.test" })).status).toBe(404)
    expect((await get(id, w.clientToken)).status).toBe(403)
    expect((await del(id, w.clientToken)).status).toBe(403)
    expect((await w.visit(visitId)).paid).toBe(true)
  })
})

describe("a plan that goes", () => {
  it("takes its punches with it, and its visits read unpaid (sql/migrations/0014)", async () => {
    const { planId, visitId } = await packAndVisit()
    const id = (await post({ visit_id: visitId, plan_id: planId })).json.punches[0].id
    await w.pool.query(`delete from plans where business_id = $1 and id = $2`, [w.business.id, planId])
    expect(await w.visit(visitId)).toMatchObject({ paid: false, paid_for_by: null, punch_id: null })
    expect((await get(id)).status).toBe(404)
  })
})

describe("concurrent punches", () => {
  it("20 parallel punches of 20 visits racing for one 5-visit pack: exactly 5 succeed", async () => {
    const people = await Promise.all(Array.from({ length: 20 }, (_, i) => w.person(`Racer ${i}`)))
    const product = await createPlanProduct(w.pool, w.business.id, { kind: "pack", count: 5 })
    const { id: planId } = await createPlan(w.pool, w.business.id, product.id, people, { start_date: "2026-10-01", visits_shared: true })
    const occurrenceId = await w.occurrence({ service: serviceId })
    const visits = []
    for (const personId of people) visits.push(await w.rawVisit(occurrenceId, personId))
    const responses = await Promise.all(visits.map((visitId) => post({ visit_id: visitId, plan_id: planId })))
    const statuses = responses.map((response) => response.status).sort()
    expect(statuses.filter((status) => status === 201)).toHaveLength(5)
    expect(statuses.filter((status) => status === 422)).toHaveLength(15)
    expect(await w.punchCount(planId)).toBe(5)
    const paid = await w.pool.query(`select count(*)::int as n from visits where business_id = $1 and event_occurrence_id = $2 and punch_id is not null`, [
      w.business.id,
      occurrenceId
    ])
    expect(paid.rows[0].n).toBe(5)
    expect(await w.exhaustedAt(planId)).not.toBeNull()
  })
})
