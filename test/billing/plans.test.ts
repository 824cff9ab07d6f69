import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeSettableClock } from "../support/clock.ts"
import { createHold, createPlan, createPlanProduct } from "../support/billing-factories.ts"
import { createApplication, createBusiness, createPerson, createToken } from "../support/factories.ts"
import { type TestServer, startTestServer } from "../support/server.ts"
import { createDependent } from "../people/fixtures.ts"

/**
 * Person plans over HTTP (spec: Plans and person plans): the desk list of every plan, a
 * person's plans in both modes with each `filter` evaluated on the business-local today,
 * `include_holds`, client-mode reach (self and dependents), holds, and the state events.
 */
// 2026-11-03T06:00Z is still 2026-11-02 in Los Angeles (the business's zone): "today" is the 2nd.
const clock = makeSettableClock("2026-11-03T06:00:00Z")
let server: TestServer
let businessId: number
let staffToken: string
let clientToken: string
let otherClientToken: string
let alice: number
let dependent: number
let bob: number
let foreignPerson: number
const plans: Record<"current" | "usedUp" | "upcoming" | "past" | "held" | "dependent" | "bobs" | "foreign", number> = {} as never

const request = (method: string, path: string, token?: string, body?: unknown) =>
  server.request(method, path, { ...(token ? { token } : {}), ...(body === undefined ? {} : { body }) })

const ids = (response: { json: any }) => (response.json.plans as Array<{ id: number }>).map((plan) => plan.id).sort((a, b) => a - b)
const sorted = (...values: Array<number>) => [...values].sort((a, b) => a - b)

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
  await server.pool.query(`insert into punches (business_id, visit_id, plan_id, person_id, visit_date) values ($1, $2, $3, $4, $5)`, [
    businessId,
    visit.rows[0].id,
    planId,
    personId,
    visitDate
  ])
}

beforeAll(async () => {
  server = await startTestServer({ clock: clock.clock })
  await createApplication(server.pool, "test-app")
  businessId = (await createBusiness(server.pool, { subdomain: "demo", time_zone: "America/Los_Angeles" })).id
  const elsewhere = (await createBusiness(server.pool, { subdomain: "elsewhere" })).id
  const staff = await createPerson(server.pool, businessId, { role: "standard" })
  staffToken = await createToken(server.pool, staff.accountId, businessId)
  const client = await createPerson(server.pool, businessId, { first_name: "Alice" })
  alice = client.personId
  clientToken = await createToken(server.pool, client.accountId, businessId)
  dependent = await createDependent(server.pool, businessId, alice)
  const other = await createPerson(server.pool, businessId, { first_name: "Bob" })
  bob = other.personId
  otherClientToken = await createToken(server.pool, other.accountId, businessId)
  foreignPerson = (await createPerson(server.pool, elsewhere)).personId

  const pack = (await createPlanProduct(server.pool, businessId, { kind: "pack", count: 2, name: "Two classes" })).id
  const membership = (await createPlanProduct(server.pool, businessId, { kind: "membership", name: "Unlimited" })).id
  plans.current = (await createPlan(server.pool, businessId, pack, [alice], { start_date: "2026-10-01", end_date: "2026-12-31" })).id
  plans.usedUp = (await createPlan(server.pool, businessId, pack, [alice], { count: 1, start_date: "2026-10-01", end_date: "2026-12-31" })).id
  await punch(plans.usedUp, alice, "2026-10-20")
  await punch(plans.current, alice, "2026-10-21")
  plans.upcoming = (await createPlan(server.pool, businessId, pack, [alice], { start_date: "2026-11-03", end_date: "2027-01-31" })).id
  plans.past = (await createPlan(server.pool, businessId, membership, [alice], { start_date: "2026-09-01", end_date: "2026-11-01" })).id
  plans.held = (await createPlan(server.pool, businessId, membership, [alice], { start_date: "2026-10-01" })).id
  await createHold(server.pool, businessId, plans.held, "2026-11-01", "2026-11-10")
  plans.dependent = (await createPlan(server.pool, businessId, pack, [dependent], { start_date: "2026-10-01" })).id
  plans.bobs = (await createPlan(server.pool, businessId, pack, [bob], { start_date: "2026-10-01" })).id
  const foreignProduct = (await createPlanProduct(server.pool, elsewhere, { kind: "pack" })).id
  plans.foreign = (await createPlan(server.pool, elsewhere, foreignProduct, [foreignPerson], { start_date: "2026-10-01" })).id
}, 120_000)

