import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { offerWaitlistPlaces } from "../../src/enrollment/waitlists/offer.ts"
import { createPlan, createPlanProduct } from "../support/billing-factories.ts"
import { apiCaller } from "../support/http.ts"
import { type BillingWorld, startBillingWorld } from "./punches-fixtures.ts"

/**
 * Auto-pay: a visit that comes to be registered or completed without a punch is paid by the
 * automatic plan choice when the person holds a suitable plan (POST visits in both modes, PUT
 * state_event register/complete/reset, a booking's completion); no-show and late cancel keep the
 * punch; deleting a visit gives the plan its visit back.
 */
let w: BillingWorld
let serviceId: number

const deskPost = (visit: unknown) => w.server.request("POST", "/api/v2/desk/visits", { token: w.ownerToken, body: { visit } })
const deskPut = (id: number, visit: unknown) => w.server.request("PUT", `/api/v2/desk/visits/${id}`, { token: w.ownerToken, body: { visit } })
const deskDelete = (id: number) => w.server.request("DELETE", `/api/v2/desk/visits/${id}`, { token: w.ownerToken })

const holderOfPack = async (count = 5, name = "Five-class pack") => {
  const personId = await w.person()
  const { id: productId } = await createPlanProduct(w.pool, w.business.id, { kind: "pack", count, name })
  const { id: planId } = await createPlan(w.pool, w.business.id, productId, [personId], { start_date: "2026-10-01" })
  return { personId, planId }
}

beforeAll(async () => {
  w = await startBillingWorld()
  serviceId = await w.service()
}, 120_000)

afterAll(async () => {
  await w?.server.close()
})

describe("paying on creation", () => {
  it("POST /desk/visits (registered) answers the visit paid by the person's plan, and visit.created says so", async () => {
    await w.pool.query(`update businesses set webhooks_enabled = true where id = $1`, [w.business.id])
    await w.pool.query(
      `insert into webhook_subscriptions (business_id, created_by_staff_member_id, created_by_account_id, topic, target, secret_encrypted)
       values ($1, $2, $3, 'visit.created', 'http://127.0.0.1:9/', '\\x00'), ($1, $2, $3, 'punch.created', 'http://127.0.0.1:9/', '\\x00')`,
      [w.business.id, w.owner.staffMemberId, w.owner.accountId]
    )
    const { personId, planId } = await holderOfPack()
    const response = await deskPost({ person_id: personId, event_occurrence_id: await w.occurrence({ service: serviceId }) })
    expect(response.status, response.text).toBe(201)
    const visit = response.json.visits[0]
    expect(visit).toMatchObject({ paid: true, paid_for_by: "Five-class pack", punch_id: expect.any(Number) })
    const { rows } = await w.pool.query(`select plan_id, created_by_staff_member_id from punches where id = $1`, [visit.punch_id])
    expect(rows[0]).toEqual({ plan_id: String(planId), created_by_staff_member_id: null })
    const events = await w.pool.query(`select topic, payload from webhook_events where business_id = $1 order by id`, [w.business.id])
    expect(events.rows.map((row) => row.topic)).toEqual(["punch.created", "visit.created"])
    expect(events.rows[1].payload.visits[0]).toMatchObject({ id: visit.id, paid: true, punch_id: visit.punch_id })
    await w.pool.query(`delete from webhook_subscriptions where business_id = $1`, [w.business.id])
  })

  it("a completed visit is paid too; reserved, no-show and late-cancel records are not", async () => {
    const { personId, planId } = await holderOfPack()
    const states = ["completed", "reserved", "noshowed", "late_canceled"]
    const paid: Record<string, boolean> = {}
    for (const state of states) {
      const response = await deskPost({ person_id: personId, event_occurrence_id: await w.occurrence({ service: serviceId }), state })
      expect(response.status, response.text).toBe(201)
      paid[state] = response.json.visits[0].paid
    }
    expect(paid).toEqual({ completed: true, reserved: false, noshowed: false, late_canceled: false })
    expect(await w.punchCount(planId)).toBe(1)
  })

  it("without a suitable plan the visit is made all the same, unpaid", async () => {
    const personId = await w.person()
    const response = await deskPost({ person_id: personId, event_occurrence_id: await w.occurrence({ service: serviceId }) })
    expect(response.status).toBe(201)
    expect(response.json.visits[0]).toMatchObject({ paid: false, paid_for_by: null, punch_id: null })
  })

  it("POST /front/visits by a client holding a plan is paid", async () => {
    const { id: productId } = await createPlanProduct(w.pool, w.business.id, { kind: "pack", count: 5 })
    const { id: planId } = await createPlan(w.pool, w.business.id, productId, [w.client.personId], { start_date: "2026-10-01" })
    const response = await w.server.request("POST", "/api/v2/front/visits", {
      token: w.clientToken,
      body: { visit: { event_occurrence_id: await w.occurrence({ service: serviceId }) } }
    })
    expect(response.status, response.text).toBe(201)
    expect(response.json.visits[0].paid).toBe(true)
    expect(await w.punchCount(planId)).toBe(1)
    await w.pool.query(`update plans set deactivated_at = now() where id = $1`, [planId])
  })
})

