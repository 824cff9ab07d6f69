import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createBusiness, createPerson, createToken } from "../support/factories.ts"
import { createPlanProduct } from "../support/billing-factories.ts"
import { type ProcessGroup, startProcessGroup } from "../support/multi-process.ts"
import { type TestServer, startTestServer } from "../support/server.ts"
import { type Receiver, startReceiver } from "../webhooks/receiver.ts"

/**
 * Two `studio serve` and two `studio worker` processes on one database and one DATA_DIR, each an
 * OS process: jobs run once whichever worker takes them, and both API processes answer reports
 * from the generation the workers published last.
 */
let setup: TestServer
let group: ProcessGroup
let receiver: Receiver
let business: { id: number; subdomain: string }
let owner: { accountId: number; personId: number }
const dataDir = path.resolve(`.data/test/multi-workers-${process.pid}`)

beforeAll(async () => {
  fs.rmSync(dataDir, { recursive: true, force: true })
  receiver = await startReceiver()
  setup = await startTestServer()
  business = await createBusiness(setup.pool, { subdomain: "demo", time_zone: "UTC" })
  await setup.pool.query("update businesses set webhooks_enabled = true where id = $1", [business.id])
  owner = await createPerson(setup.pool, business.id, { role: "owner" })
  group = await startProcessGroup({ databaseUrl: setup.databaseUrl, dataDir, env: { REPORT_REFRESH_SECONDS: "1" } })
}, 180_000)

afterAll(async () => {
  await group?.stop()
  await setup?.close()
  await receiver?.close()
  fs.rmSync(dataDir, { recursive: true, force: true })
})

const via = (index: number) => group.api[index % group.api.length]!.request
const ownerToken = () => createToken(setup.pool, owner.accountId, business.id)

describe("webhooks with two workers", () => {
  it("delivers each event once", { timeout: 90_000 }, async () => {
    const token = await ownerToken()
    const subscribed = await via(0)("POST", "/api/v3/webhooks", {
      token,
      headers: { "content-type": "application/vnd.api+json" },
      body: JSON.stringify({ data: { type: "webhooks", attributes: { target: receiver.url("/once"), topic: "person.created" } } })
    })
    expect(subscribed.status, subscribed.text).toBe(201)
    const created: Array<number> = []
    for (let i = 0; i < 12; i++) {
      const response = await via(i)("POST", "/api/v2/desk/people", { token, body: { person: { first_name: `W${i}`, last_name: "Webhook" } } })
      expect(response.status, response.text).toBe(201)
      created.push(response.json.people[0].id)
    }
    await receiver.waitFor((all) => all.filter((r) => r.path === "/once").length >= 12, "12 deliveries", 60_000)
    // Every webhook job has run (none left waiting or locked): a second delivery would be in by now.
    const pendingJobs = async () =>
      (await setup.pool.query(
        `select count(*)::int as n from graphile_worker.jobs where task_identifier in ('webhook_fanout', 'deliver_webhook')`
      )).rows[0].n as number
    for (let i = 0; i < 100 && (await pendingJobs()) > 0; i++) await new Promise((resolve) => setTimeout(resolve, 100))
    expect(await pendingJobs()).toBe(0)
    const once = receiver.received.filter((r) => r.path === "/once")
    expect(once).toHaveLength(12)
    expect(new Set(once.map((r) => r.headers["webhook-id"])).size).toBe(12)
    expect(once.map((r) => r.json.people[0].id).sort()).toEqual([...created].sort())
  })
})

