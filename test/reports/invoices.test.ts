import { DuckDBInstance } from "@duckdb/node-api"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { invoicesCatalog } from "../../reports/catalog/invoices.ts"
import { readCurrent } from "../../reports/sync/generations.ts"
import { syncReports } from "../../reports/sync/sync.ts"
import { DUCKDB_OPTIONS } from "../../reports/sync/copy.ts"
import { createPlanProduct } from "../support/billing-factories.ts"
import { createApplication, createBusiness, createLocation, createPerson, createToken } from "../support/factories.ts"
import { type TestResponse, apiCaller } from "../support/http.ts"
import { type TestServer, startTestServer } from "../support/server.ts"
import { rowsOf, reportQuery } from "./support.ts"

/**
 * The invoices report reconciled with the Core API: invoices are sold, opened, paid in part,
 * paid in full, refunded and couponed through the Core API over HTTP only (sales taxes and
 * coupons are configuration, written as the billing tests write them); the report's totals must
 * equal what the Core API answers for the same invoices, to the cent, after a full sync and
 * again after further payments reach the store by the incremental sync.
 */

let server: TestServer
const dataDir = path.resolve(`.data/test/reports-invoices-${process.pid}`)
const reportsDir = path.join(dataDir, "reports")
let business: { id: number }
let token: string
let ownerStaffId: number
let cleo: number
let main: number
let taxedPack: number
let vatPack: number

const sync = (mode: "full" | "incremental") => syncReports({ databaseUrl: server.databaseUrl, dir: reportsDir, mode })
const desk = apiCaller("/api/v2/desk", () => ({ request: server.request, token }))

const query = (attributes: unknown) => reportQuery(server.request, "invoices", attributes, { token })


/**
 * The business's invoices in the current generation's newest rows, as stored, and its dated
 * invoices newest first (then by id): the newest rows' table holds them all in that order
 * (fewer than NEWEST_ROWS, reports/sync/newest-rows.ts).
 */
const newestRows = async () => {
  const instance = await DuckDBInstance.create(path.join(reportsDir, readCurrent(reportsDir)!.file), { ...DUCKDB_OPTIONS, access_mode: "READ_ONLY" })
  try {
    const connection = await instance.connect()
    const ids = async (sql: string) => (await connection.runAndReadAll(sql)).getRows().map(([id]) => Number(id))
    const stored = await ids(`SELECT invoice_id FROM invoices_newest WHERE business_id = ${business.id}`)
    const newestFirst = await ids(`SELECT invoice_id FROM invoices WHERE business_id = ${business.id} AND closed_at IS NOT NULL ORDER BY closed_at DESC, invoice_id`)
    connection.closeSync()
    return { stored, newestFirst }
  } finally {
    instance.closeSync()
  }
}

const ok = (response: TestResponse, status = 201) => {
  expect(response.status, response.text).toBe(status)
  return response
}

const sell = async (product: number, extra: Record<string, unknown> = {}) =>
  ok(await desk("POST", "/invoices", { invoice: { payer_id: cleo, plan_products: [{ id: product }], ...extra } })).json.invoices[0] as {
    id: number
    total_cents: number
  }
const open = async (id: number) => ok(await desk("PUT", `/invoices/${id}`, { invoice: { state_event: "open" } }), 200)
const pay = async (id: number, cents: number) =>
  ok(await desk("POST", `/invoices/${id}/payments`, { payment: { payment_method: "cash", amount_cents: cents } })).json.payments[0] as { id: number }
const refund = async (id: number, paymentId: number, cents: number) =>
  ok(await desk("POST", `/invoices/${id}/payments/${paymentId}/refunds`, { refund: { amount_cents: cents } }))

interface CoreInvoice {
  id: number
  state: string
  total_cents: number
  outstanding_amount_cents: number
  payments: Array<{ state: string; amount_cents: number; refunds: Array<{ state: string; amount_cents: number }> }>
}
const coreInvoice = async (id: number) => ok(await desk("GET", `/invoices/${id}`), 200).json.invoices[0] as CoreInvoice

