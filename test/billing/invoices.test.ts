import { parseCrontab } from "graphile-worker"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { cancelAbandonedCarts } from "../../src/billing/invoices/abandoned.ts"
import { crontab } from "../../workers/crontab.ts"
import { tasks } from "../../workers/runner.ts"
import { TEST_BASE_DOMAIN } from "../support/server.ts"
import { createPlanProduct } from "../support/billing-factories.ts"
import { makeSettableClock } from "../support/clock.ts"
import { NOW, type Studio, setUpStudio, studioCallers, visitStates } from "../support/studio.ts"

/**
 * Invoices over HTTP, both modes (spec: Invoices, Invoice states): create from plan products
 * (signup fees, staff-specific prices, form bodies, Idempotency-Key), the money rule with sales
 * taxes, coupons, discounts and prorates, owner-only client mode, wrong tenant, bad input with
 * nothing written, state events, and closing: plans created for each recipient, a linked
 * booking completed.
 */
const clock = makeSettableClock(NOW)
let s: Studio
let pack: number
let membership: number
let limited: number
let privateProduct: number
let free: number
let foreignProduct: number

const { desk, front } = studioCallers(() => s)
const count = async (table: string) => Number((await s.pool.query(`select count(*) from ${table} where business_id = $1`, [s.business.id])).rows[0].count)
const counts = async () => ({ invoices: await count("invoices"), items: await count("invoice_items"), adjustments: await count("invoice_item_adjustments") })

beforeAll(async () => {
  s = await setUpStudio(clock)
  const pool = s.pool
  pack = (await createPlanProduct(pool, s.business.id, { kind: "pack", name: "Five classes", count: 5, price_cents: 10000, commitment_length: 2, commitment_unit: "month" })).id
  membership = (await createPlanProduct(pool, s.business.id, { kind: "membership", name: "Unlimited", price_cents: 12000 })).id
  await pool.query(`update plan_products set signup_fee_cents = 2500, terms = 'Be kind', terms_acceptance_required = true where id = $1`, [membership])
  limited = (await createPlanProduct(pool, s.business.id, { kind: "membership", name: "Eight a month", price_cents: 8000, count: 8, limit_period: "month" })).id
  privateProduct = (await createPlanProduct(pool, s.business.id, { kind: "pack", name: "Private sessions", count: 3, price_cents: 30000 })).id
  await pool.query(`update plan_products set staff_specific_pricing = true where id = $1`, [privateProduct])
  await pool.query(`insert into plan_product_staff_prices (business_id, plan_product_id, staff_member_id, price_cents) values ($1, $2, $3, 24000)`, [
    s.business.id,
    privateProduct,
    s.ines.staffMemberId
  ])
  free = (await createPlanProduct(pool, s.business.id, { kind: "single_visit_pass", name: "Free trial", price_cents: 0 })).id
  foreignProduct = (await createPlanProduct(pool, s.elsewhere.id, { kind: "pack" })).id
  const tax = async (name: string, rate: number, inclusive: boolean) =>
    Number((await pool.query(`insert into sales_taxes (business_id, name, tax_rate, inclusive) values ($1, $2, $3, $4) returning id`, [s.business.id, name, rate, inclusive])).rows[0].id)
  const state = await tax("State tax", 8.875, false)
  const vat = await tax("VAT", 20, true)
  await pool.query(`insert into plan_product_sales_taxes (business_id, plan_product_id, sales_tax_id) values ($1, $2, $3), ($1, $4, $5)`, [
    s.business.id,
    pack,
    state,
    membership,
    vat
  ])
  // At the Main location the state tax is 10 %.
  await pool.query(`insert into sales_tax_locations (business_id, sales_tax_id, location_id, tax_rate) values ($1, $2, $3, 10)`, [s.business.id, state, s.main])
  await pool.query(`insert into coupons (business_id, code, name, discount_percent) values ($1, 'TENOFF', 'Ten percent', 10)`, [s.business.id])
  await pool.query(`insert into coupons (business_id, code, name, discount_amount_cents) values ($1, 'FIVE', 'Five dollars', 500)`, [s.business.id])
}, 180_000)

afterAll(async () => s?.server.close())

