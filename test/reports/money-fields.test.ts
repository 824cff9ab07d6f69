import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { syncReports } from "../../reports/sync/sync.ts"
import { createPlanProduct } from "../support/billing-factories.ts"
import { createApplication, createBusiness, createPerson, createToken } from "../support/factories.ts"
import { type TestResponse, apiCaller } from "../support/http.ts"
import { type TestServer, startTestServer } from "../support/server.ts"
import { rowsOf, reportQuery } from "./support.ts"
import { createService } from "../schedule/fixtures.ts"

/**
 * The money fields of clients, enrollments and event occurrences, checked against the Core
 * API's own numbers: sales, payments, refunds (one to account credit) go through the Core API
 * over HTTP; stored cards and punches are written to SQL as the gateway import and the billing
 * code write them. Then a payment, and a card stored, reach the store at the next incremental
 * sync.
 */

let server: TestServer
const dataDir = path.resolve(`.data/test/reports-money-${process.pid}`)
const reportsDir = path.join(dataDir, "reports")
let business: { id: number }
let token: string
const people = {} as Record<"ann" | "cleo" | "dan", number>
const invoices = {} as Record<"taxed" | "vat" | "membership", number>
let occurrence: number

const sync = (mode: "full" | "incremental") => syncReports({ databaseUrl: server.databaseUrl, dir: reportsDir, mode })
const desk = apiCaller("/api/v2/desk", () => ({ request: server.request, token }))
const ok = (response: TestResponse, status = 201) => {
  expect(response.status, response.text).toBe(status)
  return response
}
const query = (resource: string, attributes: unknown) => reportQuery(server.request, resource, attributes, { token })

const sell = async (payer: number, product: number) =>
  (ok(await desk("POST", "/invoices", { invoice: { payer_id: payer, plan_products: [{ id: product }] } })).json.invoices[0] as { id: number }).id
const pay = async (id: number, cents: number) =>
  (ok(await desk("POST", `/invoices/${id}/payments`, { payment: { payment_method: "cash", amount_cents: cents } })).json.payments[0] as { id: number }).id

interface CoreInvoice {
  id: number
  state: string
  invoice_date: string
  total_cents: number
  outstanding_amount_cents: number
  payments: Array<{ state: string; amount_cents: number; refunds: Array<{ state: string; amount_cents: number }> }>
}
const coreInvoice = async (id: number) => ok(await desk("GET", `/invoices/${id}`), 200).json.invoices[0] as CoreInvoice
/** Settled payments less settled refunds, as the Core API shows them. */
const coreNetPaid = async (ids: ReadonlyArray<number>) => {
  let net = 0
  for (const id of ids) {
    for (const p of (await coreInvoice(id)).payments) {
      if (p.state === "settled") net += p.amount_cents
      for (const r of p.refunds) if (r.state === "settled") net -= r.amount_cents
    }
  }
  return net
}
const coreBalance = async (personId: number) =>
  (ok(await desk("GET", "/people?include_balances=true&per_page=100"), 200).json.people as Array<{ id: number; account_balance_cents: number }>).find(
    (p) => p.id === personId
  )!.account_balance_cents

const CLIENT_FIELDS = [
  "person_id",
  "net_paid_amount",
  "revenue_amount",
  "account_credit_amount",
  "last_invoice_amount",
  "last_invoice_date",
  "last_invoice_id",
  "last_invoice_unpaid",
  "has_payment_on_file"
]
const client = async (personId: number) =>
  rowsOf(await query("clients", { fields: CLIENT_FIELDS, filter: ["eq", "person_id", personId] }))[0]!

/** What the invoices report says a payer's net paid revenue is. */
const reportRevenue = async (personId: number) =>
  rowsOf(await query("invoices", { fields: ["total_net_paid_revenue_amount"], group: "invoice_payer_id", filter: ["eq", "invoice_payer_id", personId] }))[0]!
    .total_net_paid_revenue_amount

const card = (personId: number, year: number, month: number) =>
  server.pool.query(
    `insert into forms_of_payment (business_id, person_id, type, gateway_token, card_type, expire_month, expire_year, last_four)
     values ($1, $2, 'creditcard', $3, 'visa', $4, $5, '4242')`,
    [business.id, personId, `tok_${personId}_${year}_${month}`, month, year]
  )

