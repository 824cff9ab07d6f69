import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createPlanProduct } from "../support/billing-factories.ts"
import { makeSettableClock } from "../support/clock.ts"
import { createBusiness } from "../support/factories.ts"
import { countStatements } from "../support/statements.ts"
import { NOW, type Studio, setUpStudio, studioCallers } from "../support/studio.ts"

/**
 * A payment in a business that grew since PostgreSQL last gathered statistics. Until autovacuum's
 * next ANALYZE (after a tenth of a table's rows changed) the planner takes a new business beside
 * established ones for the few rows it had (not among the most common values: about one row), so a
 * statement that joins the business's people or recipients can be planned to start from all of
 * them, on every call. Counted in buffers by PostgreSQL, not timed: before the business grows by
 * GROWTH people, each with an open invoice for a pack, and after.
 *
 * What is left grows too, by about one buffer per 60 invoices: statements with array parameters are
 * planned for their values on every call, and with the business taken for one row the invoice's key
 * lookup in the closing statement goes through (business_id, invoice_date) rather than the primary
 * key, reading the business's invoices. The bound below sits between that and the walks this test
 * keeps out (the sale lines from all the business's people and recipients, the sold plans tied by a
 * join, the payer joined), which doubled the growth.
 */
const GROWTH = 3000 // people added; the enrollment writes' counterpart is growing-business-enrollment.test.ts

const clock = makeSettableClock(NOW)
let s: Studio
let pack = 0
const { desk } = studioCallers(() => s)

beforeAll(async () => {
  s = await setUpStudio(clock, { capacity: 50 })
  pack = (await createPlanProduct(s.pool, s.business.id, { kind: "pack", count: 10, price_cents: 12000 })).id
})
afterAll(async () => s?.server.close())

/** An invoice for the pack, then its cash payment, which closes it and sells the pack: the payment counted. */
const paymentCounted = async () => {
  const created = await desk("POST", "/invoices", { invoice: { payer_id: s.otto.personId, plan_products: [{ id: pack }] } })
  expect(created.status, created.text).toBe(201)
  const invoice = created.json.invoices[0]
  return countStatements(s.pool, async () => {
    const paid = await desk("POST", `/invoices/${invoice.id}/payments`, { payment: { payment_method: "cash", amount_cents: invoice.total_cents } })
    expect(paid.status, paid.text).toBe(201)
  })
}

/** GROWTH people in a business, each the recipient of an open invoice for its pack, written by SQL (no statistics gathered). */
const grow = async (businessId: number, packId: number) => {
  await s.pool.query(
    `with people as (
       insert into people (business_id, first_name, last_name, email)
       select $1, 'Grown', 'Payer ' || g, 'grown' || g || '@example.test' from generate_series(1, $3::int) g returning id),
     invoices as (
       insert into invoices (business_id, invoice_number, invoice_date, person_id, currency, subtotal_cents, total_cents, created_at, updated_at)
       select $1, 'G' || id, current_date, id, 'USD', 12000, 12000, now(), now() from people returning id, person_id),
     items as (
       insert into invoice_items (business_id, invoice_id, kind, plan_product_id, name, description, price_cents, total_cents)
       select $1, id, 'plan', $2, 'Pack', '', 12000, 12000 from invoices returning id, invoice_id)
     insert into invoice_item_recipients (business_id, invoice_item_id, person_id, position)
     select $1, items.id, invoices.person_id, 1 from items join invoices on invoices.id = items.invoice_id`,
    [businessId, packId, GROWTH]
  )
}

describe("a business that grew since its statistics", () => {
  it("pays an invoice without walking its people or its invoices' recipients", async () => {
    // An established business beside it, then statistics: the tables hold its rows, this business's are few.
    const neighbour = await createBusiness(s.pool)
    await grow(neighbour.id, (await createPlanProduct(s.pool, neighbour.id, { kind: "pack", count: 10, price_cents: 12000 })).id)
    await s.pool.query("analyze")
    // Payments before it grows: the caches warm, and the service's connections keep their statements' plans.
    for (let i = 0; i < 8; i++) await paymentCounted()
    const before = await paymentCounted()
    await grow(s.business.id, pack)
    const after = await paymentCounted()
    expect(before.buffers).toBeGreaterThan(0)
    // Measured: 102–108 buffers before; after, 150 with the walks kept out and 203 with them.
    expect(after.buffers, `before:\n${before.statements.join("\n")}\nafter:\n${after.statements.join("\n")}`).toBeLessThan(before.buffers + 70)
  })
})
