import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createPlanProduct } from "../support/billing-factories.ts"
import { makeSettableClock } from "../support/clock.ts"
import { NOW, type Studio, setUpStudio, studioCallers } from "../support/studio.ts"

/**
 * Invoices, payments and plans reference their business only through a parent of the same
 * business (the payer, the invoice, the plan product), not `businesses` directly: a checkout no
 * longer locks its business's row, and the rows still cannot name a business that does not
 * exist, a parent of another business, nor outlive their business.
 */
const clock = makeSettableClock(NOW)
let s: Studio
let pack = 0
let foreignPack = 0
let probes = 0
const { desk } = studioCallers(() => s)

beforeAll(async () => {
  s = await setUpStudio(clock)
  pack = (await createPlanProduct(s.pool, s.business.id, { kind: "pack", count: 10, price_cents: 12000 })).id
  foreignPack = (await createPlanProduct(s.pool, s.elsewhere.id, { kind: "pack", count: 10, price_cents: 12000 })).id
})
afterAll(async () => s?.server.close())

const checkout = async () => {
  const created = await desk("POST", "/invoices", { invoice: { payer_id: s.otto.personId, plan_products: [{ id: pack }] } })
  expect(created.status, created.text).toBe(201)
  const invoice = created.json.invoices[0] as { id: number; total_cents: number }
  const paid = await desk("POST", `/invoices/${invoice.id}/payments`, { payment: { payment_method: "cash", amount_cents: invoice.total_cents } })
  expect(paid.status, paid.text).toBe(201)
  return invoice.id
}

/** The SQLSTATE a statement fails with, or "ok". */
const outcome = (text: string, values: Array<unknown>) =>
  s.pool.query(text, values).then(() => "ok", (error: { code?: string }) => error.code ?? String(error))

const insertInvoice = (businessId: number, personId: number) =>
  outcome(
    `insert into invoices (business_id, invoice_number, invoice_date, person_id, currency) values ($1, $3, '2026-11-02', $2, 'USD')`,
    [businessId, personId, `probe ${++probes}`]
  )
const insertPayment = (businessId: number, invoiceId: number, personId: number) =>
  outcome(
    `insert into payments (business_id, invoice_id, person_id, payment_method, payment_type_id, state, amount_cents, description, created_at, updated_at)
     values ($1, $2, $3, 'cash', 2, 'settled', 100, 'probe', now(), now())`,
    [businessId, invoiceId, personId]
  )
const insertPlan = (businessId: number, planProductId: number) =>
  outcome(
    `insert into plans (business_id, plan_product_id, type, name, price_cents, start_date) values ($1, $2, 'Pack', 'Probe', 0, '2026-11-02')`,
    [businessId, planProductId]
  )

describe("business keys of invoices, payments and plans", () => {
  it("a checkout completes while another transaction holds its business's row for update", async () => {
    // The business's first checkout creates its invoice counter, which does reference the business.
    await checkout()
    const holder = await s.pool.connect()
    try {
      await holder.query("begin")
      await holder.query("select id from businesses where id = $1 for update", [s.business.id])
      // A foreign key to `businesses` would wait for the holder's commit; a safeguard ends the wait.
      const finished = await Promise.race([
        checkout().then(() => "done"),
        new Promise<string>((resolve) => setTimeout(() => resolve("waiting on the business's row"), 10_000))
      ])
      expect(finished).toBe("done")
    } finally {
      await holder.query("rollback")
      holder.release()
    }
  })

  it("rows naming a business that does not exist, or a parent of another business, are refused", async () => {
    const invoiceId = await checkout()
    const { rows: [plan] } = await s.pool.query("select id from plans where business_id = $1 order by id desc limit 1", [s.business.id])
    expect(plan).toBeDefined()
    expect(await insertInvoice(999_999, s.otto.personId)).toBe("23503")
    expect(await insertInvoice(s.elsewhere.id, s.otto.personId)).toBe("23503")
    expect(await insertPayment(999_999, invoiceId, s.otto.personId)).toBe("23503")
    expect(await insertPayment(s.elsewhere.id, invoiceId, s.otto.personId)).toBe("23503")
    expect(await insertPlan(999_999, pack)).toBe("23503")
    expect(await insertPlan(s.business.id, foreignPack)).toBe("23503")
    // The same rows within one business are accepted: the refusals above are the keys', not the probes'.
    expect(await insertPlan(s.elsewhere.id, foreignPack)).toBe("ok")
    expect(await insertPayment(s.business.id, invoiceId, s.otto.personId)).toBe("ok")
    expect(await insertInvoice(s.business.id, s.otto.personId)).toBe("ok")
  })

  it("a business with invoices, payments and plans cannot be deleted, and keeps them", async () => {
    await checkout()
    const counts = () =>
      s.pool.query(
        `select (select count(*) from invoices where business_id = $1)::int as invoices,
                (select count(*) from payments where business_id = $1)::int as payments,
                (select count(*) from plans where business_id = $1)::int as plans`,
        [s.business.id]
      ).then((result) => result.rows[0])
    const before = await counts()
    expect(before.invoices).toBeGreaterThan(0)
    expect(before.payments).toBeGreaterThan(0)
    expect(before.plans).toBeGreaterThan(0)
    expect(await outcome("delete from businesses where id = $1", [s.business.id])).toBe("23503")
    expect(await counts()).toEqual(before)
    const { rows } = await s.pool.query("select count(*)::int as n from businesses where id = $1", [s.business.id])
    expect(rows[0].n).toBe(1)
  })
})