describe("creating an invoice", () => {
  it("sells plan products with taxes and a signup fee of its own (staff, JSON)", async () => {
    clock.set(NOW)
    const response = await desk("POST", "/invoices", {
      invoice: { payer_id: s.cleo.personId, plan_products: [{ id: pack }, { id: membership, recipient_ids: [s.cleo.personId, s.kid], start_date: "2026-11-05" }] }
    })
    expect(response.status, response.text).toBe(201)
    const invoice = response.json.invoices[0]
    expect(invoice).toMatchObject({
      invoice_number: expect.any(String),
      invoice_date: "2026-11-02",
      state: "cart",
      state_events: ["open", "cart_hidden", "canceled"],
      currency: "USD",
      person: { id: s.cleo.personId, name: "Cleo Client" },
      person_id: s.cleo.personId,
      coupon: null,
      payments: [],
      // pack 10000 + 8.875 % (888) ; membership 12000 and signup fee 2500 with 20 % VAT inside
      subtotal_cents: 24500,
      adjustment_total_cents: 0,
      discount_total_cents: 0,
      additional_tax_total_cents: 888,
      included_tax_total_cents: 2000 + 417,
      total_cents: 25388,
      total: "$253.88",
      outstanding_amount_cents: 25388,
      created_by: { id: s.owner.staffMemberId, name: "Olga Owner" }
    })
    const [packItem, membershipItem, feeItem] = invoice.invoice_items
    expect(packItem).toMatchObject({ name: "Five classes", price_cents: 10000, total_cents: 10888, detail: { type: "Pack", plan_product_id: pack }, commissionable: true })
    expect(packItem.adjustments).toEqual([
      { id: expect.any(Number), type: "TaxAdjustment", name: "State tax", created_at: expect.any(String), amount_cents: 888, amount: "$8.88", percent: 8.875, source: { id: expect.any(Number), type: "SalesTax" } }
    ])
    expect(membershipItem).toMatchObject({ detail: { type: "Membership", start_date: "2026-11-05", has_terms: true }, total_cents: 12000 })
    expect(membershipItem.recipients.map((r: { id: number }) => r.id)).toEqual([s.cleo.personId, s.kid])
    expect(feeItem).toMatchObject({ name: "Unlimited (signup fee)", price_cents: 2500, detail: { type: "SignupFee" } })
    const get = await desk("GET", `/invoices/${invoice.id}`)
    expect(get.json).toEqual(response.json)
  })

  it("in client mode the payer is the token's person; the answer has the common fields only", async () => {
    const response = await front("POST", "/invoices", { invoice: { payer_id: s.otto.personId, plan_products: [{ id: pack, recipient_ids: [s.kid] }] } })
    expect(response.status, response.text).toBe(201)
    const invoice = response.json.invoices[0]
    expect(invoice.person.id).toBe(s.cleo.personId)
    expect(invoice.subtotal_cents).toBeUndefined()
    expect(invoice.send_receipt).toBeUndefined()
    expect(invoice.invoice_items[0].commissionable).toBeUndefined()
    expect(response.headers["cache-control"]).toBe("private, no-store")
    // Someone else's invoice is not found, even for the payer's dependents' ... only the owner sees it.
    expect((await front("GET", `/invoices/${invoice.id}`, undefined, s.otto.token)).status).toBe(404)
    expect((await front("GET", `/invoices/${invoice.id}`)).status).toBe(200)
  })

  it("a client cannot buy for someone outside their reach, nor tie another's booking", async () => {
    const ottoBooking = await front("POST", "/bookings", { booking: { leases: [{ event_occurrence_id: s.yoga("2026-11-06").id, person: { id: s.otto.personId } }] } }, s.otto.token)
    expect(ottoBooking.status, ottoBooking.text).toBe(201)
    const before = await counts()
    const booking = await front("POST", "/invoices", { invoice: { booking_id: ottoBooking.json.bookings[0].id, plan_products: [{ id: pack }] } })
    expect(booking.status).toBe(422)
    expect(booking.text).toContain("booking_id")
    const response = await front("POST", "/invoices", { invoice: { plan_products: [{ id: pack, recipient_ids: [s.otto.personId] }] } })
    expect(response.status).toBe(422)
    expect(response.text).toContain("plan_products[0].recipient_ids")
    expect(await counts()).toEqual(before)
  })

  it("prices by staff member with staff-specific pricing, and requires one", async () => {
    const missing = await desk("POST", "/invoices", { invoice: { payer_id: s.cleo.personId, plan_products: [{ id: privateProduct }] } })
    expect(missing.status).toBe(422)
    expect(missing.text).toContain("plan_products[0].staff_member_id")
    const priced = await desk("POST", "/invoices", {
      invoice: { payer_id: s.cleo.personId, plan_products: [{ id: privateProduct, staff_member_id: s.ines.staffMemberId }] }
    })
    expect(priced.status, priced.text).toBe(201)
    expect(priced.json.invoices[0].invoice_items[0].price_cents).toBe(24000)
  })

  it("takes a Rails form body", async () => {
    const response = await s.server.request("POST", "/api/v2/desk/invoices", {
      token: s.owner.token,
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: `invoice[payer_id]=${s.otto.personId}&invoice[plan_products][][id]=${pack}&invoice[plan_products][][recipient_ids][]=${s.otto.personId}`
    })
    expect(response.status, response.text).toBe(201)
    expect(response.json.invoices[0]).toMatchObject({ person_id: s.otto.personId, total_cents: 10888 })
  })

  it("refuses bad input, naming each field, and writes nothing", async () => {
    const before = await counts()
    const response = await desk(
      "POST",
      "/invoices",
      {
        invoice: {
          payer_id: 999999,
          plan_products: [{ id: foreignProduct }, { recipient_ids: [s.cleo.personId] }, { id: pack, start_date: "tomorrow", event_id: 999999 }],
          booking_id: 999999
        }
      },
      { headers: { "x-fd-locale": "de" } }
    )
    expect(response.status).toBe(422)
    const text = response.text
    for (const field of ["payer_id", "plan_products[0].id", "plan_products[1].id", "plan_products[2].start_date", "plan_products[2].event_id", "booking_id"]) {
      expect(text).toContain(field)
    }
    const empty = await desk("POST", "/invoices", { invoice: { payer_id: s.cleo.personId, plan_products: [] } })
    expect(empty.status).toBe(422)
    const wrongType = await desk("POST", "/invoices", { invoice: { payer_id: "abc", plan_products: [{ id: pack }] } })
    expect(wrongType.status).toBe(400)
    expect(await counts()).toEqual(before)
  })

  it("honours Idempotency-Key: a repeat answers the first invoice; another body is a 422", async () => {
    const body = { invoice: { payer_id: s.cleo.personId, plan_products: [{ id: free }] } }
    const first = await desk("POST", "/invoices", body, { headers: { "idempotency-key": "inv-1" } })
    expect(first.status).toBe(201)
    const before = await counts()
    const again = await desk("POST", "/invoices", body, { headers: { "idempotency-key": "inv-1" } })
    expect(again.status).toBe(201)
    expect(again.json).toEqual(first.json)
    expect(await counts()).toEqual(before)
    const other = await desk("POST", "/invoices", { invoice: { payer_id: s.cleo.personId, plan_products: [{ id: pack }] } }, { headers: { "idempotency-key": "inv-1" } })
    expect(other.status).toBe(422)
    expect(await counts()).toEqual(before)
  })

  it("another business's token sees none of it", async () => {
    const created = await desk("POST", "/invoices", { invoice: { payer_id: s.cleo.personId, plan_products: [{ id: pack }] } })
    const id = created.json.invoices[0].id
    // The other business's owner, on the other business's host, does not find it.
    const foreign = await s.server.request("GET", `/api/v2/desk/invoices/${id}`, { token: s.foreignToken, host: `elsewhere.${TEST_BASE_DOMAIN}` })
    expect(foreign.status).toBe(404)
    const other = await s.pool.query(`update invoices set updated_at = updated_at where business_id = $1 and id = $2`, [s.elsewhere.id, id])
    expect(other.rowCount).toBe(0)
    expect((await desk("GET", `/invoices/${id + 100000}`)).status).toBe(404)
  })
})

