import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createPlanProduct } from "../support/billing-factories.ts"
import { makeSettableClock } from "../support/clock.ts"
import { NOW, type Studio, setUpStudio, studioCallers } from "../support/studio.ts"

/**
 * Invoice numbers (spec: Invoice): 1, 2, 3... per business, with no gap and no repeat, however
 * many invoices are created at once; a refused create takes none. The number is given as the
 * create's last write, so these hold while the counter is locked for only that round trip.
 */
const clock = makeSettableClock(NOW)
let s: Studio
let pack = 0
const { desk } = studioCallers(() => s)

beforeAll(async () => {
  s = await setUpStudio(clock)
  pack = (await createPlanProduct(s.pool, s.business.id, { kind: "pack", count: 10, price_cents: 12000 })).id
})
afterAll(async () => s?.server.close())

const lastNumber = async () =>
  Number((await s.pool.query("select coalesce(max(last_number), 0) as n from invoice_numbers where business_id = $1", [s.business.id])).rows[0].n)
const create = () => desk("POST", "/invoices", { invoice: { payer_id: s.otto.personId, plan_products: [{ id: pack }] } })

describe("invoice numbers", () => {
  it("20 invoices created at once get the next 20 numbers, each once, as their answers and rows say", async () => {
    const before = await lastNumber()
    const created = await Promise.all(Array.from({ length: 20 }, create))
    for (const response of created) expect(response.status, response.text).toBe(201)
    const numbers = created.map((response) => Number(response.json.invoices[0].invoice_number)).sort((a, b) => a - b)
    expect(numbers).toEqual(Array.from({ length: 20 }, (_, i) => before + i + 1))
    const { rows } = await s.pool.query("select id, invoice_number from invoices where business_id = $1 and id = any($2::bigint[])", [
      s.business.id,
      created.map((response) => response.json.invoices[0].id)
    ])
    const stored = new Map(rows.map((row: { id: string; invoice_number: string }) => [Number(row.id), row.invoice_number]))
    for (const response of created) expect(stored.get(response.json.invoices[0].id)).toBe(response.json.invoices[0].invoice_number)
    expect(await lastNumber()).toBe(before + 20)
  })

  it("a refused create takes no number, and no stand-in number is ever left on a row", async () => {
    const before = await lastNumber()
    const refused = await desk("POST", "/invoices", { invoice: { payer_id: s.otto.personId, plan_products: [{ id: 999_999 }] } })
    expect(refused.status, refused.text).toBe(422)
    const next = await create()
    expect(next.status, next.text).toBe(201)
    expect(next.json.invoices[0].invoice_number).toBe(String(before + 1))
    const shown = await desk("GET", `/invoices/${next.json.invoices[0].id}`)
    expect(shown.json.invoices[0]).toEqual(next.json.invoices[0])
    const { rows } = await s.pool.query("select count(*)::int as n from invoices where business_id = $1 and invoice_number !~ '^[0-9]+$'", [s.business.id])
    expect(rows[0].n).toBe(0)
  })
})
