import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createPlanProduct } from "../support/billing-factories.ts"
import { makeSettableClock } from "../support/clock.ts"
import { createLocation } from "../support/factories.ts"
import { NOW, type Studio, setUpStudio, studioCallers } from "../support/studio.ts"

/**
 * The paid-items guard: while an invoice holds settled payments (less their settled refunds),
 * its items, prorates and discounts cannot change (422 invoice_has_payments, nothing written);
 * once the payments are voided or refunded in full, they can again.
 */
const clock = makeSettableClock(NOW)
let s: Studio
let pack: number
let membership: number

const { desk } = studioCallers(() => s)

/** An open invoice for Cleo with a pack and a membership item; answers its id and item ids. */
const openInvoice = async () => {
  const created = await desk("POST", "/invoices", { invoice: { payer_id: s.cleo.personId, plan_products: [{ id: pack }, { id: membership }] } })
  expect(created.status, created.text).toBe(201)
  const invoice = created.json.invoices[0]
  const items = invoice.invoice_items as Array<{ id: number; detail: { plan_product_id: number } }>
  const opened = await desk("PUT", `/invoices/${invoice.id}`, { invoice: { state_event: "open" } })
  expect(opened.status, opened.text).toBe(200)
  return {
    id: invoice.id as number,
    total: invoice.total_cents as number,
    packItem: items.find((item) => item.detail.plan_product_id === pack)!.id,
    membershipItem: items.find((item) => item.detail.plan_product_id === membership)!.id
  }
}
const pay = async (id: number, cents: number) => {
  const paid = await desk("POST", `/invoices/${id}/payments`, { payment: { payment_method: "cash", amount_cents: cents } })
  expect(paid.status, paid.text).toBe(201)
  return paid.json.payments[0].id as number
}
const snapshot = async (id: number) =>
  (await s.pool.query(
    `select i.total_cents, (select count(*)::int from invoice_items where business_id = i.business_id and invoice_id = i.id) as items,
            (select count(*)::int from invoice_item_adjustments a join invoice_items t on t.business_id = a.business_id and t.id = a.invoice_item_id
             where t.invoice_id = i.id and a.source_type is null) as staff_adjustments
     from invoices i where i.business_id = $1 and i.id = $2`,
    [s.business.id, id]
  )).rows[0]

/** Every change the guard covers, on the invoice's items. */
const changes = (invoice: { id: number; packItem: number; membershipItem: number }) => [
  ["POST", `/invoices/${invoice.id}/invoice_items`, { plan_product: { id: pack } }],
  ["DELETE", `/invoices/${invoice.id}/invoice_items/${invoice.packItem}`, undefined],
  ["POST", `/invoices/${invoice.id}/invoice_items/${invoice.membershipItem}/prorates`, { prorate: { amount_cents: 500 } }],
  ["POST", `/invoices/${invoice.id}/invoice_items/${invoice.packItem}/discounts`, { discount: { percent: 10 } }]
] as const

beforeAll(async () => {
  s = await setUpStudio(clock)
  pack = (await createPlanProduct(s.pool, s.business.id, { kind: "pack", name: "Five classes", count: 5, price_cents: 10000 })).id
  membership = (await createPlanProduct(s.pool, s.business.id, { kind: "membership", name: "Unlimited", price_cents: 12000 })).id
}, 180_000)

afterAll(async () => s?.server.close())