afterAll(async () => {
  await server?.close()
})

describe("lists", () => {
  it("desk lists every plan of the business, paginated, with the record's keys", async () => {
    const all = await request("GET", "/api/v2/desk/plans?per_page=100", staffToken)
    expect(all.status, all.text).toBe(200)
    expect(ids(all)).toEqual(sorted(...Object.entries(plans).filter(([name]) => name !== "foreign").map(([, id]) => id)))
    expect(all.json.total_count).toBe(7)
    const current = all.json.plans.find((plan: { id: number }) => plan.id === plans.current)
    expect(current).toEqual({
      id: plans.current,
      count: 2,
      type: "Pack",
      person_ids: [alice],
      name: "Two classes",
      description: null,
      price_cents: 5000,
      price: "$50.00",
      consider_member: false,
      plan_product_id: expect.any(Number),
      start_date: "2026-10-01",
      end_date: "2026-12-31",
      staff_member_id: null,
      location_id: null,
      canceled_at: null,
      deactivated_at: null,
      limit_period: null,
      rollover_count: 0,
      visits_shared: true,
      visits_remaining: 1,
      on_hold: false,
      created_at: expect.any(String),
      updated_at: expect.any(String)
    })
    const page = await request("GET", "/api/v2/desk/plans?per_page=3&page=2", staffToken)
    expect(page.json.plans).toHaveLength(3)
    expect(page.json.next).toMatch(/page=3/)
    expect(page.json.prev).toMatch(/page=1/)
  })

  it("filters a person's plans on the business-local today", async () => {
    const list = async (filter?: string) => {
      const response = await request("GET", `/api/v2/desk/people/${alice}/plans${filter ? `?filter=${filter}` : ""}`, staffToken)
      expect(response.status, response.text).toBe(200)
      return ids(response)
    }
    expect(await list()).toEqual(sorted(plans.current, plans.usedUp, plans.upcoming, plans.past, plans.held))
    expect(await list("current")).toEqual(sorted(plans.current, plans.usedUp, plans.held))
    expect(await list("active")).toEqual(sorted(plans.current, plans.held))
    expect(await list("usable")).toEqual(sorted(plans.current))
    expect(await list("upcoming")).toEqual(sorted(plans.upcoming))
    expect(await list("active_with_upcoming")).toEqual(sorted(plans.current, plans.held, plans.upcoming))
    expect(await list("inactive")).toEqual(sorted(plans.usedUp, plans.upcoming, plans.past))
    expect((await request("GET", `/api/v2/desk/people/${alice}/plans?filter=sometimes`, staffToken)).status).toBe(400)
  })

  it("include_holds adds the holds; on_hold says whether one covers today", async () => {
    const response = await request("GET", `/api/v2/desk/people/${alice}/plans?include_holds=true&filter=current`, staffToken)
    const held = response.json.plans.find((plan: { id: number }) => plan.id === plans.held)
    expect(held.on_hold).toBe(true)
    expect(held.visits_remaining).toBeNull()
    expect(held.holds).toEqual([{ id: expect.any(Number), start_date: "2026-11-01", end_date: "2026-11-10", created_at: expect.any(String) }])
    expect(response.json.plans.find((plan: { id: number }) => plan.id === plans.current).holds).toEqual([])
    const without = await request("GET", `/api/v2/desk/people/${alice}/plans`, staffToken)
    expect(without.json.plans[0]).not.toHaveProperty("holds")
  })

  it("desk: unknown and other businesses' people are not found; clients are refused", async () => {
    expect((await request("GET", `/api/v2/desk/people/999999/plans`, staffToken)).status).toBe(404)
    expect((await request("GET", `/api/v2/desk/people/${foreignPerson}/plans`, staffToken)).status).toBe(404)
    expect((await request("GET", `/api/v2/desk/plans`, clientToken)).status).toBe(403)
    expect((await request("GET", `/api/v2/desk/plans`)).status).toBe(401)
  })

  it("client mode: the token's person and their dependents only", async () => {
    const own = await request("GET", `/api/v2/front/people/${alice}/plans?filter=usable`, clientToken)
    expect(own.status, own.text).toBe(200)
    expect(ids(own)).toEqual([plans.current])
    expect(own.headers["cache-control"]).toContain("private")
    const me = await request("GET", `/api/v2/front/people/me/plans?filter=usable`, clientToken)
    expect(me.status, me.text).toBe(200)
    expect(ids(me)).toEqual([plans.current])
    const dependents = await request("GET", `/api/v2/front/people/${dependent}/plans`, clientToken)
    expect(ids(dependents)).toEqual([plans.dependent])
    for (const person of [bob, foreignPerson, 999999]) {
      expect((await request("GET", `/api/v2/front/people/${person}/plans`, clientToken)).status, String(person)).toBe(404)
    }
    expect((await request("GET", `/api/v2/front/people/${alice}/plans`, otherClientToken)).status).toBe(404)
    expect((await server.request("GET", `/api/v2/front/people/${alice}/plans?client_id=test-app`)).status).toBe(401)
  })
})

