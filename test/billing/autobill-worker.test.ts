import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { billDueMemberships } from "../../src/billing/billing-runs/service.ts"
import { createPlanProduct } from "../support/billing-factories.ts"
import { makeSettableClock } from "../support/clock.ts"
import { NOW, type Studio, setUpStudio, studioCallers } from "../support/studio.ts"
import { followLink } from "../support/http.ts"

/**
 * Automatic billing through the real worker: the sweep's charge job is picked up by
 * graphile-worker, decoded and run, and pays the renewal on the payer's autobill card.
 */
const clock = makeSettableClock(NOW)
let s: Studio

const { desk } = studioCallers(() => s)
const follow = (url: string, method?: string, body?: string) => followLink(s.server.request, url, method, body)

beforeAll(async () => {
  s = await setUpStudio(clock, { worker: true })
}, 180_000)

afterAll(async () => s?.server.close())

describe("automatic billing on the worker", () => {
  it("the charge job enqueued by the sweep pays the renewal on the autobill card", async () => {
    const product = (await createPlanProduct(s.pool, s.business.id, { kind: "membership", price_cents: 3900 })).id
    const started = await desk("POST", `/people/${s.cleo.personId}/form_of_payments`, { form_of_payment: { type: "creditcard" } })
    const fields = { "billing-cc-number": "4242424242424242", "billing-cc-exp": "1230", "billing-cvv": "123", "billing-first-name": "Cleo", "billing-last-name": "Client", "billing-postal": "94110" }
    const posted = await follow(started.json.form_of_payments[0].form_url, "POST", new URLSearchParams(fields).toString())
    expect((await follow(posted.headers.location!)).status).toBe(200)
    const created = await desk("POST", "/invoices", { invoice: { payer_id: s.cleo.personId, plan_products: [{ id: product }] } })
    const sale = created.json.invoices[0]
    // No form_of_payment_id: the autobill card.
    const paid = await desk("POST", `/invoices/${sale.id}/payments`, { payment: { payment_method: "creditcard", amount_cents: sale.total_cents } })
    expect(paid.status, paid.text).toBe(201)
    clock.set("2026-12-02T17:00:00Z")
    expect(await s.server.runtime.runPromise(billDueMemberships())).toBe(1)
    let state = "open"
    for (let i = 0; i < 100 && state === "open"; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100))
      state = (await s.pool.query(`select state from membership_billing_periods where business_id = $1`, [s.business.id])).rows[0].state
    }
    expect(state).toBe("paid")
    const period = (await s.pool.query(`select invoice_id::int from membership_billing_periods where business_id = $1`, [s.business.id])).rows[0]
    expect((await desk("GET", `/invoices/${period.invoice_id}`)).json.invoices[0]).toMatchObject({ state: "closed", total_cents: 3900 })
  }, 60_000)
})
