import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createPlanProduct } from "../support/billing-factories.ts"
import { makeSettableClock } from "../support/clock.ts"
import { NOW, type Studio, setUpStudio, studioCallers } from "../support/studio.ts"

/**
 * The checkout answers from what it wrote instead of reading it back: each answer must be exactly
 * what a later read shows (staff and client mode, sales taxes both ways, a signup fee, several
 * recipients, the payment that closes the invoice and sells its plans).
 */
const clock = makeSettableClock(NOW)
let s: Studio
let taxed = 0
let withFee = 0
const { desk, front } = studioCallers(() => s)

beforeAll(async () => {
  s = await setUpStudio(clock)
  const pool = s.pool
  taxed = (await createPlanProduct(pool, s.business.id, { kind: "pack", count: 5, price_cents: 10999 })).id
  withFee = (await createPlanProduct(pool, s.business.id, { kind: "membership", price_cents: 8000, count: 8, limit_period: "month" })).id
  await pool.query("update plan_products set signup_fee_cents = 2500 where id = $1", [withFee])
  const tax = async (name: string, rate: number, inclusive: boolean) =>
    Number((await pool.query("insert into sales_taxes (business_id, name, tax_rate, inclusive) values ($1, $2, $3, $4) returning id", [s.business.id, name, rate, inclusive])).rows[0].id)
  const state = await tax("State tax", 8.875, false)
  const city = await tax("City tax", 1.1234, false)
  const vat = await tax("VAT", 20, true)
  await pool.query(
    "insert into plan_product_sales_taxes (business_id, plan_product_id, sales_tax_id) values ($1, $2, $3), ($1, $2, $4), ($1, $5, $6)",
    [s.business.id, taxed, state, city, withFee, vat]
  )
})
afterAll(async () => s?.server.close())

describe("answers built from what was written", () => {
  it("a staff create answers what GET shows: items, recipients, tax lines, totals, number", async () => {
    const created = await desk("POST", "/invoices", {
      invoice: { payer_id: s.cleo.personId, plan_products: [{ id: taxed, recipient_ids: [s.cleo.personId, s.otto.personId] }, { id: withFee }] }
    })
    expect(created.status, created.text).toBe(201)
    const invoice = created.json.invoices[0]
    expect(invoice.invoice_items).toHaveLength(3)
    expect(invoice.invoice_items[0].adjustments).toHaveLength(2)
    expect(invoice.invoice_items[0].recipients.map((r: { id: number }) => r.id)).toEqual([s.cleo.personId, s.otto.personId])
    const shown = await desk("GET", `/invoices/${invoice.id}`)
    expect(created.json).toEqual(shown.json)
  })

  it("a product sold twice in one invoice has each item taxed once, as GET shows", async () => {
    const once = (await desk("POST", "/invoices", { invoice: { payer_id: s.cleo.personId, plan_products: [{ id: taxed }] } })).json.invoices[0]
    const created = await desk("POST", "/invoices", {
      invoice: { payer_id: s.cleo.personId, plan_products: [{ id: taxed }, { id: withFee }, { id: taxed }] }
    })
    expect(created.status, created.text).toBe(201)
    const invoice = created.json.invoices[0]
    expect(invoice.invoice_items.map((item: { adjustments: Array<unknown> }) => item.adjustments.length)).toEqual([2, 1, 1, 2])
    expect(invoice.invoice_items[3].total_cents).toBe(once.invoice_items[0].total_cents)
    expect(created.json).toEqual((await desk("GET", `/invoices/${invoice.id}`)).json)
  })

  it("a client create answers what the client's GET shows", async () => {
    const created = await front("POST", "/invoices", { invoice: { plan_products: [{ id: taxed, recipient_ids: [s.kid] }] } })
    expect(created.status, created.text).toBe(201)
    const shown = await front("GET", `/invoices/${created.json.invoices[0].id}`)
    expect(created.json).toEqual(shown.json)
  })

  it("the payment that closes an invoice answers what the invoice then shows of it", async () => {
    const created = await desk("POST", "/invoices", { invoice: { payer_id: s.otto.personId, plan_products: [{ id: taxed }] } })
    const invoice = created.json.invoices[0]
    const paid = await desk("POST", `/invoices/${invoice.id}/payments`, { payment: { payment_method: "cash", amount_cents: invoice.total_cents } })
    expect(paid.status, paid.text).toBe(201)
    const shown = (await desk("GET", `/invoices/${invoice.id}`)).json.invoices[0]
    expect(shown.state).toBe("closed")
    expect(paid.json.payments).toEqual(shown.payments)
    const { rows } = await s.pool.query(
      "select count(*)::int as n from invoice_item_recipients where business_id = $1 and invoice_item_id = $2 and plan_id is not null",
      [s.business.id, invoice.invoice_items[0].id]
    )
    expect(rows[0].n).toBe(1)
  })

  it("a refund, and its void, answer what the invoice then shows of them", async () => {
    const created = await desk("POST", "/invoices", { invoice: { payer_id: s.otto.personId, plan_products: [{ id: taxed }] } })
    const invoice = created.json.invoices[0]
    const paid = await desk("POST", `/invoices/${invoice.id}/payments`, { payment: { payment_method: "cash", amount_cents: invoice.total_cents } })
    const payment = paid.json.payments[0]
    const refundsShown = async () => (await desk("GET", `/invoices/${invoice.id}`)).json.invoices[0].payments[0].refunds
    const first = await desk("POST", `/invoices/${invoice.id}/payments/${payment.id}/refunds`, { refund: { amount_cents: 500 } })
    expect(first.status, first.text).toBe(201)
    const second = await desk("POST", `/invoices/${invoice.id}/payments/${payment.id}/refunds`, {
      refund: { amount_cents: 250, payment_type_id: 5 }
    })
    expect(second.status, second.text).toBe(201)
    expect([...first.json.refunds, ...second.json.refunds]).toEqual(await refundsShown())
    const voided = await desk("POST", `/refunds/${first.json.refunds[0].id}/voids`)
    expect(voided.status, voided.text).toBe(201)
    expect(voided.json.refunds[0]).toMatchObject({ state: "voided", voided_at: expect.any(String) })
    expect(voided.json.refunds[0]).toEqual((await refundsShown())[0])
  })
})
