import { type Browser, chromium } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { chromiumArgs, ensureChromium } from "../support/chromium.ts"
import { makeSettableClock } from "../support/clock.ts"
import { createBusiness, createPerson, createToken } from "../support/factories.ts"
import { TEST_BASE_DOMAIN, type TestServer, startTestServer } from "../support/server.ts"

/**
 * A real browser on the sandbox gateway's card form (vaulting step two): it fills and submits
 * the form, follows the redirect to step three, which answers {}; the card is then listed.
 */
const clock = makeSettableClock("2026-11-02T10:00:00Z")
let server: TestServer
let browser: Browser
let client: { personId: number; token: string }

beforeAll(async () => {
  const executablePath = ensureChromium()
  server = await startTestServer({ clock: clock.clock })
  const businessId = (await createBusiness(server.pool, { subdomain: "demo" })).id
  const person = await createPerson(server.pool, businessId)
  client = { personId: person.personId, token: await createToken(server.pool, person.accountId, businessId) }
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

    // Back and submit again: the form is used up.
    await page.goto(formUrl)
    expect(await page.getByRole("alert").textContent()).toContain("already used")
  })
})