describe("reports with two API processes", () => {
  const firstName = async (index: number, token: string, personId: number): Promise<unknown> => {
    const response = await via(index)("POST", "/desk/api/v3/reports/clients/queries", {
      token,
      body: { data: { type: "queries", attributes: { fields: ["first_name"], filter: ["eq", "person_id", personId] } } }
    })
    return response.status === 200 ? response.json.data.attributes.rows[0]?.[0] : `status ${response.status}`
  }
  const eventually = async (predicate: () => Promise<boolean>, what: string, timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs
    while (!(await predicate())) {
      if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`)
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
  }

  it("both answer from the published generation, and a change through the Core API shows in both within 60 s", { timeout: 120_000 }, async () => {
    const token = await ownerToken()
    const person = await createPerson(setup.pool, business.id, { first_name: "Before", last_name: "Change" })
    await setup.pool.query(`select graphile_worker.add_job('report_sync', '{"mode":"incremental"}'::json,
      queue_name => 'reports', job_key => 'report_sync_incremental')`)
    await eventually(async () => (await firstName(0, token, person.personId)) === "Before", "the first sync", 60_000)
    expect(await firstName(1, token, person.personId)).toBe("Before")

    const update = await via(1)("PUT", `/api/v2/desk/people/${person.personId}`, { token, body: { person: { first_name: "After" } } })
    expect(update.status, update.text).toBe(200)
    await eventually(async () => (await firstName(0, token, person.personId)) === "After", "the change in process 0", 60_000)
    // Published: the other process reads the same pointer at its next query.
    expect(await firstName(1, token, person.personId)).toBe("After")
  })
})

describe("automatic billing with two workers", () => {
  it("bills a membership's due period once, however many sweeps the two workers run at once", { timeout: 90_000 }, async () => {
    const token = await ownerToken()
    const product = (await createPlanProduct(setup.pool, business.id, {
      kind: "membership",
      price_cents: 3900,
      invoice_interval_count: 1,
      invoice_interval_unit: "monthly"
    })).id
    const payer = await createPerson(setup.pool, business.id, { first_name: "Mona", last_name: "Member" })
    const sale = await via(0)("POST", "/api/v2/desk/invoices", { token, body: { invoice: { payer_id: payer.personId, plan_products: [{ id: product }] } } })
    expect(sale.status, sale.text).toBe(201)
    const invoice = sale.json.invoices[0]
    const paid = await via(1)("POST", `/api/v2/desk/invoices/${invoice.id}/payments`, {
      token,
      body: { payment: { payment_method: "cash", amount_cents: invoice.total_cents } }
    })
    expect(paid.status, paid.text).toBe(201)
    const planId = (await setup.pool.query(
      `select r.plan_id::int from invoice_item_recipients r join invoice_items i on i.business_id = r.business_id and i.id = r.invoice_item_id
       where i.business_id = $1 and i.invoice_id = $2`,
      [business.id, invoice.id]
    )).rows[0].plan_id as number
    // Sold a month and two days ago: its first renewal is due.
    await setup.pool.query(`update plans set start_date = current_date - interval '1 month 2 days' where id = $1`, [planId])
    await setup.pool.query(`select graphile_worker.add_job('bill_memberships', '{}'::json) from generate_series(1, 6)`)
    const sweepsLeft = async () =>
      (await setup.pool.query(`select count(*)::int as n from graphile_worker.jobs where task_identifier = 'bill_memberships'`)).rows[0].n as number
    for (let i = 0; i < 200 && (await sweepsLeft()) > 0; i++) await new Promise((resolve) => setTimeout(resolve, 100))
    expect(await sweepsLeft()).toBe(0)
    const periods = await setup.pool.query(`select invoice_id::int from membership_billing_periods where business_id = $1 and plan_id = $2`, [
      business.id,
      planId
    ])
    expect(periods.rows).toHaveLength(1)
    const invoices = await setup.pool.query(`select count(*)::int as n from invoices where business_id = $1 and person_id = $2`, [
      business.id,
      payer.personId
    ])
    expect(invoices.rows[0].n).toBe(2)
  })
})

describe("idempotency keys over both API processes", () => {
  it("ten concurrent payments with one Idempotency-Key, spread over both processes: one payment, one answer", { timeout: 60_000 }, async () => {
    const token = await ownerToken()
    const product = (await createPlanProduct(setup.pool, business.id, { kind: "membership", price_cents: 2500, invoice_interval_count: 1, invoice_interval_unit: "monthly" })).id
    const payer = await createPerson(setup.pool, business.id, { first_name: "Ida", last_name: "Empotent" })
    const sale = await via(0)("POST", "/api/v2/desk/invoices", { token, body: { invoice: { payer_id: payer.personId, plan_products: [{ id: product }] } } })
    expect(sale.status, sale.text).toBe(201)
    const invoice = sale.json.invoices[0]
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        via(i)("POST", `/api/v2/desk/invoices/${invoice.id}/payments`, {
          token,
          headers: { "idempotency-key": `pay-${invoice.id}` },
          body: { payment: { payment_method: "cash", amount_cents: invoice.total_cents } }
        }))
    )
    for (const response of responses) expect(response.status, response.text).toBe(201)
    expect(new Set(responses.map((response) => response.text)).size).toBe(1)
    const { rows } = await setup.pool.query(`select count(*)::int as n from payments where business_id = $1 and invoice_id = $2`, [
      business.id,
      invoice.id
    ])
    expect(rows[0].n).toBe(1)
  })
})