describe("paying on a state change", () => {
  it("register pays a reserved visit; no-show keeps the punch; reset keeps it; a fresh complete pays an unpaid one", async () => {
    const { personId, planId } = await holderOfPack()
    const created = await deskPost({ person_id: personId, event_occurrence_id: await w.occurrence({ service: serviceId }), state: "reserved" })
    const id = created.json.visits[0].id
    expect(created.json.visits[0].paid).toBe(false)
    const registered = await deskPut(id, { state_event: "register" })
    expect(registered.status, registered.text).toBe(200)
    expect(registered.json.visits[0].paid).toBe(true)
    const punchId = registered.json.visits[0].punch_id
    const noshow = await deskPut(id, { state_event: "noshow" })
    expect(noshow.json.visits[0]).toMatchObject({ state: "noshowed", paid: true, punch_id: punchId })
    const reset = await deskPut(id, { state_event: "reset" })
    expect(reset.json.visits[0]).toMatchObject({ state: "registered", punch_id: punchId })
    expect(await w.punchCount(planId)).toBe(1)

    // A visit made before the plan existed is paid when it is completed.
    const late = await w.person()
    const early = await deskPost({ person_id: late, event_occurrence_id: await w.occurrence({ service: serviceId }) })
    expect(early.json.visits[0].paid).toBe(false)
    const { id: productId } = await createPlanProduct(w.pool, w.business.id, { kind: "pack", count: 5 })
    const { id: latePlan } = await createPlan(w.pool, w.business.id, productId, [late], { start_date: "2026-10-01" })
    const completed = await deskPut(early.json.visits[0].id, { state_event: "complete" })
    expect(completed.json.visits[0]).toMatchObject({ state: "completed", paid: true })
    expect(await w.punchCount(latePlan)).toBe(1)
  })

  it("a late cancel keeps the punch: the visit is still spent", async () => {
    const { personId, planId } = await holderOfPack()
    const created = await deskPost({ person_id: personId, event_occurrence_id: await w.occurrence({ service: serviceId }) })
    const canceled = await deskPut(created.json.visits[0].id, { state_event: "late_cancel" })
    expect(canceled.json.visits[0]).toMatchObject({ state: "late_canceled", paid: true })
    expect(await w.punchCount(planId)).toBe(1)
  })
})

describe("deleting a visit", () => {
  it("deletes its punch and gives the used-up pack its visit back", async () => {
    const { personId, planId } = await holderOfPack(1)
    const created = await deskPost({ person_id: personId, event_occurrence_id: await w.occurrence({ service: serviceId }) })
    expect(created.json.visits[0].paid).toBe(true)
    expect(await w.exhaustedAt(planId)).not.toBeNull()
    const next = await deskPost({ person_id: personId, event_occurrence_id: await w.occurrence({ service: serviceId }) })
    expect(next.json.visits[0].paid).toBe(false)

    expect((await deskDelete(created.json.visits[0].id)).status).toBe(204)
    expect(await w.punchCount(planId)).toBe(0)
    expect(await w.exhaustedAt(planId)).toBeNull()
    // The pack pays again: the next visit, once it is completed.
    const completed = await deskPut(next.json.visits[0].id, { state_event: "complete" })
    expect(completed.json.visits[0].paid).toBe(true)
  })
})

