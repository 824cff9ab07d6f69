import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createPlanProduct } from "../support/billing-factories.ts"
import { createApplication, createBusiness, createPerson, createToken } from "../support/factories.ts"
import { type TestServer, startTestServer } from "../support/server.ts"
import { runStudioCli } from "../support/cli.ts"
import { apiCaller } from "../support/http.ts"
import { createService } from "../schedule/fixtures.ts"
import { addVisits, createOccurrence, eventually, paysOf, setRate } from "./support.ts"

/**
 * Service pays follow an occurrence's attendance completed over HTTP (the job runs on the test
 * server's worker), commission pays follow an invoice closed through the Core API.
 */

let server: TestServer
let businessId: number
let token: string
let limitedToken: string
let ana: number
let ben: number
let noRate: number
let yoga: number
let massage: number
const clients: Array<number> = []

const studio = (...args: Array<string>) => runStudioCli({ DATABASE_URL: server.databaseUrl, LOG_LEVEL: "error" }, ["pays", ...args])

const put = (id: number, body: unknown, as = token) => server.request("PUT", `/api/v2/desk/event_occurrences/${id}`, { token: as, body })

beforeAll(async () => {
  server = await startTestServer({ worker: true })
  const pool = server.pool
  await createApplication(pool, "test-app")
  businessId = (await createBusiness(pool, { subdomain: "demo", time_zone: "America/Los_Angeles" })).id
  const owner = await createPerson(pool, businessId, { role: "owner" })
  token = await createToken(pool, owner.accountId, businessId)
  const limited = await createPerson(pool, businessId, { role: "limited" })
  limitedToken = await createToken(pool, limited.accountId, businessId)
  ana = (await createPerson(pool, businessId, { role: "standard", first_name: "Ana" })).staffMemberId!
  ben = (await createPerson(pool, businessId, { role: "standard", first_name: "Ben" })).staffMemberId!
  noRate = (await createPerson(pool, businessId, { role: "standard", first_name: "Nora" })).staffMemberId!
  yoga = await createService(pool, businessId, { type: "GroupClass", name: "Yoga" })
  massage = await createService(pool, businessId, { type: "Appointment", name: "Massage" })
  for (let i = 0; i < 12; i++) clients.push((await createPerson(pool, businessId)).personId)
  // Ana: a yoga rate with per-head and tiers; Ben: only a default rate; Nora: none.
  await setRate(pool, businessId, ana, yoga, { base: 3000, perHead: 200, minimum: 5, tiers: [[8, 500], [10, 1000]] })
  await setRate(pool, businessId, ana, null, { base: 9999, hourly: 6000 })
  await setRate(pool, businessId, ben, null, { base: 2500, perHead: 100, minimum: 10 })
}, 120_000)
afterAll(async () => {
  await server?.close()
})

describe("PUT /api/v2/desk/event_occurrences/:id (attendance_complete)", () => {
  it("records one pending service pay per staff member with a rate, exactly once", async () => {
    const id = await createOccurrence(server.pool, businessId, { serviceId: yoga, start: "2024-03-15T17:00:00Z", minutes: 90, staff: [ana, ben, noRate] })
    await addVisits(server.pool, businessId, id, clients.slice(0, 11))
    await addVisits(server.pool, businessId, id, clients.slice(11), "noshowed")
    const response = await put(id, { attendance_complete: true })
    expect(response.status, response.text).toBe(200)
    expect(response.json.event_occurrences[0]).toMatchObject({ id, attendance_complete: true })
    // Repeating it is harmless and enqueues nothing new.
    expect((await put(id, { attendance_complete: true })).status).toBe(200)
    const pays = await eventually(() => paysOf(server.pool, businessId), (rows) => rows.length >= 2)
    await new Promise((resolve) => setTimeout(resolve, 1000))
    expect(await paysOf(server.pool, businessId)).toHaveLength(2)
    // 11 completed visits: Ana 3000 + 200 × 6 + the 10-tier 1000; Ben's default 2500 + 100 × 1. Nora has no rate: no pay.
    expect(pays.map(({ id: _, ...pay }) => pay)).toEqual([
      {
        pay_type: "service", pay_state: "pending", staff_member_id: ana, service_id: yoga, event_occurrence_id: id, invoice_id: null,
        base_cents: 3000, per_head_cents: 1200, tiered_cents: 1000, final_cents: 5200, service_hours: 1.5,
        pay_period_start: "2024-03-01", pay_period_end: "2024-03-15"
      },
      {
        pay_type: "service", pay_state: "pending", staff_member_id: ben, service_id: yoga, event_occurrence_id: id, invoice_id: null,
        base_cents: 2500, per_head_cents: 100, tiered_cents: 0, final_cents: 2600, service_hours: 1.5,
        pay_period_start: "2024-03-01", pay_period_end: "2024-03-15"
      }
    ])
  })

  it("pays appointments by the hour, in the period of the occurrence's local date", async () => {
    // 2024-03-16 04:30 UTC is still the 15th in Los Angeles.
    const id = await createOccurrence(server.pool, businessId, { serviceId: massage, start: "2024-03-16T04:30:00Z", minutes: 45, staff: [ana] })
    await addVisits(server.pool, businessId, id, clients.slice(0, 1))
    expect((await put(id, { attendance_complete: true })).status).toBe(200)
    const pays = await eventually(
      async () => (await paysOf(server.pool, businessId)).filter((p) => p.event_occurrence_id === id),
      (rows) => rows.length > 0
    )
    expect(pays).toMatchObject([{ staff_member_id: ana, base_cents: 4500, final_cents: 4500, service_hours: 0.75, pay_period_end: "2024-03-15" }])
  })

  it("refuses limited staff, a bad body, an occurrence that is not active and another business's id", async () => {
    const id = await createOccurrence(server.pool, businessId, { serviceId: yoga, start: "2024-04-01T17:00:00Z", minutes: 60, staff: [ana] })
    const limited = await put(id, { attendance_complete: true }, limitedToken)
    expect(limited.status).toBe(403)
    expect(limited.json.errors[0]).toContain("standard staff")
    const bad = await put(id, { attendance_complete: "yes" })
    expect(bad.status).toBe(400)
    expect(bad.json.errors.length).toBeGreaterThan(0)
    expect((await put(id, { attendance_complete: false })).status).toBe(400)
    const canceled = await createOccurrence(server.pool, businessId, { serviceId: yoga, start: "2024-04-02T17:00:00Z", minutes: 60, staff: [ana], state: "canceled" })
    const refused = await put(canceled, { attendance_complete: true })
    expect(refused.status).toBe(422)
    expect(refused.json.errors[0]).toContain("canceled")
    const other = (await createBusiness(server.pool, { subdomain: "other" })).id
    const foreignService = await createService(server.pool, other, { type: "GroupClass", name: "Other" })
    const foreign = await createOccurrence(server.pool, other, { serviceId: foreignService, start: "2024-04-01T17:00:00Z", minutes: 60, staff: [] })
    expect((await put(foreign, { attendance_complete: true })).status).toBe(404)
    const flags = await server.pool.query(`select id::int, attendance_complete from event_occurrences where id = any($1) order by id`, [[id, canceled, foreign]])
    expect(flags.rows.map((r) => r.attendance_complete)).toEqual([false, false, false])
  })
})