describe("an invoice with a settled payment", () => {
  it("refuses every change of its items, prorates and discounts with a 422 naming the payment, and writes nothing", async () => {
    const invoice = await openInvoice()
    // Before any payment, the same changes are accepted (the guard is not a blanket refusal).
    const discounted = await desk("POST", `/invoices/${invoice.id}/invoice_items/${invoice.packItem}/discounts`, { discount: { amount_cents: 1000 } })
    expect(discounted.status, discounted.text).toBe(201)
    await pay(invoice.id, 2500)
    const before = await snapshot(invoice.id)
    for (const [method, path, body] of changes(invoice)) {
      const refused = await desk(method, path, body)
      expect(refused.status, `${method} ${path}: ${refused.text}`).toBe(422)
      expect(refused.json.errors[0]).toMatch(/holds payments of \$25\.00/)
    }
    const removeDiscount = await desk("DELETE", `/invoices/${invoice.id}/invoice_items/${invoice.packItem}/discounts`)
    expect(removeDiscount.status).toBe(422)
    expect(await snapshot(invoice.id)).toEqual(before)
    // Client mode, on the payer's own invoice: the same refusal.
    const client = await s.server.request("DELETE", `/api/v2/front/invoices/${invoice.id}/invoice_items/${invoice.packItem}`, { token: s.cleo.token })
    expect(client.status, client.text).toBe(422)
    expect(client.json.errors[0]).toMatch(/holds payments/)
    expect(await snapshot(invoice.id)).toEqual(before)
    // The reason in the request's locale.
    const german = await desk("DELETE", `/invoices/${invoice.id}/invoice_items/${invoice.packItem}`, undefined, { headers: { "x-fd-locale": "de" } })
    expect(german.status).toBe(422)
    expect(german.json.errors[0]).toMatch(/Rechnung \d+ enthält Zahlungen/)
  })

  it("still refuses after a partial refund, and allows changes once the rest is refunded", async () => {
    const invoice = await openInvoice()
    const paymentId = await pay(invoice.id, 3000)
    const partial = await desk("POST", `/invoices/${invoice.id}/payments/${paymentId}/refunds`, { refund: { amount_cents: 1000, payment_type_id: 2 } })
    expect(partial.status, partial.text).toBe(201)
    const refused = await desk("DELETE", `/invoices/${invoice.id}/invoice_items/${invoice.packItem}`)
    expect(refused.status).toBe(422)
    expect(refused.json.errors[0]).toMatch(/\$20\.00/)
    const rest = await desk("POST", `/invoices/${invoice.id}/payments/${paymentId}/refunds`, { refund: { amount_cents: 2000, payment_type_id: 2 } })
    expect(rest.status, rest.text).toBe(201)
    const removed = await desk("DELETE", `/invoices/${invoice.id}/invoice_items/${invoice.packItem}`)
    expect(removed.status, removed.text).toBe(200)
    expect(removed.json.invoices[0].total_cents).toBe(invoice.total - 10000)
  })

  it("refuses a coupon or a location (its tax rate) that would move a paid total, and still takes other settings", async () => {
    await s.pool.query(`insert into coupons (business_id, code, name, discount_percent) values ($1, 'GUARD10', 'Ten percent', 10)`, [s.business.id])
    const location = (await createLocation(s.pool, s.business.id, { name: "Guarded" })).id
    const invoice = await openInvoice()
    await pay(invoice.id, 1500)
    const before = await snapshot(invoice.id)
    for (const body of [{ coupon_code: "GUARD10" }, { location_id: location }]) {
      const refused = await desk("PUT", `/invoices/${invoice.id}`, { invoice: body })
      expect(refused.status, refused.text).toBe(422)
      expect(refused.json.errors[0]).toMatch(/holds payments of \$15\.00/)
    }
    const client = await s.server.request("PUT", `/api/v2/front/invoices/${invoice.id}`, { token: s.cleo.token, body: { invoice: { coupon_code: "GUARD10" } } })
    expect(client.status, client.text).toBe(422)
    expect(await snapshot(invoice.id)).toEqual(before)
    const receipt = await desk("PUT", `/invoices/${invoice.id}`, { invoice: { send_receipt: true, receipt_email: "cleo@example.test" } })
    expect(receipt.status, receipt.text).toBe(200)
  })

  it("allows changes again once the payment is voided", async () => {
    const invoice = await openInvoice()
    const paymentId = await pay(invoice.id, 4000)
    expect((await desk("POST", `/invoices/${invoice.id}/invoice_items/${invoice.membershipItem}/prorates`, { prorate: { amount_cents: 500 } })).status).toBe(422)
    const voided = await desk("POST", `/payments/${paymentId}/voids`, { void: {} })
    expect(voided.status, voided.text).toBe(201)
    const prorated = await desk("POST", `/invoices/${invoice.id}/invoice_items/${invoice.membershipItem}/prorates`, { prorate: { amount_cents: 500 } })
    expect(prorated.status, prorated.text).toBe(201)
    expect(prorated.json.invoices[0].total_cents).toBe(invoice.total - 500)
  })
})