describe("holds and state", () => {
  it("adds holds (open-ended too), refuses overlaps, removes them", async () => {
    const path = `/api/v2/desk/plans/${plans.bobs}/holds`
    const first = await request("POST", path, staffToken, { hold: { start_date: "2026-11-05", end_date: "2026-11-09" } })
    expect(first.status, first.text).toBe(201)
    expect(first.json.holds[0]).toMatchObject({ start_date: "2026-11-05", end_date: "2026-11-09" })
    const overlapping = await request("POST", path, staffToken, { hold: { start_date: "2026-11-09" } })
    expect(overlapping.status).toBe(422)
    expect(overlapping.json.errors).toEqual(["The hold overlaps another hold of this plan"])
    const backwards = await request("POST", path, staffToken, { hold: { start_date: "2026-11-20", end_date: "2026-11-19" } })
    expect(backwards.json.errors).toEqual(["end_date must be on or after the start date (2026-11-20)"])
    const formHold = await server.request("POST", `/api/v2/desk/plans/${plans.current}/holds`, {
      token: staffToken,
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "hold[start_date]=2027-01-01&hold[end_date]=2027-01-05"
    })
    expect(formHold.status, formHold.text).toBe(201)
    expect(formHold.json.holds[0]).toMatchObject({ start_date: "2027-01-01", end_date: "2027-01-05" })
    expect((await request("DELETE", `/api/v2/desk/plans/${plans.bobs}/holds/${first.json.holds[0].id}`, staffToken)).status).toBe(204)
    // No start_date: from today; no end_date: until removed.
    const today = await request("POST", path, staffToken, { hold: {} })
    expect(today.status, today.text).toBe(201)
    expect(today.json.holds[0]).toMatchObject({ start_date: "2026-11-02", end_date: null })
    const usable = await request("GET", `/api/v2/desk/people/${bob}/plans?filter=usable`, staffToken)
    expect(ids(usable)).toEqual([])
    expect((await request("DELETE", `/api/v2/desk/plans/${plans.bobs}/holds/${today.json.holds[0].id}`, staffToken)).status).toBe(204)
    expect((await request("DELETE", `/api/v2/desk/plans/${plans.bobs}/holds/${today.json.holds[0].id}`, staffToken)).status).toBe(404)
    expect((await request("DELETE", `/api/v2/desk/plans/${plans.current}/holds/${first.json.holds[0].id}`, staffToken)).status).toBe(404)
    expect(ids(await request("GET", `/api/v2/desk/people/${bob}/plans?filter=usable`, staffToken))).toEqual([plans.bobs])
    expect((await request("POST", `/api/v2/desk/plans/${plans.foreign}/holds`, staffToken, { hold: {} })).status).toBe(404)
  })

  it("cancel ends the plan (today by default) and records who; deactivate and reactivate", async () => {
    const product = (await createPlanProduct(server.pool, businessId, { kind: "pack", count: 5 })).id
    const plan = (await createPlan(server.pool, businessId, product, [bob], { start_date: "2026-10-01", end_date: "2027-03-31" })).id
    const path = `/api/v2/desk/plans/${plan}`
    const canceled = await request("PUT", path, staffToken, { plan: { state_event: "cancel" } })
    expect(canceled.status, canceled.text).toBe(200)
    expect(canceled.json.plans[0]).toMatchObject({ id: plan, end_date: "2026-11-02", canceled_at: "2026-11-03T06:00:00Z" })
    expect((await server.pool.query("select canceled_by_account_id from plans where id = $1", [plan])).rows[0].canceled_by_account_id).not.toBeNull()
    expect((await request("PUT", path, staffToken, { plan: { state_event: "cancel" } })).json.errors).toEqual(["The plan is already canceled"])

    const deactivated = await request("PUT", path, staffToken, { plan: { state_event: "deactivate" } })
    expect(deactivated.json.plans[0].deactivated_at).toBe("2026-11-03T06:00:00Z")
    expect(ids(await request("GET", `/api/v2/desk/people/${bob}/plans?filter=current`, staffToken))).not.toContain(plan)
    expect((await request("PUT", path, staffToken, { plan: { state_event: "deactivate" } })).status).toBe(422)
    const reactivated = await server.request("PUT", path, {
      token: staffToken,
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "plan[state_event]=reactivate&plan[end_date]=2026-12-31"
    })
    expect(reactivated.status, reactivated.text).toBe(200)
    expect(reactivated.json.plans[0]).toMatchObject({ deactivated_at: null, end_date: "2026-12-31" })
    expect(ids(await request("GET", `/api/v2/desk/people/${bob}/plans?filter=current`, staffToken))).toContain(plan)
    expect((await request("PUT", path, staffToken, { plan: { state_event: "reactivate" } })).json.errors).toEqual(["The plan is not deactivated"])
    expect((await request("PUT", path, staffToken, { plan: { state_event: "explode" } })).status).toBe(400)
    expect((await request("PUT", path, staffToken, { plan: {} })).json.errors).toEqual(["state_event can't be blank"])
    expect((await request("PUT", path, staffToken, { plan: { end_date: "2026-01-01" } })).json.errors).toEqual([
      "end_date must be on or after the start date (2026-10-01)"
    ])
    expect((await request("PUT", `/api/v2/desk/plans/${plans.foreign}`, staffToken, { plan: { state_event: "cancel" } })).status).toBe(404)
  })

  it("GET /desk/plans/:id shows one plan with its holds", async () => {
    const response = await request("GET", `/api/v2/desk/plans/${plans.held}`, staffToken)
    expect(response.status).toBe(200)
    expect(response.json.plans[0]).toMatchObject({ id: plans.held, type: "Membership", on_hold: true, holds: [expect.any(Object)] })
    expect((await request("GET", `/api/v2/desk/plans/${plans.foreign}`, staffToken)).status).toBe(404)
  })
})

describe("the contract", () => {
  it("documents the plan and pack records with the keys clients read", async () => {
    const response = await server.request("GET", "/api/openapi.json")
    const schemas = response.json.components.schemas
    expect(Object.keys(schemas.Plan.properties)).toEqual(expect.arrayContaining([
      "id", "count", "type", "person_ids", "name", "description", "price_cents", "consider_member", "plan_product_id",
      "start_date", "end_date", "staff_member_id", "location_id", "canceled_at", "limit_period", "rollover_count",
      "created_at", "updated_at", "visits_remaining", "on_hold", "holds"
    ]))
    expect(Object.keys(schemas.Pack.properties)).toEqual(expect.arrayContaining([
      "id", "count", "person_ids", "description", "price_cents", "rollover_count", "pack_product_id", "start_date",
      "end_date", "staff_member_id", "location_id", "created_at", "updated_at", "visits_shared"
    ]))
    const create = response.json.paths["/api/v2/desk/pack_products/{pack_product_id}/packs"].post
    expect(create.parameters.map((parameter: { name: string }) => parameter.name.toLowerCase())).toContain("idempotency-key")
  })
})