/** The Core API's own figures for the invoices out of the cart, summed. */
const coreTotals = async (ids: ReadonlyArray<number>) => {
  const invoices = (await Promise.all(ids.map(coreInvoice))).filter((i) => i.state !== "cart" && i.state !== "cart_hidden")
  const settled = <T extends { state: string; amount_cents: number }>(items: ReadonlyArray<T>) =>
    items.filter((item) => item.state === "settled").reduce((sum, item) => sum + item.amount_cents, 0)
  const payments = invoices.reduce((sum, i) => sum + settled(i.payments), 0)
  const refunds = invoices.reduce((sum, i) => sum + i.payments.reduce((s, p) => s + settled(p.refunds), 0), 0)
  return {
    invoice_count: invoices.length,
    total_expected_amount: invoices.reduce((sum, i) => sum + i.total_cents, 0),
    total_outstanding_amount: invoices.reduce((sum, i) => sum + i.outstanding_amount_cents, 0),
    total_payments_amount: payments,
    total_refunds_amount: -refunds,
    total_net_paid_amount: payments - refunds
  }
}

const TOTALS = ["invoice_count", "total_expected_amount", "total_outstanding_amount", "total_payments_amount", "total_refunds_amount", "total_net_paid_amount"]

/** Today in Los Angeles, and the first of its month. */
const localToday = () => new Intl.DateTimeFormat("en-CA", { timeZone: "America/Los_Angeles" }).format(new Date())

const ids = {} as Record<"exclusive" | "inclusive" | "coupon" | "cart", number>
let inclusivePayment: number

/**
 * The invoices are made now and compared with today's date in Los Angeles: a run that starts in
 * the last minutes of its day waits for the next one, so data and checks share one date.
 */
const awayFromMidnight = async () => {
  const [hour, minute] = new Intl.DateTimeFormat("en-GB", { timeZone: "America/Los_Angeles", hour: "2-digit", minute: "2-digit", hourCycle: "h23" })
    .format(new Date())
    .split(":")
    .map(Number)
  const left = (24 * 60 - (hour! * 60 + minute!)) * 60_000
  if (left <= 2 * 60_000) await new Promise((resolve) => setTimeout(resolve, left + 5_000))
}

beforeAll(async () => {
  await awayFromMidnight()
  fs.rmSync(dataDir, { recursive: true, force: true })
  server = await startTestServer({ dataDir })
  const pool = server.pool
  await createApplication(pool, "test-app")
  business = await createBusiness(pool, { subdomain: "demo", name: "Sales Studio", time_zone: "America/Los_Angeles" })
  main = (await createLocation(pool, business.id, { name: "Main", time_zone: "America/Los_Angeles" })).id
  const owner = await createPerson(pool, business.id, { role: "owner", first_name: "Olga", last_name: "Owner" })
  token = await createToken(pool, owner.accountId, business.id)
  ownerStaffId = owner.staffMemberId!
  cleo = (await createPerson(pool, business.id, { first_name: "Cleo", last_name: "Client", email: "cleo@example.com" })).personId
  taxedPack = (await createPlanProduct(pool, business.id, { kind: "pack", name: "Five classes", count: 5, price_cents: 10000 })).id
  vatPack = (await createPlanProduct(pool, business.id, { kind: "pack", name: "Ten classes", count: 10, price_cents: 12000 })).id
  const tax = async (name: string, rate: number, inclusive: boolean) =>
    Number((await pool.query(`insert into sales_taxes (business_id, name, tax_rate, inclusive) values ($1, $2, $3, $4) returning id`, [business.id, name, rate, inclusive])).rows[0].id)
  const state = await tax("State tax", 8.875, false)
  const vat = await tax("VAT", 20, true)
  await pool.query(`insert into plan_product_sales_taxes (business_id, plan_product_id, sales_tax_id) values ($1, $2, $3), ($1, $4, $5)`, [
    business.id,
    taxedPack,
    state,
    vatPack,
    vat
  ])
  await pool.query(`insert into coupons (business_id, code, name, discount_percent) values ($1, 'TENOFF', 'Ten percent', 10)`, [business.id])

  // Exclusive tax: 10000 + 888 = 10888, opened and paid 4000 in part.
  const exclusive = await sell(taxedPack)
  expect(exclusive.total_cents).toBe(10888)
  ids.exclusive = exclusive.id
  await open(exclusive.id)
  await pay(exclusive.id, 4000)
  // Inclusive tax: 12000 with 2000 of VAT in it, paid in full (closes), then 3000 refunded.
  const inclusive = await sell(vatPack)
  expect(inclusive.total_cents).toBe(12000)
  ids.inclusive = inclusive.id
  ok(await desk("PUT", `/invoices/${inclusive.id}`, { invoice: { location_id: main } }), 200)
  inclusivePayment = (await pay(inclusive.id, 12000)).id
  expect((await coreInvoice(inclusive.id)).state).toBe("closed")
  await refund(inclusive.id, inclusivePayment, 3000)
  // A coupon: 10000 − 1000 = 9000, tax 798.75 → 799, total 9799; opened, nothing paid.
  const couponed = await sell(taxedPack)
  ids.coupon = couponed.id
  ok(await desk("PUT", `/invoices/${couponed.id}`, { invoice: { coupon_code: "TENOFF" } }), 200)
  expect((await coreInvoice(couponed.id)).total_cents).toBe(9799)
  await open(couponed.id)
  // A cart left as it is: a checkout in progress, not reported.
  ids.cart = (await sell(taxedPack)).id
  await sync("full")
}, 300_000)

