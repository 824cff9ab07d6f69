import * as fs from "node:fs"
import * as path from "node:path"
import { expect } from "vitest"
import { syncReports } from "../../reports/sync/sync.ts"
import { createPlanProduct, createRevenueCategory } from "../support/billing-factories.ts"
import { createApplication, createBusiness, createLocation, createPerson, createToken } from "../support/factories.ts"
import type { TestResponse } from "../support/http.ts"
import { type TestServer, type TestServerOptions, TEST_BASE_DOMAIN, startTestServer } from "../support/server.ts"

/**
 * A franchise's sales, built through the Core API over HTTP (sales taxes, coupons, the external
 * payment method and the signup fee are configuration, written as the billing tests write
 * them), for the invoice item reports' tests.
 *
 * HQ holds two franchisees. North (the `demo` host) sells:
 * - `credit`: a VAT pack paid 12000 in cash (closes), 2000 refunded to account credit;
 * - `mixed`: an exclusive-tax pack and a VAT pack with the 10 % coupon, opened, paid in part by
 *   visa 5000, american express 2000, cash 3000, check 2000, Venmo (external) 1500 and account
 *   credit 1000; a cash 700 voided; 500 of the cash refunded; a check refund of 300 voided;
 * - `member`: a membership with its signup fee for Dan, prorated 1000 and discounted 25 %, paid
 *   in full in cash (closes: the plan is created);
 * - `refunded`: the two packs paid in full in cash, then 12000 refunded in cash;
 * - a cart, not reported.
 * South sells one pack for 5000, paid in cash.
 */
export interface Sales {
  server: TestServer
  dataDir: string
  token: string
  hqToken: string
  north: { id: number }
  south: { id: number }
  hq: { id: number }
  cleo: number
  dan: number
  products: { taxed: number; vat: number; membership: number; south: number }
  invoices: { credit: number; mixed: number; member: number; refunded: number; cart: number; south: number }
  payments: Record<"visa" | "amex" | "cash" | "check" | "venmo" | "credit" | "voided", number>
  items: { refundedVat: number; membership: number; signupFee: number }
  sync: (mode: "full" | "incremental") => ReturnType<typeof syncReports>
  desk: (method: string, url: string, body?: unknown) => Promise<TestResponse>
  query: (resource: string, attributes: unknown, options?: { host?: string; token?: string; path?: string }) => Promise<TestResponse>
}

export const ok = (response: TestResponse, status = 201) => {
  expect(response.status, response.text).toBe(status)
  return response
}

export const rowsOf = (response: TestResponse): Array<Record<string, unknown>> => {
  expect(response.status, response.text).toBe(200)
  const { fields, rows } = response.json.data.attributes as { fields: Array<{ name: string }>; rows: Array<Array<unknown>> }
  return rows.map((row) => Object.fromEntries(fields.map((f, i) => [f.name, row[i]])))
}

/** Today in Los Angeles (the businesses' zone). */
export const localToday = () => new Intl.DateTimeFormat("en-CA", { timeZone: "America/Los_Angeles" }).format(new Date())

interface CorePayment {
  id: number
  state: string
  payment_type_id: number
  amount_cents: number
  refunds: Array<{ state: string; amount_cents: number; payment_type_id: number }>
}
export interface CoreInvoice {
  id: number
  state: string
  total_cents: number
  outstanding_amount_cents: number
  payments: Array<CorePayment>
}

export const methodOf = (typeId: number) =>
  typeId >= 100 ? "external" : ({ 1: "creditcard", 2: "cash", 3: "check", 4: "ach", 5: "credit" } as Record<number, string>)[typeId]!