describe("commission pays", () => {
  it("records the commission recipient's pay when an invoice closes, on revenue without tax", async () => {
    const pool = server.pool
    await pool.query(`insert into staff_commission_rates (business_id, staff_member_id, basis_points) values ($1, $2, 1250)`, [businessId, ben])
    const product = (await createPlanProduct(pool, businessId, { kind: "pack", name: "Five", count: 5, price_cents: 10001 })).id
    const tax = await pool.query(`insert into sales_taxes (business_id, name, tax_rate, inclusive) values ($1, 'State', 8.875, false) returning id`, [businessId])
    await pool.query(`insert into plan_product_sales_taxes (business_id, plan_product_id, sales_tax_id) values ($1, $2, $3)`, [businessId, product, tax.rows[0].id])
    const desk = apiCaller("/api/v2/desk", () => ({ request: server.request, token }))
    const created = await desk("POST", "/invoices", { invoice: { payer_id: clients[0], plan_products: [{ id: product }] } })
    expect(created.status, created.text).toBe(201)
    const invoice = created.json.invoices[0] as { id: number; total_cents: number }
    expect((await desk("PUT", `/invoices/${invoice.id}`, { invoice: { commission_recipient_id: ben, tip_recipient_id: ana } })).status).toBe(200)
    const paid = await desk("POST", `/invoices/${invoice.id}/payments`, { payment: { payment_method: "cash", amount_cents: invoice.total_cents } })
    expect(paid.status, paid.text).toBe(201)
    const pays = await eventually(
      async () => (await paysOf(pool, businessId)).filter((p) => p.pay_type === "commission"),
      (rows) => rows.length > 0
    )
    // 12.5 % of 10001 = 1250.125 → 1250 (the tax is not commissioned).
    expect(pays).toMatchObject([{ pay_type: "commission", pay_state: "pending", staff_member_id: ben, invoice_id: invoice.id, final_cents: 1250, service_hours: 0 }])

    // The job again (a retry, a second worker): still one commission pay.
    await pool.query(`select graphile_worker.add_job('create_sale_pays', json_build_object('business_id', $1::bigint, 'invoice_id', $2::bigint))`, [businessId, invoice.id])
    const waiting = await eventually(
      async () => Number((await pool.query(`select count(*) from graphile_worker.jobs where task_identifier = 'create_sale_pays'`)).rows[0].count),
      (n) => n === 0
    )
    expect(waiting, "the repeated job succeeded").toBe(0)
    expect((await paysOf(pool, businessId)).filter((p) => p.pay_type === "commission")).toHaveLength(1)

    // No tip amount is stored with an invoice: the operator adds the tip pay for its tip recipient, once.
    const tip = await studio("add", "--type", "tip", "--invoice", String(invoice.id), "--staff", String(ana), "--amount-cents", "500", "--description", "Cash tip")
    expect(tip.code, tip.stderr).toBe(0)
    expect(JSON.parse(tip.stdout).pays[0]).toMatchObject({ pay_type: "tip", staff_member_id: ana, invoice_id: invoice.id, final_cents: 500 })
    const wrongStaff = await studio("add", "--type", "tip", "--invoice", String(invoice.id), "--staff", String(ben), "--amount-cents", "500", "--description", "Tip")
    expect(wrongStaff.code).toBe(1)
    expect(wrongStaff.stderr).toContain(`is not the tip recipient of invoice ${invoice.id}`)
    const again = await studio("add", "--type", "tip", "--invoice", String(invoice.id), "--staff", String(ana), "--amount-cents", "500", "--description", "Tip")
    expect(again.code).toBe(1)
    expect(again.stderr).toContain("already has a tip pay")
    expect((await paysOf(pool, businessId)).filter((p) => p.pay_type === "tip")).toHaveLength(1)
  }, 120_000)
})
