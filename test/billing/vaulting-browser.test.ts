import { type Browser, chromium } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createPlanProduct } from "../support/billing-factories.ts"
import { chromiumArgs, ensureChromium } from "../support/chromium.ts"
import { makeSettableClock } from "../support/clock.ts"
import { createBusiness, createPerson, createToken } from "../support/factories.ts"
import { TEST_BASE_DOMAIN, type TestServer, startTestServer } from "../support/server.ts"

/**
 * A real browser on the sandbox gateway's card form (vaulting step two): it fills and submits
 * the form, follows the redirect to step three, which answers {}; the card is then listed, and
 * the client pays an invoice with it.
 */
const clock = makeSettableClock("2026-11-02T10:00:00Z")
let server: TestServer
let browser: Browser
let client: { personId: number; token: string }
let packProductId: number

beforeAll(async () => {
  const executablePath = ensureChromium()
  server = await startTestServer({ clock: clock.clock })
  const businessId = (await createBusiness(server.pool, { subdomain: "demo" })).id
  const person = await createPerson(server.pool, businessId)
  client = { personId: person.personId, token: await createToken(server.pool, person.accountId, businessId) }
  packProductId = (await createPlanProduct(server.pool, businessId, { kind: "pack", name: "Five classes", count: 5, price_cents: 7500 })).id
  browser = await chromium.launch({
    executablePath,
    args: chromiumArgs([`--host-resolver-rules=MAP *.${TEST_BASE_DOMAIN} 127.0.0.1, MAP ${TEST_BASE_DOMAIN} 127.0.0.1`])
  })
}, 15 * 60 * 1000)

afterAll(async () => {
  await browser?.close()
  await server?.close()
})

describe("the card form in a browser", () => {
  it("fills the form, follows the redirect to step three, and the card is listed", async () => {
    // Step one as the client app's server does it, on the host the browser will use.
    const host = `demo.${TEST_BASE_DOMAIN}:${server.port}`
    const started = await server.request("POST", `/api/v2/front/people/${client.personId}/form_of_payments`, {
      host,
      token: client.token,
      body: { form_of_payment: { type: "creditcard" } }
    })
    expect(started.status, started.text).toBe(201)
    const formUrl: string = started.json.form_of_payments[0].form_url
    expect(formUrl.startsWith(`http://${host}/sandbox/gateway/forms/`)).toBe(true)

    const page = await browser.newPage({ locale: "en-US" })
    page.setDefaultTimeout(10_000)
    await page.goto(formUrl)
    await page.getByLabel("Card number").fill("4242 4242 4242 4242")
    await page.getByLabel("Expiry (MMYY)").fill("0931")
    await page.getByLabel("CVV").fill("123")
    await page.getByLabel("First name").fill("Bea")
    await page.getByLabel("Last name").fill("Browser")
    await page.getByLabel("Postal code").fill("12345")
    await page.getByLabel("Country (two letters)").fill("DE")
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.url().includes("/form_of_payments/vaulting/")),
      page.getByRole("button", { name: "Save card" }).click()
    ])
    expect(response.status()).toBe(200)
    expect(await response.json()).toEqual({})
    expect(new URL(page.url()).pathname).toMatch(new RegExp(`^/api/v2/front/people/${client.personId}/form_of_payments/vaulting/`))

    const list = await server.request("GET", `/api/v2/front/people/${client.personId}/form_of_payments`, { token: client.token })
    expect(list.status).toBe(200)
    expect(list.json.form_of_payments).toEqual([
      expect.objectContaining({ type: "creditcard", card_type: "visa", last_four: "4242", expire_month: 9, expire_year: 2031, first_name: "Bea", last_name: "Browser", autobill: true })
    ])

    // The stored card pays an invoice: the client buys a pack and pays it in full by card.
    const formId: number = list.json.form_of_payments[0].id
    const invoice = await server.request("POST", "/api/v2/front/invoices", {
      token: client.token,
      body: { invoice: { plan_products: [{ id: packProductId }] } }
    })
    expect(invoice.status, invoice.text).toBe(201)
    const invoiceId: number = invoice.json.invoices[0].id
    const total: number = invoice.json.invoices[0].total_cents
    const paid = await server.request("POST", `/api/v2/front/invoices/${invoiceId}/payments`, {
      token: client.token,
      body: { payment: { payment_method: "creditcard", amount_cents: total, form_of_payment_id: formId } }
    })
    expect(paid.status, paid.text).toBe(201)
    expect(paid.json.payments[0]).toMatchObject({ state: "settled", amount_cents: total })
    const closed = await server.request("GET", `/api/v2/front/invoices/${invoiceId}`, { token: client.token })
    expect(closed.json.invoices[0]).toMatchObject({ state: "closed", outstanding_amount_cents: 0 })
    const plans = await server.request("GET", "/api/v2/front/people/me/plans", { token: client.token })
    expect(plans.json.plans).toEqual([expect.objectContaining({ type: "Pack", name: "Five classes", count: 5 })])

    // Back and submit again: the form is used up.
    await page.goto(formUrl)
    expect(await page.getByRole("alert").textContent()).toContain("already used")
  })
})