/** `options`: the server's settings besides its data folder (a setting under test, the metrics listener). */
export const buildSales = async (name: string, options: TestServerOptions = {}): Promise<Sales> => {
  const dataDir = path.resolve(`.data/test/${name}-${process.pid}`)
  fs.rmSync(dataDir, { recursive: true, force: true })
  const server = await startTestServer({ ...options, dataDir })
  const pool = server.pool
  await createApplication(pool, "test-app")
  const hq = await createBusiness(pool, { subdomain: "hq", name: "HQ", time_zone: "America/Los_Angeles" })
  const north = await createBusiness(pool, { subdomain: "demo", name: "North", time_zone: "America/Los_Angeles", franchise_parent_id: hq.id })
  const south = await createBusiness(pool, { subdomain: "south", name: "South", time_zone: "America/Los_Angeles", franchise_parent_id: hq.id })
  const hqOwner = await createPerson(pool, hq.id, { role: "owner", first_name: "Hana", last_name: "Holding" })
  const hqToken = await createToken(pool, hqOwner.accountId, hq.id)
  const owner = await createPerson(pool, north.id, { role: "owner", first_name: "Olga", last_name: "Owner" })
  const token = await createToken(pool, owner.accountId, north.id)
  const southOwner = await createPerson(pool, south.id, { role: "owner", first_name: "Sam", last_name: "South" })
  const southToken = await createToken(pool, southOwner.accountId, south.id)
  const main = (await createLocation(pool, north.id, { name: "Main", time_zone: "America/Los_Angeles" })).id
  const cleo = (await createPerson(pool, north.id, { first_name: "Cleo", last_name: "Client", email: "cleo@example.com" })).personId
  const dan = (await createPerson(pool, north.id, { first_name: "Dan", last_name: "Member", email: "dan@example.com" })).personId
  const sue = (await createPerson(pool, south.id, { first_name: "Sue", last_name: "Southern" })).personId

  const category = await createRevenueCategory(pool, north.id, "Memberships")
  const products = {
    taxed: (await createPlanProduct(pool, north.id, { kind: "pack", name: "Five classes", count: 5, price_cents: 10000 })).id,
    vat: (await createPlanProduct(pool, north.id, { kind: "pack", name: "Ten classes", count: 10, price_cents: 12000 })).id,
    membership: (await createPlanProduct(pool, north.id, { kind: "membership", name: "Unlimited", price_cents: 8000, revenue_category_id: category.id })).id,
    south: (await createPlanProduct(pool, south.id, { kind: "single_visit_pass", name: "Drop in", price_cents: 5000 })).id
  }
  await pool.query(`update plan_products set signup_fee_cents = 2500 where id = $1`, [products.membership])
  const tax = async (taxName: string, rate: number, inclusive: boolean) =>
    Number((await pool.query(`insert into sales_taxes (business_id, name, tax_rate, inclusive) values ($1, $2, $3, $4) returning id`, [north.id, taxName, rate, inclusive])).rows[0].id)
  const state = await tax("State tax", 8.875, false)
  const vat = await tax("VAT", 20, true)
  await pool.query(`insert into plan_product_sales_taxes (business_id, plan_product_id, sales_tax_id) values ($1, $2, $3), ($1, $4, $5)`, [
    north.id,
    products.taxed,
    state,
    products.vat,
    vat
  ])
  await pool.query(`insert into coupons (business_id, code, name, discount_percent) values ($1, 'TENOFF', 'Ten percent', 10)`, [north.id])
  await pool.query(
    `insert into payment_configurations (business_id, accepted_types, external_methods, accepted_card_types, cvv_required, address_required, postal_required)
     values ($1, array['creditcard', 'check', 'cash', 'ach'], array['Venmo'], array['visa', 'master_card', 'american_express', 'discover'], false, false, false)`,
    [north.id]
  )

  const desk = (method: string, url: string, body?: unknown, host?: string, as = token) =>
    server.request(method, `/api/v2/desk${url}`, { token: as, ...(host === undefined ? {} : { host }), ...(body === undefined ? {} : { body }) })
  const sell = async (payer: number, productIds: ReadonlyArray<number>, extra: Record<string, unknown> = {}) =>
    ok(await desk("POST", "/invoices", { invoice: { payer_id: payer, plan_products: productIds.map((id) => ({ id })), ...extra } })).json.invoices[0] as {
      id: number
      total_cents: number
      invoice_items: Array<{ id: number; name: string }>
    }
  const open = async (id: number) => ok(await desk("PUT", `/invoices/${id}`, { invoice: { state_event: "open" } }), 200)
  const pay = async (id: number, method: string, cents: number, form?: number) =>
    Number(
      ok(await desk("POST", `/invoices/${id}/payments`, { payment: { payment_method: method, amount_cents: cents, ...(form === undefined ? {} : { form_of_payment_id: form }) } }))
        .json.payments[0].id
    )
  const refund = async (id: number, paymentId: number, cents: number, extra: Record<string, unknown> = {}) =>
    ok(await desk("POST", `/invoices/${id}/payments/${paymentId}/refunds`, { refund: { amount_cents: cents, ...extra } })).json
  const vault = async (person: number, number: string) => {
    const follow = (url: string, method = "GET", body?: string) => {
      const parsed = new URL(url)
      return server.request(method, parsed.pathname + parsed.search, {
        host: parsed.host,
        ...(body === undefined ? {} : { body, headers: { "content-type": "application/x-www-form-urlencoded" } })
      })
    }
    const started = ok(await desk("POST", `/people/${person}/form_of_payments`, { form_of_payment: { type: "creditcard" } }))
    const fields = { "billing-cc-number": number, "billing-cc-exp": "1230", "billing-cvv": number.startsWith("3") ? "1234" : "123", "billing-first-name": "Cleo", "billing-last-name": "Client", "billing-postal": "94110" }
    const posted = ok(await follow(started.json.form_of_payments[0].form_url, "POST", new URLSearchParams(fields).toString()), 303)
    ok(await follow(posted.headers.location!), 200)
    return Math.max(...(await desk("GET", `/people/${person}/form_of_payments`)).json.form_of_payments.map((f: { id: number }) => f.id))
  }
  const visaCard = await vault(cleo, "4242424242424242")
  const amexCard = await vault(cleo, "378282246310005")

  // Account credit for Cleo: a cash sale, 2000 of it refunded to credit.
  const credit = await sell(cleo, [products.vat])
  const creditPayment = await pay(credit.id, "cash", 12000)
  await refund(credit.id, creditPayment, 2000, { payment_type_id: 5 })

  // The mixed sale: two taxes and a coupon, paid in part six ways.
  const mixed = await sell(cleo, [products.taxed, products.vat])
  ok(await desk("PUT", `/invoices/${mixed.id}`, { invoice: { location_id: main } }), 200)
  ok(await desk("PUT", `/invoices/${mixed.id}`, { invoice: { coupon_code: "TENOFF" } }), 200)
  await open(mixed.id)
  const payments = {
    visa: await pay(mixed.id, "creditcard", 5000, visaCard),
    amex: await pay(mixed.id, "creditcard", 2000, amexCard),
    cash: await pay(mixed.id, "cash", 3000),
    check: await pay(mixed.id, "check", 2000),
    venmo: await pay(mixed.id, "Venmo", 1500),
    credit: await pay(mixed.id, "credit", 1000),
    voided: await pay(mixed.id, "cash", 700)
  }
  ok(await desk("POST", `/payments/${payments.voided}/voids`, {}))
  await refund(mixed.id, payments.cash, 500)
  const checkRefund = (await refund(mixed.id, payments.check, 300)).refunds[0].id as number
  ok(await desk("POST", `/refunds/${checkRefund}/voids`, {}))

  // A membership and its signup fee, prorated and discounted, paid in full.
  const member = await sell(dan, [products.membership])
  const membershipItem = member.invoice_items.find((i) => i.name === "Unlimited")!.id
  const signupFee = member.invoice_items.find((i) => i.name === "Unlimited (signup fee)")!.id
  ok(await desk("POST", `/invoices/${member.id}/invoice_items/${membershipItem}/prorates`, { prorate: { amount_cents: 1000 } }))
  ok(await desk("POST", `/invoices/${member.id}/invoice_items/${membershipItem}/discounts`, { discount: { percent: 25 } }))
  const memberTotal = (ok(await desk("GET", `/invoices/${member.id}`), 200).json.invoices[0] as CoreInvoice).total_cents
  await pay(member.id, "cash", memberTotal)

  // Two packs paid in full, then 12000 refunded.
  const refunded = await sell(cleo, [products.taxed, products.vat])
  const refundedPayment = await pay(refunded.id, "cash", refunded.total_cents)
  const vatItem = refunded.invoice_items.find((i) => i.name === "Ten classes")!.id
  await refund(refunded.id, refundedPayment, 12000)

  const cart = await sell(cleo, [products.taxed])

  const southHost = `south.${TEST_BASE_DOMAIN}`
  const southSale = ok(
    await desk("POST", "/invoices", { invoice: { payer_id: sue, plan_products: [{ id: products.south }] } }, southHost, southToken)
  ).json.invoices[0] as { id: number }
  ok(await desk("POST", `/invoices/${southSale.id}/payments`, { payment: { payment_method: "cash", amount_cents: 5000 } }, southHost, southToken))

  const reportsDir = path.join(dataDir, "reports")
  return {
    server,
    dataDir,
    token,
    hqToken,
    north,
    south,
    hq,
    cleo,
    dan,
    products,
    invoices: { credit: credit.id, mixed: mixed.id, member: member.id, refunded: refunded.id, cart: cart.id, south: southSale.id },
    payments,
    items: { refundedVat: vatItem, membership: membershipItem, signupFee },
    sync: (mode) => syncReports({ databaseUrl: server.databaseUrl, dir: reportsDir, mode }),
    desk: (method, url, body) => desk(method, url, body),
    query: (resource, attributes, options = {}) =>
      server.request("POST", options.path ?? `/desk/api/v3/reports/${resource}/queries`, {
        token: options.token ?? token,
        ...(options.host === undefined ? {} : { host: options.host }),
        body: { data: { type: "queries", attributes } },
        headers: { "content-type": "application/vnd.api+json" }
      })
  }
}

/** The Core API's invoices out of the cart, as it answers them. */
export const coreInvoices = async (sales: Sales, ids: ReadonlyArray<number>) =>
  (await Promise.all(ids.map(async (id) => ok(await sales.desk("GET", `/invoices/${id}`), 200).json.invoices[0] as CoreInvoice))).filter(
    (i) => i.state !== "cart" && i.state !== "cart_hidden"
  )

export const closeSales = async (sales: Sales | undefined) => {
  await sales?.server.close()
  if (sales) fs.rmSync(sales.dataDir, { recursive: true, force: true })
}