afterAll(async () => {
  await server?.close()
  fs.rmSync(dataDir, { recursive: true, force: true })
})

describe("the invoices report", () => {
  it("reconciles its totals with the Core API to the cent, carts left out", async () => {
    const [row] = rowsOf(await query({ fields: TOTALS, group: "business_id" }))
    expect(row).toEqual({ group_label: business.id, ...(await coreTotals(Object.values(ids))) })
    // The figures themselves, so a wrong Core API reading cannot hide a wrong report.
    expect(row).toMatchObject({
      invoice_count: 3,
      total_expected_amount: 10888 + 12000 + 9799,
      total_outstanding_amount: 6888 + 0 + 9799,
      total_payments_amount: 16000,
      total_refunds_amount: -3000,
      total_net_paid_amount: 13000
    })
  })

  it("gives each invoice its money: gross, taxes, coupon, payments, refunds and the ratio splits", async () => {
    const fields = [
      "invoice_id",
      "invoice_state",
      "gross_amount",
      "adjustments_amount",
      "discounts_amount",
      "coupons_amount",
      "expected_amount",
      "expected_tax_amount",
      "expected_revenue_amount",
      "payments_amount",
      "refunds_amount",
      "net_paid_amount",
      "net_paid_tax_amount",
      "net_paid_revenue_amount",
      "outstanding_amount",
      "outstanding_tax_amount",
      "outstanding_revenue_amount",
      "refunded_transactions",
      "failed_transactions",
      "voided_transactions",
      "invoice_payer_id",
      "invoice_payer_name",
      "invoice_payer_email",
      "created_by_client",
      "created_by_name",
      "sale_location_name",
      "purchase_request_state",
      "purchase_order_number",
      "currency_code"
    ]
    const rows = rowsOf(await query({ fields, sort: ["invoice_id+"] }))
    const byId = new Map(rows.map((r) => [r.invoice_id, r]))
    expect(byId.has(ids.cart)).toBe(false)
    const common = {
      invoice_payer_id: cleo,
      invoice_payer_name: "Cleo Client",
      invoice_payer_email: "cleo@example.com",
      created_by_client: "f",
      created_by_name: "Olga Owner",
      purchase_request_state: "not_applicable",
      purchase_order_number: null,
      currency_code: "USD",
      adjustments_amount: 0,
      failed_transactions: 0,
      voided_transactions: 0
    }
    // Net paid 4000 of 10888 with 888 tax: tax share round(4000 × 888 / 10888) = 326.
    expect(byId.get(ids.exclusive)).toMatchObject({
      ...common,
      invoice_state: "open",
      gross_amount: 10000,
      discounts_amount: 0,
      coupons_amount: 0,
      expected_amount: 10888,
      expected_tax_amount: 888,
      expected_revenue_amount: 10000,
      payments_amount: 4000,
      refunds_amount: 0,
      net_paid_amount: 4000,
      net_paid_tax_amount: 326,
      net_paid_revenue_amount: 3674,
      outstanding_amount: 6888,
      outstanding_tax_amount: 562,
      outstanding_revenue_amount: 6326,
      refunded_transactions: 0,
      sale_location_name: null
    })
    // Inclusive VAT is in the gross; net paid 9000 carries 9000 × 2000 / 12000 = 1500 of tax.
    expect(byId.get(ids.inclusive)).toMatchObject({
      ...common,
      invoice_state: "closed",
      gross_amount: 12000,
      expected_amount: 12000,
      expected_tax_amount: 2000,
      expected_revenue_amount: 10000,
      payments_amount: 12000,
      refunds_amount: -3000,
      net_paid_amount: 9000,
      net_paid_tax_amount: 1500,
      net_paid_revenue_amount: 7500,
      outstanding_amount: 0,
      outstanding_tax_amount: 0,
      refunded_transactions: 1,
      sale_location_name: "Main"
    })
    // The coupon is a coupon, not a discount: 10000 − 1000 + 799 = 9799.
    expect(byId.get(ids.coupon)).toMatchObject({
      invoice_state: "open",
      gross_amount: 10000,
      discounts_amount: 0,
      coupons_amount: -1000,
      expected_amount: 9799,
      expected_tax_amount: 799,
      outstanding_amount: 9799,
      outstanding_tax_amount: 799,
      net_paid_amount: 0
    })
  })

  it("groups by invoice_state and by the closed month, and filters on the state", async () => {
    const byState = rowsOf(await query({ fields: ["invoice_count", "total_expected_amount", "total_outstanding_amount"], group: "invoice_state" }))
    expect(byState).toEqual([
      { group_label: "closed", invoice_count: 1, total_expected_amount: 12000, total_outstanding_amount: 0 },
      { group_label: "open", invoice_count: 2, total_expected_amount: 10888 + 9799, total_outstanding_amount: 6888 + 9799 }
    ])
    const today = localToday()
    const byMonth = rowsOf(await query({ fields: ["invoice_count", "total_net_paid_amount"], group: "closed_month_start_date" }))
    expect(byMonth).toEqual([
      { group_label: `${today.slice(0, 7)}-01`, invoice_count: 1, total_net_paid_amount: 9000 },
      { group_label: null, invoice_count: 2, total_net_paid_amount: 4000 }
    ])
    const closed = rowsOf(await query({ fields: ["invoice_id", "closed_date", "issued_date", "invoice_due_date"], filter: ["eq", "invoice_state", "closed"] }))
    expect(closed).toEqual([{ invoice_id: ids.inclusive, closed_date: today, issued_date: today, invoice_due_date: today }])
    const unknown = await query({ fields: ["invoice_id"], filter: ["eq", "invoice_state", "cart"] })
    expect(unknown.status).toBe(400)
  })

  it("takes payments and refunds into the store on the next incremental sync", async () => {
    await pay(ids.exclusive, 6888)
    await pay(ids.coupon, 5000)
    await refund(ids.inclusive, inclusivePayment, 1000)
    const summary = await sync("incremental")
    expect(summary.outcome).toBe("incremental")
    expect(summary.rows.invoices).toBe(3)
    // The refresh built the newest rows again, the invoice it closed first among them.
    const { stored, newestFirst } = await newestRows()
    expect(stored).toEqual(newestFirst)
    expect(stored).toHaveLength(2)
    expect(stored[0]).toBe(ids.exclusive)
    const [row] = rowsOf(await query({ fields: TOTALS, group: "business_id" }))
    expect(row).toEqual({ group_label: business.id, ...(await coreTotals(Object.values(ids))) })
    expect(row).toMatchObject({ total_outstanding_amount: 4799, total_payments_amount: 27888, total_refunds_amount: -4000 })
    const states = rowsOf(await query({ fields: ["invoice_id", "invoice_state", "outstanding_amount"], sort: ["invoice_id+"] }))
    expect(states).toEqual([
      { invoice_id: ids.exclusive, invoice_state: "closed", outstanding_amount: 0 },
      { invoice_id: ids.inclusive, invoice_state: "closed", outstanding_amount: 0 },
      { invoice_id: ids.coupon, invoice_state: "open", outstanding_amount: 4799 }
    ])
    // Nothing changed since: the next refresh copies nothing.
    expect((await sync("incremental")).outcome).toBe("unchanged")
  })

  it("counts a voided payment, names the commission recipient and reports a canceled invoice with nothing outstanding", async () => {
    const sold = await sell(vatPack)
    const voided = await pay(sold.id, 2000)
    ok(await desk("DELETE", `/invoices/${sold.id}/payments/${voided.id}`), 200)
    ok(await desk("PUT", `/invoices/${sold.id}`, { invoice: { commission_recipient_id: ownerStaffId } }), 200)
    await open(sold.id)
    ok(await desk("PUT", `/invoices/${sold.id}`, { invoice: { state_event: "canceled" } }), 200)
    expect((await sync("incremental")).outcome).toBe("incremental")
    const [row] = rowsOf(
      await query({
        fields: ["invoice_state", "voided_transactions", "payments_amount", "outstanding_amount", "expected_amount", "commission_recipient_name"],
        filter: ["eq", "invoice_id", sold.id]
      })
    )
    expect(row).toEqual({
      invoice_state: "canceled",
      voided_transactions: 1,
      payments_amount: 0,
      outstanding_amount: 0,
      expected_amount: 12000,
      commission_recipient_name: "Olga Owner"
    })
    const [totals] = rowsOf(await query({ fields: TOTALS, group: "business_id" }))
    expect(totals).toEqual({ group_label: business.id, ...(await coreTotals([...Object.values(ids), sold.id])) })
  })

  it("filters with btw on currency and dates, and groups by the due and issued buckets", async () => {
    const today = localToday()
    const between = rowsOf(await query({ fields: ["invoice_id"], filter: ["btw", "expected_amount", 9799, 10888], sort: ["invoice_id+"] }))
    expect(between).toEqual([{ invoice_id: ids.exclusive }, { invoice_id: ids.coupon }])
    const issuedToday = rowsOf(await query({ fields: ["invoice_count"], group: "business_id", filter: ["btw", "issued_date", today, today] }))
    expect(issuedToday).toEqual([{ group_label: business.id, invoice_count: 4 }])
    const issuedBefore = rowsOf(await query({ fields: ["invoice_id"], filter: ["btw", "issued_date", "2000-01-01", "2000-12-31"] }))
    expect(issuedBefore).toEqual([])
    const due = rowsOf(await query({ fields: ["invoice_count", "created_by_client_count", "invoice_autobill_count"], group: "due_week_mon_start_date" }))
    const monday = new Date(`${today}T12:00:00Z`)
    monday.setUTCDate(monday.getUTCDate() - ((monday.getUTCDay() + 6) % 7))
    expect(due).toEqual([{ group_label: monday.toISOString().slice(0, 10), invoice_count: 4, created_by_client_count: 0, invoice_autobill_count: 0 }])
    const issued = rowsOf(await query({ fields: ["invoice_count"], group: "issued_year_start_date" }))
    expect(issued).toEqual([{ group_label: `${today.slice(0, 4)}-01-01`, invoice_count: 4 }])
    // Due today: zero days since.
    const [row] = rowsOf(await query({ fields: ["days_since_invoice_due"], filter: ["eq", "invoice_id", ids.coupon] }))
    expect(row).toEqual({ days_since_invoice_due: 0 })
  })

  it("groups by every grouping, sorts by every detail field and returns every summary field, revenue and tax adding up", async () => {
    for (const [name, grouping] of invoicesCatalog.groupings) {
      const response = await query({ fields: ["total_count"], group: name })
      expect(response.status, `${name}: ${response.text}`).toBe(200)
      expect(response.json.data.attributes.fields[0], name).toEqual({ name: "group_label", type: grouping.type })
      const total = (response.json.data.attributes.rows as Array<[unknown, number]>).reduce((sum, row) => sum + row[1], 0)
      expect(total, name).toBe(4)
    }
    const detail = [...invoicesCatalog.detail.keys()]
    for (const name of detail) {
      const response = await query({ fields: name === "key" ? ["key"] : ["key", name], sort: [`${name}-`] })
      expect(response.status, `${name}: ${response.text}`).toBe(200)
      expect(response.json.data.attributes.rows.length, name).toBe(4)
    }
    const all = rowsOf(await query({ fields: detail }))
    for (const row of all) {
      expect(row.key).toBe(`${business.id}-${row.invoice_id}`)
      for (const base of ["expected", "net_paid", "outstanding"]) {
        expect(Number(row[`${base}_revenue_amount`]) + Number(row[`${base}_tax_amount`]), `${row.key} ${base}`).toBe(row[`${base}_amount`])
      }
      expect(Number(row.gross_amount) + Number(row.adjustments_amount) + Number(row.discounts_amount) + Number(row.coupons_amount) + (row.invoice_id === ids.exclusive || row.invoice_id === ids.coupon ? Number(row.expected_tax_amount) : 0))
        .toBe(row.expected_amount)
    }
    const summaries = [...invoicesCatalog.summary.keys()]
    const [sums] = rowsOf(await query({ fields: summaries, group: "business_id" }))
    for (const name of summaries.filter((n) => n.startsWith("total_") && n.endsWith("_amount"))) {
      const field = name.slice("total_".length)
      expect(sums![name], name).toBe(all.reduce((sum, row) => sum + Number(row[field]), 0))
    }
    expect(sums).toMatchObject({ total_count: 4, invoice_count: 4, business_id_summary: String(business.id), business_subdomain_summary: "demo" })
  })

  it("shows a staff member's and a payer's new names after the incremental sync, each on its own", async () => {
    // The owner created every invoice and is the canceled one's commission recipient.
    const owner = (await server.pool.query(`select person_id from staff_members where id = $1`, [ownerStaffId])).rows[0].person_id
    ok(await server.request("PUT", `/api/v2/desk/people/${owner}`, { token, body: { person: { first_name: "Olivia" } } }), 200)
    expect((await sync("incremental")).rows.invoices).toBe(4)
    const names = rowsOf(await query({ fields: ["created_by_name", "commission_recipient_name", "invoice_payer_name"], sort: ["invoice_id+"] }))
    expect(names.map((r) => r.created_by_name)).toEqual(["Olivia Owner", "Olivia Owner", "Olivia Owner", "Olivia Owner"])
    expect(names.map((r) => r.commission_recipient_name)).toEqual([null, null, null, "Olivia Owner"])

    ok(await server.request("PUT", `/api/v2/desk/people/${cleo}`, { token, body: { person: { last_name: "Clientele", phone: "555-0100" } } }), 200)
    expect((await sync("incremental")).rows.invoices).toBe(4)
    const payers = rowsOf(await query({ fields: ["invoice_payer_name", "invoice_payer_phone"] }))
    expect(payers).toEqual(Array.from({ length: 4 }, () => ({ invoice_payer_name: "Cleo Clientele", invoice_payer_phone: "555-0100" })))
  })

  it("counts a declined card payment as a failed transaction that pays nothing", async () => {
    // Vaulting a declining card through the sandbox gateway's hosted form, as the payments tests do.
    const follow = (url: string, method = "GET", body?: string) => {
      const parsed = new URL(url)
      return server.request(method, parsed.pathname + parsed.search, {
        host: parsed.host,
        ...(body === undefined ? {} : { body, headers: { "content-type": "application/x-www-form-urlencoded" } })
      })
    }
    const started = ok(await desk("POST", `/people/${cleo}/form_of_payments`, { form_of_payment: { type: "creditcard" } }))
    const fields = { "billing-cc-number": "4000000000000341", "billing-cc-exp": "1230", "billing-cvv": "123", "billing-first-name": "Cleo", "billing-last-name": "Client", "billing-postal": "94110" }
    const posted = ok(await follow(started.json.form_of_payments[0].form_url, "POST", new URLSearchParams(fields).toString()), 303)
    ok(await follow(posted.headers.location!), 200)
    const card = Math.max(...(await desk("GET", `/people/${cleo}/form_of_payments`)).json.form_of_payments.map((f: { id: number }) => f.id))

    const declined = await desk("POST", `/invoices/${ids.coupon}/payments`, { payment: { payment_method: "creditcard", amount_cents: 4799, form_of_payment_id: card } })
    expect(declined.status, declined.text).toBe(422)
    // Written in a transaction of its own after the rest rolled back: the change log still has it.
    expect((await sync("incremental")).outcome).toBe("incremental")
    const [row] = rowsOf(await query({ fields: ["failed_transactions", "payments_amount", "outstanding_amount"], filter: ["eq", "invoice_id", ids.coupon] }))
    expect(row).toEqual({ failed_transactions: 1, payments_amount: 5000, outstanding_amount: 4799 })
    const [totals] = rowsOf(await query({ fields: TOTALS, group: "business_id" }))
    const all = await query({ fields: ["invoice_id"] })
    const reported = rowsOf(all).map((r) => Number(r.invoice_id))
    expect(totals).toEqual({ group_label: business.id, ...(await coreTotals(reported)) })
  })
  it("drops an invoice deleted with its uncompleted booking on the next incremental sync ", async () => {
    const doomed = await sell(taxedPack)
    await open(doomed.id)
    expect((await sync("incremental")).outcome).toBe("incremental")
    const listed = async () => rowsOf(await query({ fields: ["invoice_id"] })).map((r) => Number(r.invoice_id))
    expect(await listed()).toContain(doomed.id)
    // What deleting its uncompleted booking does to an invoice without payments (src/billing/invoices/booking-invoices-live.ts).
    await server.pool.query("delete from invoices where id = $1", [doomed.id])
    expect((await sync("incremental")).outcome).toBe("incremental")
    expect(await listed()).not.toContain(doomed.id)
    const items = rowsOf(await server.request("POST", "/desk/api/v3/reports/invoice_items/queries", {
      token,
      body: { data: { type: "queries", attributes: { fields: ["invoice_id"] } } },
      headers: { "content-type": "application/vnd.api+json" }
    })).map((r) => Number(r.invoice_id))
    expect(items).not.toContain(doomed.id)
  })
})