describe("an explicit punch of an auto-paid visit", () => {
  it("replaces the automatic punch with the named pack (the booking integration's flow); a staff punch stays", async () => {
    const { personId, planId: membership } = await holderOfPack(1, "Older pack")
    const created = await deskPost({ person_id: personId, event_occurrence_id: await w.occurrence({ service: serviceId }) })
    const visitId = created.json.visits[0].id
    expect(created.json.visits[0].paid_for_by).toBe("Older pack")
    expect(await w.exhaustedAt(membership)).not.toBeNull()

    const { id: productId } = await createPlanProduct(w.pool, w.business.id, { kind: "pack", count: 1, name: "Sold for this visit" })
    const { id: packId } = await createPlan(w.pool, w.business.id, productId, [personId], { start_date: "2026-10-01" })
    const form = `punch%5Bvisit_id%5D=${visitId}&punch%5Bplan_id%5D=${packId}`
    const punched = await w.server.request("POST", `/api/v2/desk/punches?access_token=${w.ownerToken}`, {
      body: form,
      headers: { "content-type": "application/x-www-form-urlencoded" }
    })
    expect(punched.status, punched.text).toBe(201)
    expect(punched.json.punches[0]).toMatchObject({ visit_id: visitId, plan_id: packId })
    expect(await w.visit(visitId)).toMatchObject({ paid: true, paid_for_by: "Sold for this visit", punch_id: punched.json.punches[0].id })
    expect(await w.punchCount(membership)).toBe(0)
    expect(await w.exhaustedAt(membership)).toBeNull()

    // The staff-made punch is not replaced by yet another plan.
    const { id: third } = await createPlan(w.pool, w.business.id, productId, [personId], { start_date: "2026-10-01" })
    const refused = await w.server.request("POST", "/api/v2/desk/punches", { token: w.ownerToken, body: { punch: { visit_id: visitId, plan_id: third } } })
    expect(refused.status).toBe(422)
    expect(await w.punchCount(packId)).toBe(1)
  })

  it("a named plan that cannot pay leaves the automatic punch in place", async () => {
    const { personId, planId } = await holderOfPack()
    const created = await deskPost({ person_id: personId, event_occurrence_id: await w.occurrence({ service: serviceId }) })
    const { id: productId } = await createPlanProduct(w.pool, w.business.id, { kind: "pack", count: 1 })
    const { id: notYet } = await createPlan(w.pool, w.business.id, productId, [personId], { start_date: "2027-01-01" })
    const refused = await w.server.request("POST", "/api/v2/desk/punches", {
      token: w.ownerToken,
      body: { punch: { visit_id: created.json.visits[0].id, plan_id: notYet } }
    })
    expect(refused.status).toBe(422)
    expect(await w.punchCount(planId)).toBe(1)
    expect((await w.visit(created.json.visits[0].id)).punch_id).toBe(created.json.visits[0].punch_id)
  })
})

describe("the waitlist", () => {
  it("a place the waitlist's offer gives is a registered visit, paid by the person's plan", async () => {
    const { personId, planId } = await holderOfPack(5, "Waitlist pack")
    const occurrenceId = await w.occurrence({ service: serviceId, capacity: 1 })
    const filler = await w.rawVisit(occurrenceId, await w.person())
    await w.pool.query(`insert into waitlist_entries (business_id, event_occurrence_id, person_id) values ($1, $2, $3)`, [
      w.business.id,
      occurrenceId,
      personId
    ])
    expect(await w.server.runtime.runPromise(offerWaitlistPlaces(w.business.id, occurrenceId))).toEqual({ enrolled: 0, expired: 0 })
    expect((await deskDelete(filler)).status).toBe(204)
    expect(await w.server.runtime.runPromise(offerWaitlistPlaces(w.business.id, occurrenceId))).toEqual({ enrolled: 1, expired: 0 })
    const { rows } = await w.pool.query(`select state, paid_for_by from visits where event_occurrence_id = $1 and person_id = $2`, [
      occurrenceId,
      personId
    ])
    expect(rows).toEqual([{ state: "registered", paid_for_by: "Waitlist pack" }])
    expect(await w.punchCount(planId)).toBe(1)
  })
})

describe("bookings", () => {
  it("completing a booking registers its visits and pays them", async () => {
    const { id: productId } = await createPlanProduct(w.pool, w.business.id, { kind: "pack", count: 5, name: "Booking pack" })
    const { id: planId } = await createPlan(w.pool, w.business.id, productId, [w.client.personId], { start_date: "2026-10-01" })
    const occurrenceId = await w.occurrence({ service: serviceId })
    const front = apiCaller("/api/v2/front", () => ({ request: w.server.request, token: w.clientToken }))
    const created = await front("POST", "/bookings", { booking: { leases: [{ event_occurrence_id: occurrenceId, person: { id: w.client.personId } }] } })
    expect(created.status, created.text).toBe(201)
    const held = await w.pool.query(`select punch_id from visits where booking_id = $1`, [created.json.bookings[0].id])
    expect(held.rows).toEqual([{ punch_id: null }])
    const completed = await front("PUT", `/bookings/${created.json.bookings[0].id}`)
    expect(completed.status, completed.text).toBe(200)
    const { rows } = await w.pool.query(`select state, paid_for_by from visits where booking_id = $1`, [created.json.bookings[0].id])
    expect(rows).toEqual([{ state: "registered", paid_for_by: "Booking pack" }])
    expect(await w.punchCount(planId)).toBe(1)
  })
})