beforeAll(async () => {
  fs.rmSync(dataDir, { recursive: true, force: true })
  server = await startTestServer({ dataDir })
  const pool = server.pool
  await createApplication(pool, "test-app")
  business = await createBusiness(pool, { subdomain: "demo", name: "Money Studio", time_zone: "America/Los_Angeles" })
  const owner = await createPerson(pool, business.id, { role: "owner", first_name: "Olga", last_name: "Owner" })
  token = await createToken(pool, owner.accountId, business.id)
  for (const name of ["ann", "cleo", "dan"] as const) {
    people[name] = (await createPerson(pool, business.id, { first_name: name, last_name: "Client" })).personId
  }
  const taxedPack = (await createPlanProduct(pool, business.id, { kind: "pack", name: "Five classes", count: 5, price_cents: 10000 })).id
  const vatPack = (await createPlanProduct(pool, business.id, { kind: "pack", name: "Ten classes", count: 10, price_cents: 12000 })).id
  const membership = (await createPlanProduct(pool, business.id, { kind: "membership", name: "Unlimited", price_cents: 5000, consider_member: true })).id
  const tax = async (name: string, rate: number, inclusive: boolean) =>
    Number((await pool.query(`insert into sales_taxes (business_id, name, tax_rate, inclusive) values ($1, $2, $3, $4) returning id`, [business.id, name, rate, inclusive])).rows[0].id)
  await pool.query(`insert into plan_product_sales_taxes (business_id, plan_product_id, sales_tax_id) values ($1, $2, $3), ($1, $4, $5)`, [
    business.id,
    taxedPack,
    await tax("State tax", 8.875, false),
    vatPack,
    await tax("VAT", 20, true)
  ])

  // Cleo: 10888 (888 exclusive tax) paid in full, 1000 of it refunded to account credit; then
  // 12000 (2000 VAT inside) opened and paid 2000: her last invoice, open and unpaid.
  invoices.taxed = await sell(people.cleo, taxedPack)
  const payment = await pay(invoices.taxed, 10888)
  ok(await desk("POST", `/invoices/${invoices.taxed}/payments/${payment}/refunds`, { refund: { amount_cents: 1000, payment_type_id: 5 } }))
  invoices.vat = await sell(people.cleo, vatPack)
  ok(await desk("PUT", `/invoices/${invoices.vat}`, { invoice: { state_event: "open" } }), 200)
  await pay(invoices.vat, 2000)
  // Dan: a membership paid in full; a card that expired last year, none usable.
  invoices.membership = await sell(people.dan, membership)
  await pay(invoices.membership, 5000)
  await card(people.dan, new Date().getUTCFullYear() - 1, 12)
  // Cleo's card runs to the end of next year.
  await card(people.cleo, new Date().getUTCFullYear() + 1, 12)

  // One class today: Cleo's visit paid by her taxed pack, Dan's by his membership, Ann's unpaid;
  // Dan's membership paid one more visit before.
  const serviceId = await createService(pool, business.id, { type: "GroupClass", name: "Vinyasa" })
  const session = async (startsAt: string) =>
    Number(
      (
        await pool.query(
          `insert into event_occurrences (business_id, service_id, name, start_at, end_at, time_zone)
           values ($1, $2, 'Vinyasa', $3::timestamptz, $3::timestamptz + interval '1 hour', 'America/Los_Angeles') returning id`,
          [business.id, serviceId, startsAt]
        )
      ).rows[0].id
    )
  occurrence = await session(new Date(Date.now() - 3 * 3_600_000).toISOString())
  const earlier = await session(new Date(Date.now() - 27 * 3_600_000).toISOString())
  const planOf = async (invoiceId: number) =>
    Number(
      (
        await pool.query(
          `select r.plan_id from invoice_item_recipients r join invoice_items it on it.business_id = r.business_id and it.id = r.invoice_item_id
            where it.business_id = $1 and it.invoice_id = $2 and r.plan_id is not null`,
          [business.id, invoiceId]
        )
      ).rows[0].plan_id
    )
  const visit = async (o: number, personId: number, planId: number | null) => {
    const v = Number(
      (await pool.query(`insert into visits (business_id, event_occurrence_id, person_id, state) values ($1, $2, $3, 'completed') returning id`, [business.id, o, personId]))
        .rows[0].id
    )
    if (planId === null) return
    const punch = await pool.query(
      `insert into punches (business_id, visit_id, plan_id, person_id, visit_date) values ($1, $2, $3, $4, current_date) returning id`,
      [business.id, v, planId, personId]
    )
    await pool.query(`update visits set punch_id = $3 where business_id = $1 and id = $2`, [business.id, v, Number(punch.rows[0].id)])
  }
  await visit(occurrence, people.cleo, await planOf(invoices.taxed))
  await visit(occurrence, people.dan, await planOf(invoices.membership))
  await visit(occurrence, people.ann, null)
  await visit(earlier, people.dan, await planOf(invoices.membership))
  await sync("full")
}, 180_000)

afterAll(async () => {
  await server?.close()
  fs.rmSync(dataDir, { recursive: true, force: true })
})