describe("the staff list", () => {
  it("returns only the list fields, filtered and paginated", async () => {
    const response = await desk("GET", `/invoices?person_ids=${s.otto.personId}&state=cart,open`)
    expect(response.status, response.text).toBe(200)
    expect(response.json.total_count).toBe(1)
    expect(Object.keys(response.json.invoices[0]).sort()).toEqual(
      ["currency", "id", "person_id", "receipt_email", "send_receipt", "state", "state_events", "total", "total_cents"].sort()
    )
    const paged = await desk("GET", "/invoices?per_page=2")
    expect(paged.json.invoices.length).toBe(2)
    expect(paged.json.total_count).toBeGreaterThan(2)
    expect((await desk("GET", "/invoices?state=paid")).status).toBe(422)
    const later = await desk("GET", "/invoices?created_since=2030-01-01T00:00:00Z")
    expect(later.json.total_count).toBe(0)
  })
})

describe("changing an invoice", () => {
  const newInvoice = async (products: ReadonlyArray<object>, payer = s.cleo.personId) => {
    const response = await desk("POST", "/invoices", { invoice: { payer_id: payer, plan_products: products } })
    expect(response.status, response.text).toBe(201)
    return response.json.invoices[0]
  }

  it("applies a coupon over the items, then taxes at the invoice location's rate", async () => {
    const invoice = await newInvoice([{ id: pack }])
    const updated = await desk("PUT", `/invoices/${invoice.id}`, { invoice: { coupon_code: "tenoff", location_id: s.main } })
    expect(updated.status, updated.text).toBe(200)
    // 10000 − 1000 coupon = 9000, 10 % state tax at Main = 900
    expect(updated.json.invoices[0]).toMatchObject({
      discount_total_cents: -1000,
      additional_tax_total_cents: 900,
      total_cents: 9900,
      coupon: { code: "TENOFF", discount_percent: 10 },
      location: { id: s.main, name: "Main" }
    })
    const unknown = await desk("PUT", `/invoices/${invoice.id}`, { invoice: { coupon_code: "NOPE", send_receipt: true } })
    expect(unknown.status).toBe(422)
    expect(unknown.text).toContain("coupon_code")
    expect(unknown.text).toContain("receipt_email")
    const cleared = await front("PUT", `/invoices/${invoice.id}`, { invoice: { coupon_code: "" } })
    expect(cleared.json.invoices[0].total_cents).toBe(11000)
  })

  it("discounts an item (GET 404 when none, POST replaces, DELETE removes)", async () => {
    const invoice = await newInvoice([{ id: pack }])
    const item = invoice.invoice_items[0].id
    const path = `/invoices/${invoice.id}/invoice_items/${item}/discounts`
    expect((await desk("GET", path)).status).toBe(404)
    const percent = await desk("POST", path, { discount: { percent: 25 } })
    expect(percent.status, percent.text).toBe(201)
    expect(percent.json.invoices[0].total_cents).toBe(7500 + 666) // 7500 × 8.875 % = 665.6 → 666
    const fixed = await desk("POST", path, { discount: { amount_cents: 1000 } })
    expect(fixed.json.invoices[0].total_cents).toBe(9000 + 799) // 798.75 → 799
    const got = await desk("GET", path)
    expect(got.json.discounts).toEqual([expect.objectContaining({ type: "Discount", amount_cents: -1000, amount: "-$10.00" })])
    const before = await counts()
    const bad = await desk("POST", path, { discount: { amount_cents: -5 } })
    expect(bad.status).toBe(422)
    expect((await desk("POST", path, { discount: { amount_cents: 5, percent: 5 } })).status).toBe(422)
    expect(await counts()).toEqual(before)
    expect((await desk("GET", path)).json.discounts[0].amount_cents).toBe(-1000)
    expect((await desk("DELETE", path)).status).toBe(200)
    expect((await desk("GET", path)).status).toBe(404)
    expect((await desk("DELETE", path)).status).toBe(404)
  })

  it("prorates a membership item and restores it on DELETE", async () => {
    const invoice = await newInvoice([{ id: limited }, { id: pack }])
    const [item, packItem] = invoice.invoice_items.map((i: { id: number }) => i.id)
    const path = `/invoices/${invoice.id}/invoice_items/${item}/prorates`
    const prorated = await desk("POST", path, { prorate: { amount_cents: 3000, initial_punchcard_count: 4 } })
    expect(prorated.status, prorated.text).toBe(201)
    const line = prorated.json.invoices[0].invoice_items[0]
    expect(line.total_cents).toBe(5000)
    expect(line.adjustments).toEqual([expect.objectContaining({ type: "ProrateAdjustment", amount_cents: -3000, initial_punchcard_count: 4 })])
    const updated = await desk("POST", path, { prorate: { amount_cents: 1000 } })
    expect(updated.json.invoices[0].invoice_items[0].adjustments).toHaveLength(1)
    expect(updated.json.invoices[0].invoice_items[0].total_cents).toBe(7000)
    const unlimited = await newInvoice([{ id: membership }])
    const unlimitedItem = unlimited.invoice_items[0].id
    const before = await counts()
    expect((await desk("POST", path, { prorate: { amount_cents: -1 } })).status).toBe(422)
    expect((await desk("POST", `/invoices/${invoice.id}/invoice_items/${packItem}/prorates`, { prorate: { amount_cents: 1 } })).status).toBe(422)
    expect((await desk("POST", `/invoices/${unlimited.id}/invoice_items/${unlimitedItem}/prorates`, { prorate: { initial_punchcard_count: 2 } })).status).toBe(422)
    expect(await count("invoice_item_adjustments")).toBe(before.adjustments)
    const removed = await desk("DELETE", path)
    expect(removed.status).toBe(200)
    expect(removed.json.invoices[0].invoice_items[0].total_cents).toBe(8000)
  })

  it("adds and removes items; a signup fee goes only with its plan item; the invoice stays", async () => {
    const invoice = await newInvoice([{ id: pack }])
    const added = await front("POST", `/invoices/${invoice.id}/invoice_items`, { plan_product: { id: membership } })
    expect(added.status, added.text).toBe(201)
    const items = added.json.invoices[0].invoice_items
    expect(items.map((i: { detail: { type: string } }) => i.detail.type)).toEqual(["Pack", "Membership", "SignupFee"])
    const fee = await front("DELETE", `/invoices/${invoice.id}/invoice_items/${items[2].id}`)
    expect(fee.status).toBe(422)
    const removed = await front("DELETE", `/invoices/${invoice.id}/invoice_items/${items[1].id}`)
    expect(removed.json.invoices[0].invoice_items).toHaveLength(1)
    const last = await desk("DELETE", `/invoices/${invoice.id}/invoice_items/${items[0].id}`)
    expect(last.status).toBe(200)
    expect(last.json.invoices[0]).toMatchObject({ invoice_items: [], total_cents: 0, state: "cart" })
    expect((await front("DELETE", `/invoices/${invoice.id}/invoice_items/${items[0].id}`)).status).toBe(404)
    // Another person's invoice is not found to a client.
    expect((await front("POST", `/invoices/${invoice.id}/invoice_items`, { plan_product: { id: pack } }, s.otto.token)).status).toBe(404)
  })

  it("moves through the states; invalid events are a 422 naming them", async () => {
    const invoice = await newInvoice([{ id: pack }])
    const held = await desk("PUT", `/invoices/${invoice.id}`, { invoice: { state_event: "on_hold" } })
    expect(held.status).toBe(422)
    expect(held.text).toContain("on_hold")
    const opened = await desk("PUT", `/invoices/${invoice.id}`, { invoice: { state_event: "open", send_receipt: true, receipt_email: "cleo@example.test" } })
    expect(opened.json.invoices[0]).toMatchObject({ state: "open", state_events: ["on_hold", "canceled"], send_receipt: true })
    // Not paid: closing is not offered and refused.
    expect((await desk("PUT", `/invoices/${invoice.id}`, { invoice: { state_event: "closed" } })).status).toBe(422)
    // A client may put it on hold too (spec: the client-mode PUT's state events include on_hold).
    expect((await front("PUT", `/invoices/${invoice.id}`, { invoice: { state_event: "on_hold" } })).json.invoices[0].state).toBe("on_hold")
    const canceled = await front("PUT", `/invoices/${invoice.id}`, { invoice: { state_event: "canceled" } })
    expect(canceled.json.invoices[0]).toMatchObject({ state: "canceled", state_events: [] })
    expect((await desk("PUT", `/invoices/${invoice.id}`, { invoice: { state_event: "open" } })).status).toBe(422)
    expect((await desk("POST", `/invoices/${invoice.id}/invoice_items`, { plan_product: { id: pack } })).status).toBe(422)
  })
})

