import { parseCrontab } from "graphile-worker"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { emitEndedPlans } from "../../src/billing/plans/ended.ts"
import { crontab } from "../../workers/crontab.ts"
import { tasks } from "../../workers/runner.ts"
import { makeSettableClock } from "../support/clock.ts"
import { createPlan, createPlanProduct } from "../support/billing-factories.ts"
import { createBusiness, createPerson, createToken } from "../support/factories.ts"
import { type TestServer, startTestServer } from "../support/server.ts"
import { type Receiver, startReceiver } from "../webhooks/receiver.ts"

/**
 * plan.ended on a pinned clock: each plan once, after its last day has passed in the business's
 * time zone; plans of a business nobody listens to are marked too (no backlog later); moving the
 * end date later announces the plan again when it ends; plan.updated on changes. The job's
 * Effect is run directly, as the cron would; assertions count stored events (the worker's own
 * cron entry may run the same job on the same clock).
 */
// 2026-11-03T06:00Z is 2026-11-02 22:00 in Los Angeles.
const clock = makeSettableClock("2026-11-03T06:00:00Z")
let server: TestServer
let receiver: Receiver
let businessId: number
let quietId: number
let staffToken: string
let person: number
let product: number

const runJob = () => server.runtime.runPromise(emitEndedPlans())

const endedEvents = async () =>
  (
    await server.pool.query(
      `select (payload::jsonb -> 'plans' -> 0 ->> 'id')::int as id from webhook_events where topic = 'plan.ended' order by id`
    )
  ).rows.map((row: { id: number }) => row.id)

const notified = async (planId: number) =>
  (await server.pool.query("select ended_notified_at from plans where id = $1", [planId])).rows[0].ended_notified_at as Date | null

beforeAll(async () => {
  server = await startTestServer({ clock: clock.clock })
  receiver = await startReceiver()
  businessId = (await createBusiness(server.pool, { subdomain: "demo", time_zone: "America/Los_Angeles" })).id
  quietId = (await createBusiness(server.pool, { subdomain: "quiet", time_zone: "Europe/Berlin" })).id
  await server.pool.query("update businesses set webhooks_enabled = true where id = $1", [businessId])
  const owner = await createPerson(server.pool, businessId, { role: "owner" })
  staffToken = await createToken(server.pool, owner.accountId, businessId)
  for (const topic of ["plan.ended", "plan.updated"]) {
    const response = await server.request("POST", "/api/v3/webhooks", {
      token: staffToken,
      headers: { "content-type": "application/vnd.api+json" },
      body: JSON.stringify({ data: { type: "webhooks", attributes: { target: receiver.url(`/${topic}`), topic } } })
    })
    expect(response.status, response.text).toBe(201)
  }
  person = (await createPerson(server.pool, businessId)).personId
  product = (await createPlanProduct(server.pool, businessId, { kind: "pack" })).id
}, 120_000)

afterAll(async () => {
  await server?.close()
  await receiver?.close()
})

describe("plan.ended", () => {
  it("announces each plan once, the day after its last day, business-local", async () => {
    const endedYesterday = (await createPlan(server.pool, businessId, product, [person], { start_date: "2026-10-01", end_date: "2026-11-01" })).id
    const endsToday = (await createPlan(server.pool, businessId, product, [person], { start_date: "2026-10-01", end_date: "2026-11-02" })).id
    const open = (await createPlan(server.pool, businessId, product, [person], { start_date: "2026-10-01" })).id
    const quietPerson = (await createPerson(server.pool, quietId)).personId
    const quietProduct = (await createPlanProduct(server.pool, quietId, { kind: "pack" })).id
    // Berlin is already on 2026-11-03: its plan that ended on the 2nd is due.
    const quietPlan = (await createPlan(server.pool, quietId, quietProduct, [quietPerson], { start_date: "2026-10-01", end_date: "2026-11-02" })).id

    await runJob()
    expect(await endedEvents()).toEqual([endedYesterday])
    const body = (await server.pool.query("select payload::jsonb as payload from webhook_events where topic = 'plan.ended'")).rows[0].payload
    expect(body).toMatchObject({ topic: "plan.ended", business_id: businessId, plans: [{ id: endedYesterday, end_date: "2026-11-01", person_ids: [person] }] })
    expect(await notified(endedYesterday)).not.toBeNull()
    expect(await notified(endsToday)).toBeNull()
    expect(await notified(quietPlan)).not.toBeNull()

    await runJob()
    expect(await endedEvents()).toEqual([endedYesterday])

    clock.set("2026-11-03T09:00:00Z") // 01:00 on the 3rd in Los Angeles
    await runJob()
    expect(await endedEvents()).toEqual([endedYesterday, endsToday])
    expect(await notified(open)).toBeNull()
  })

  it("announces again when a changed end date passes; changes are plan.updated", async () => {
    const plan = (await createPlan(server.pool, businessId, product, [person], { start_date: "2026-10-01", end_date: "2026-10-31" })).id
    await runJob()
    expect((await endedEvents()).filter((id) => id === plan)).toHaveLength(1)
    const moved = await server.request("PUT", `/api/v2/desk/plans/${plan}`, { token: staffToken, body: { plan: { end_date: "2026-11-05" } } })
    expect(moved.status, moved.text).toBe(200)
    expect(await notified(plan)).toBeNull()
    const updates = await server.pool.query(
      `select (payload::jsonb -> 'plans' -> 0 ->> 'end_date') as end_date from webhook_events where topic = 'plan.updated' and (payload::jsonb -> 'plans' -> 0 ->> 'id')::int = $1`,
      [plan]
    )
    expect(updates.rows).toEqual([{ end_date: "2026-11-05" }])
    await runJob()
    expect((await endedEvents()).filter((id) => id === plan)).toHaveLength(1)
    clock.set("2026-11-06T09:00:00Z")
    await runJob()
    expect((await endedEvents()).filter((id) => id === plan)).toHaveLength(2)
  })

  it("is on the crontab and registered with the worker", () => {
    const item = parseCrontab(crontab).find((candidate) => candidate.task === "emit_ended_plans")
    expect(item).toBeDefined()
    expect(tasks).toHaveProperty("emit_ended_plans")
  })
})
