import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeSettableClock } from "../support/clock.ts"
import { createHold, createPlan, createPlanProduct } from "../support/billing-factories.ts"
import { createApplication, createBusiness, createPerson, createToken } from "../support/factories.ts"
import { type TestServer, startTestServer } from "../support/server.ts"

/**
 * People answer from real plans: `is_member`, the `is_member` filter, `membership` and
 * `secondary_info_field` follow the plan rules' member (a current consider_member plan not on
 * hold, today business-local), never the old `people.is_member` column; deleting a person with
 * an active plan (current with visits left) is refused with a message naming it.
 */
// 2026-11-02T07:00Z is still 2026-11-01 in Los Angeles.
const clock = makeSettableClock("2026-11-02T07:00:00Z")
let server: TestServer
let businessId: number
let managerToken: string
let memberToken: string
let member: number
let columnOnly: number
let held: number
let future: number
let packHolder: number
let usedUp: number
let ended: number

const request = (method: string, path: string, token: string) => server.request(method, path, { token })
const desk = async (id: number) => (await request("GET", `/api/v2/desk/people/${id}`, managerToken)).json.people[0]

beforeAll(async () => {
  server = await startTestServer({ clock: clock.clock })
  await createApplication(server.pool, "test-app")
  businessId = (await createBusiness(server.pool, { subdomain: "demo", time_zone: "America/Los_Angeles" })).id
  const manager = await createPerson(server.pool, businessId, { role: "manager" })
  managerToken = await createToken(server.pool, manager.accountId, businessId)
  const memberAccount = await createPerson(server.pool, businessId, { first_name: "Mia" })
  member = memberAccount.personId
  memberToken = await createToken(server.pool, memberAccount.accountId, businessId)
  const person = async () => (await createPerson(server.pool, businessId)).personId
  columnOnly = await person()
  held = await person()
  future = await person()
  packHolder = await person()
  usedUp = await person()
  ended = await person()
  await server.pool.query("update people set is_member = true where id = $1", [columnOnly])

  const gold = (await createPlanProduct(server.pool, businessId, { kind: "membership", name: "Gold" })).id
  const silver = (await createPlanProduct(server.pool, businessId, { kind: "membership", name: "Silver" })).id
  const pack = (await createPlanProduct(server.pool, businessId, { kind: "pack", name: "Five classes", count: 1 })).id
  await createPlan(server.pool, businessId, silver, [member], { start_date: "2026-01-01" })
  // The newest current membership names the person's membership.
  await createPlan(server.pool, businessId, gold, [member], { start_date: "2026-10-01", end_date: "2026-11-01" })
  const onHold = (await createPlan(server.pool, businessId, gold, [held], { start_date: "2026-10-01" })).id
  await createHold(server.pool, businessId, onHold, "2026-11-01")
  await createPlan(server.pool, businessId, gold, [future], { start_date: "2026-11-02" })
  await createPlan(server.pool, businessId, pack, [packHolder], { start_date: "2026-10-01", end_date: "2026-12-31" })
  const spent = (await createPlan(server.pool, businessId, pack, [usedUp], { start_date: "2026-10-01", end_date: "2026-12-31" })).id
  const visit = await server.pool.query(
    `with s as (insert into services (business_id, type, name, duration_in_minutes) values ($1, 'GroupClass', 'Past class', 60) returning id),
          e as (insert into events (business_id, service_id, name, frequency, start_date, start_time, end_time)
                select $1, s.id, 'Class', 'once', '2026-10-05', '09:00', '10:00' from s returning id, service_id),
          o as (insert into event_occurrences (business_id, event_id, scheduled_date, service_id, name, time_zone, start_at, end_at)
                select $1, e.id, '2026-10-05', e.service_id, 'Class', 'UTC', '2026-10-05 09:00Z', '2026-10-05 10:00Z' from e returning id)
     insert into visits (business_id, event_occurrence_id, person_id, state) select $1, o.id, $2, 'completed' from o returning id`,
    [businessId, usedUp]
  )
  await server.pool.query(`insert into punches (business_id, visit_id, plan_id, person_id, visit_date) values ($1, $2, $3, $4, '2026-10-05')`, [
    businessId,
    visit.rows[0].id,
    spent,
    usedUp
  ])
  await createPlan(server.pool, businessId, pack, [ended], { start_date: "2026-09-01", end_date: "2026-10-31" })
}, 120_000)

afterAll(async () => {
  await server?.close()
})

describe("membership from plans", () => {
  it("is_member, membership and secondary_info_field come from current membership plans, not the column", async () => {
    expect(await desk(member)).toMatchObject({ is_member: true, membership: "Gold", secondary_info_field: "Gold" })
    for (const id of [columnOnly, held, future, packHolder]) {
      expect(await desk(id), String(id)).toMatchObject({ is_member: false, membership: null, secondary_info_field: "No Membership" })
    }
    const me = await request("GET", "/api/v2/front/people/me", memberToken)
    expect(me.json.people[0].secondary_info_field).toBe("Gold")
  })

  it("follows the business-local date: the next local day, the ended plan is gone and the future one starts", async () => {
    clock.set("2026-11-02T09:00:00Z") // 01:00 on the 2nd in Los Angeles
    expect(await desk(member)).toMatchObject({ is_member: true, membership: "Silver" })
    expect((await desk(future)).is_member).toBe(true)
    clock.set("2026-11-02T07:00:00Z")
  })

  it("filters the list with is_member", async () => {
    const members = await request("GET", "/api/v2/desk/people?is_member=true&per_page=100", managerToken)
    expect(members.json.people.map((p: { id: number }) => p.id)).toEqual([member])
    const others = await request("GET", "/api/v2/desk/people?is_member=false&per_page=100", managerToken)
    const otherIds = others.json.people.map((p: { id: number }) => p.id)
    expect(otherIds).toContain(columnOnly)
    expect(otherIds).not.toContain(member)
  })
})

describe("deleting a person", () => {
  it("is refused while they hold an active plan, naming it", async () => {
    const refused = await request("DELETE", `/api/v2/desk/people/${packHolder}`, managerToken)
    expect(refused.status).toBe(422)
    expect(refused.json.errors).toEqual(["This person has active plans (Five classes); cancel or end them first"])
    expect((await server.pool.query("select deleted_at from people where id = $1", [packHolder])).rows[0].deleted_at).toBeNull()
    const held422 = await request("DELETE", `/api/v2/desk/people/${held}`, managerToken)
    expect(held422.json.errors).toEqual(["This person has active plans (Gold); cancel or end them first"])
  })

  it("is allowed with only used-up or ended plans", async () => {
    expect((await request("DELETE", `/api/v2/desk/people/${usedUp}`, managerToken)).status).toBe(204)
    expect((await request("DELETE", `/api/v2/desk/people/${ended}`, managerToken)).status).toBe(204)
  })
})