describe("a fixed coupon", () => {
  it("is spread over the items in proportion, taxes after it (client form body)", async () => {
    const created = await desk("POST", "/invoices", { invoice: { payer_id: s.cleo.personId, plan_products: [{ id: pack }, { id: limited }] } })
    const invoice = created.json.invoices[0]
    const response = await s.server.request("PUT", `/api/v2/front/invoices/${invoice.id}`, {
      token: s.cleo.token,
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "invoice[coupon_code]=five"
    })
    expect(response.status, response.text).toBe(200)
    const [packItem, limitedItem] = response.json.invoices[0].invoice_items
    // 500 over 10000 and 8000: 278 and 222; the pack's tax on 9722 = 862.8 → 863
    expect(packItem.adjustments.map((a: { amount_cents: number }) => a.amount_cents)).toEqual([-278, 863])
    expect(limitedItem.adjustments.map((a: { amount_cents: number }) => a.amount_cents)).toEqual([-222])
    expect(response.json.invoices[0]).toMatchObject({ total_cents: 9722 + 863 + 7778, coupon: { code: "FIVE", discount_amount_cents: 500 } })
    expect(response.json.invoices[0].coupon.discount_amount).toBeUndefined()
    const stored = await s.pool.query(`select total_cents, subtotal_cents, discount_total_cents from invoices where id = $1`, [invoice.id])
    expect(stored.rows[0]).toEqual({ total_cents: 18363, subtotal_cents: 18000, discount_total_cents: -500 })
  })
})