describe("clients' money fields", () => {
  it("equal the Core API's payments, refunds, balances and invoices", async () => {
    const cleo = await client(people.cleo)
    const vat = await coreInvoice(invoices.vat)
    expect(cleo).toEqual({
      person_id: people.cleo,
      net_paid_amount: await coreNetPaid([invoices.taxed, invoices.vat]),
      revenue_amount: await reportRevenue(people.cleo),
      account_credit_amount: await coreBalance(people.cleo),
      last_invoice_amount: vat.total_cents,
      last_invoice_date: vat.invoice_date,
      last_invoice_id: vat.id,
      last_invoice_unpaid: "t",
      has_payment_on_file: "t"
    })
    // The figures themselves: 10888 − 1000 + 2000; revenue 9888 − round(9888 × 888 / 10888) + 2000 − round(2000 × 2000 / 12000).
    expect(cleo).toMatchObject({ net_paid_amount: 11888, revenue_amount: 9888 - 806 + 2000 - 333, account_credit_amount: 1000, last_invoice_amount: 12000 })

    const membership = await coreInvoice(invoices.membership)
    expect(membership.state).toBe("closed")
    expect(await client(people.dan)).toEqual({
      person_id: people.dan,
      net_paid_amount: 5000,
      revenue_amount: 5000,
      account_credit_amount: 0,
      last_invoice_amount: 5000,
      last_invoice_date: membership.invoice_date,
      last_invoice_id: membership.id,
      last_invoice_unpaid: "f",
      has_payment_on_file: "f"
    })
    expect(await client(people.ann)).toEqual({
      person_id: people.ann,
      net_paid_amount: 0,
      revenue_amount: 0,
      account_credit_amount: 0,
      last_invoice_amount: null,
      last_invoice_date: null,
      last_invoice_id: null,
      last_invoice_unpaid: "f",
      has_payment_on_file: "f"
    })
    const [totals] = rowsOf(
      await query("clients", {
        fields: ["total_net_paid_amount", "total_revenue_amount", "total_account_credit_amount", "has_payment_on_file_count", "last_invoice_unpaid_count"],
        group: "business_id"
      })
    )
    expect(totals).toEqual({
      group_label: business.id,
      total_net_paid_amount: 16888,
      total_revenue_amount: 9888 - 806 + 2000 - 333 + 5000,
      total_account_credit_amount: 1000,
      has_payment_on_file_count: 1,
      last_invoice_unpaid_count: 1
    })
  })
})

describe("enrollments' and event occurrences' money fields", () => {
  it("attribute plan revenue to visits: a pack's by its visit count, a membership's by its visits so far", async () => {
    const rows = rowsOf(
      await query("enrollments", {
        fields: ["person_id", "is_paid", "paid_with_type", "estimated_amount"],
        filter: ["eq", "event_occurrence_id", occurrence],
        sort: ["person_id+"]
      })
    )
    expect(rows).toEqual([
      { person_id: people.ann, is_paid: "f", paid_with_type: "unpaid", estimated_amount: 0 },
      // (10888 − 888) ÷ 5.
      { person_id: people.cleo, is_paid: "t", paid_with_type: "pack", estimated_amount: 2000 },
      // 5000 ÷ 2 visits.
      { person_id: people.dan, is_paid: "t", paid_with_type: "membership", estimated_amount: 2500 }
    ])
    const [sums] = rowsOf(await query("enrollments", { fields: ["total_visits_amount", "avg_per_visit_amount"], group: "business_id" }))
    expect(sums).toMatchObject({ total_visits_amount: 2000 + 2500 + 2500 })
    const [session] = rowsOf(
      await query("event_occurrences", { fields: ["paid_count", "completed_unpaid_count", "completed_enrollment_count"], filter: ["eq", "event_occurrence_id", occurrence] })
    )
    expect(session).toEqual({ paid_count: 2, completed_unpaid_count: 1, completed_enrollment_count: 3 })
  })
})

describe("freshness", () => {
  /**
   * Everything written so far is made an hour old and the store rebuilt, so the next incremental
   * sync sees only what follows (it re-reads two minutes back for late commits): a payment that
   * leaves the invoice open (no plan change) and a stored card, found only through the money.
   */
  const age = async () => {
    for (const [table, columns] of [
      ["businesses", ["created_at", "updated_at"]],
      ["people", ["created_at", "updated_at"]],
      ["accounts", ["updated_at"]],
      ["staff_members", ["created_at", "updated_at"]],
      ["event_occurrences", ["created_at", "updated_at"]],
      ["visits", ["created_at", "updated_at"]],
      ["plans", ["updated_at"]],
      ["plan_products", ["updated_at"]],
      ["report_plan_changes", ["changed_at"]],
      ["report_invoice_changes", ["changed_at"]],
      ["forms_of_payment", ["created_at", "updated_at"]],
      ["account_credit_entries", ["created_at"]]
    ] as const) {
      await server.pool.query(`update ${table} set ${columns.map((c) => `${c} = ${c} - interval '1 hour'`).join(", ")}`)
    }
    expect((await sync("full")).outcome).toBe("full")
  }

  it("shows a payment and a stored card on the payer's client row at the next incremental sync", async () => {
    await age()
    await pay(invoices.vat, 5000)
    await card(people.ann, new Date().getUTCFullYear() + 2, 1)
    expect((await sync("incremental")).outcome).toBe("incremental")
    expect(await client(people.cleo)).toMatchObject({
      net_paid_amount: await coreNetPaid([invoices.taxed, invoices.vat]),
      revenue_amount: await reportRevenue(people.cleo),
      last_invoice_unpaid: "t"
    })
    expect((await client(people.cleo)).net_paid_amount).toBe(16888)
    expect((await client(people.ann)).has_payment_on_file).toBe("t")
  })
})