describe("closing", () => {
  it("a booking tied to an invoice completes when a payment pays the invoice in full and closes it", async () => {
    clock.set(NOW)
    const occurrence = s.yoga("2026-11-06").id
    const booking = await desk("POST", "/bookings", { booking: { leases: [{ event_occurrence_id: occurrence, person: { id: s.cleo.personId } }] } })
    expect(booking.status, booking.text).toBe(201)
    const bookingId = booking.json.bookings[0].id
    const created = await desk("POST", "/invoices", { invoice: { payer_id: s.cleo.personId, booking_id: bookingId, plan_products: [{ id: pack }] } })
    expect(created.status, created.text).toBe(201)
    const invoice = created.json.invoices[0]
    expect(invoice.total_cents).toBeGreaterThan(0)
    const half = Math.floor(invoice.total_cents / 2)
    expect((await desk("POST", `/invoices/${invoice.id}/payments`, { payment: { payment_method: "cash", amount_cents: half } })).status).toBe(201)
    expect((await s.pool.query(`select state from bookings where id = $1`, [bookingId])).rows[0].state).toBe("incomplete")
    const rest = await desk("POST", `/invoices/${invoice.id}/payments`, { payment: { payment_method: "cash", amount_cents: invoice.total_cents - half } })
    expect(rest.status, rest.text).toBe(201)
    const closed = await desk("GET", `/invoices/${invoice.id}`)
    expect(closed.json.invoices[0]).toMatchObject({ state: "closed", outstanding_amount_cents: 0 })
    expect((await s.pool.query(`select state from bookings where id = $1`, [bookingId])).rows[0].state).toBe("completed")
    expect(await visitStates(s.server, occurrence)).toContain("registered")
  })

  it("creates the plans for each recipient and completes the linked booking with its leases", async () => {
    clock.set(NOW)
    const occurrence = s.yoga("2026-11-04").id
    const booking = await desk("POST", "/bookings", { booking: { leases: [{ event_occurrence_id: occurrence, person: { id: s.cleo.personId } }] } })
    expect(booking.status, booking.text).toBe(201)
    const bookingId = booking.json.bookings[0].id
    const created = await desk("POST", "/invoices", {
      invoice: { payer_id: s.cleo.personId, plan_products: [{ id: free, recipient_ids: [s.cleo.personId, s.kid] }] }
    })
    // Staff tie the booking to the invoice afterwards.
    const linked = await desk("PUT", `/invoices/${created.json.invoices[0].id}`, { invoice: { booking_id: bookingId } })
    expect(linked.status, linked.text).toBe(200)
    const invoice = linked.json.invoices[0]
    expect(invoice.booking_id).toBe(bookingId)
    expect(invoice.total_cents).toBe(0)
    expect(invoice.state_events).toContain("closed")
    const before = await s.pool.query(`select count(*)::int as n from plans where business_id = $1`, [s.business.id])
    const closed = await desk("PUT", `/invoices/${invoice.id}`, { invoice: { state_event: "closed" } })
    expect(closed.status, closed.text).toBe(200)
    expect(closed.json.invoices[0]).toMatchObject({ state: "closed", state_events: [], closed_at: NOW })
    const plans = await s.pool.query(
      `select p.type, p.count, p.start_date::text as start_date, pp.person_id::int as person_id from plans p
       join plan_people pp on pp.business_id = p.business_id and pp.plan_id = p.id
       where p.business_id = $1 and p.plan_product_id = $2 order by pp.person_id`,
      [s.business.id, free]
    )
    expect(plans.rows).toEqual([
      { type: "Pack", count: 1, start_date: "2026-11-02", person_id: Math.min(s.cleo.personId, s.kid) },
      { type: "Pack", count: 1, start_date: "2026-11-02", person_id: Math.max(s.cleo.personId, s.kid) }
    ])
    const after = await s.pool.query(`select count(*)::int as n from plans where business_id = $1`, [s.business.id])
    expect(after.rows[0].n).toBe(before.rows[0].n + 2)
    const sold = await s.pool.query(`select count(*)::int as n from invoice_item_recipients where invoice_item_id = $1 and plan_id is not null`, [invoice.invoice_items[0].id])
    expect(sold.rows[0].n).toBe(2)
    const state = await s.pool.query(`select state from bookings where id = $1`, [bookingId])
    expect(state.rows[0].state).toBe("completed")
    expect(await visitStates(s.server, occurrence)).toContain("registered")
    // Closed is final: nothing changes any more.
    expect((await desk("PUT", `/invoices/${invoice.id}`, { invoice: { coupon_code: "FIVE" } })).status).toBe(422)
  })

  it("a membership sold with terms creates the terms record for the payer", async () => {
    const created = await desk("POST", "/invoices", { invoice: { payer_id: s.cleo.personId, plan_products: [{ id: membership, recipient_ids: [s.kid] }] } })
    const invoice = created.json.invoices[0]
    // Make it free, so staff may close it now.
    for (const item of invoice.invoice_items) {
      const r = await desk("POST", `/invoices/${invoice.id}/invoice_items/${item.id}/discounts`, { discount: { percent: 100 } })
      expect(r.status, r.text).toBe(201)
    }
    const closed = await desk("PUT", `/invoices/${invoice.id}`, { invoice: { state_event: "closed" } })
    expect(closed.status, closed.text).toBe(200)
    const plan = await s.pool.query(
      `select p.type, p.end_date, t.payer_person_id::int as payer from plans p
       join plan_terms t on t.business_id = p.business_id and t.plan_id = p.id
       join invoice_item_recipients r on r.business_id = p.business_id and r.plan_id = p.id
       where r.invoice_item_id = $1`,
      [invoice.invoice_items[0].id]
    )
    expect(plan.rows).toEqual([{ type: "Membership", end_date: null, payer: s.cleo.personId }])
  })
})

describe("abandoned carts", () => {
  it("cancels carts untouched for 24 hours, leaves others", async () => {
    clock.set("2026-11-10T12:00:00Z")
    const fresh = await desk("POST", "/invoices", { invoice: { payer_id: s.otto.personId, plan_products: [{ id: pack }] } })
    const opened = await desk("POST", "/invoices", { invoice: { payer_id: s.otto.personId, plan_products: [{ id: pack }] } })
    await desk("PUT", `/invoices/${opened.json.invoices[0].id}`, { invoice: { state_event: "open" } })
    clock.set("2026-11-11T11:59:00Z")
    await s.server.runtime.runPromise(cancelAbandonedCarts())
    expect((await desk("GET", `/invoices/${fresh.json.invoices[0].id}`)).json.invoices[0].state).toBe("cart")
    clock.set("2026-11-11T12:01:00Z")
    const canceled = await s.server.runtime.runPromise(cancelAbandonedCarts())
    expect(canceled).toBeGreaterThanOrEqual(1)
    expect((await desk("GET", `/invoices/${fresh.json.invoices[0].id}`)).json.invoices[0]).toMatchObject({ state: "canceled", canceled_at: "2026-11-11T12:01:00Z" })
    expect((await desk("GET", `/invoices/${opened.json.invoices[0].id}`)).json.invoices[0].state).toBe("open")
    expect(parseCrontab(crontab).some((item) => item.task === "cancel_abandoned_carts")).toBe(true)
    expect(tasks).toHaveProperty("cancel_abandoned_carts")
  })
})
