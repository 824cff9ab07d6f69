import { type Browser, chromium } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { hashClientSecret } from "../../src/access/applications.ts"
import { hashPassword } from "../../src/access/passwords.ts"
import { chromiumArgs, ensureChromium } from "../support/chromium.ts"
import { createBusiness, createPerson } from "../support/factories.ts"
import { TEST_BASE_DOMAIN, type TestServer, startTestServer } from "../support/server.ts"

/** A real browser logs in through the real login page and lands on the redirect with a code. */
let server: TestServer
let browser: Browser
const REDIRECT = "https://client.example/callback"

beforeAll(async () => {
  const executablePath = ensureChromium()
  server = await startTestServer()
  const demo = await createBusiness(server.pool, { subdomain: "demo", name: "Sunrise Yoga" })
  await server.pool.query(`update businesses set brand_colors = '{"brand": "#7a2e8f"}' where id = $1`, [demo.id])
  const owner = await createPerson(server.pool, demo.id, { email: "owner@demo.test", role: "owner" })
  await server.pool.query("update accounts set password_hash = $2 where id = $1", [owner.accountId, await hashPassword("studio-demo-pass")])
  await server.pool.query(
    `insert into oauth_applications (client_id, client_secret_hash, name, redirect_uri) values ('web', $1, 'Booking Website', $2)`,
    [hashClientSecret("secret"), REDIRECT]
  )
  browser = await chromium.launch({
    executablePath,
    args: chromiumArgs([`--host-resolver-rules=MAP *.${TEST_BASE_DOMAIN} 127.0.0.1, MAP ${TEST_BASE_DOMAIN} 127.0.0.1`])
  })
}, 15 * 60 * 1000)

afterAll(async () => {
  await browser?.close()
  await server?.close()
})

describe("the login page in a browser", () => {
  it("logs in, consents and lands on the redirect with a code", async () => {
    const page = await browser.newPage({ locale: "en-US" })
    page.setDefaultTimeout(10_000)
    // The client's redirect target is not ours: answer it locally so the browser can land there.
    await page.route("https://client.example/**", (route) => route.fulfill({ status: 200, contentType: "text/html", body: "<h1>Client</h1>" }))
    const authorize = `http://demo.${TEST_BASE_DOMAIN}:${server.port}/oauth/authorize?client_id=web&response_type=code&redirect_uri=${encodeURIComponent(REDIRECT)}&state=abc`
    await page.goto(authorize)
    expect(await page.title()).toBe("Log in · Sunrise Yoga")
    expect(await page.locator("h1").textContent()).toBe("Log in to Sunrise Yoga")

    await page.getByLabel("E-mail").fill("owner@demo.test")
    await page.getByLabel("Password").fill("wrong password")
    await page.getByRole("button", { name: "Log in" }).click()
    await expect.poll(() => page.getByRole("alert").textContent()).toContain("not right")

    await page.getByLabel("Password").fill("studio-demo-pass")
    await page.getByRole("button", { name: "Log in" }).click()
    await page.getByRole("button", { name: "Allow" }).waitFor()
    expect(await page.locator("main").textContent()).toContain("Booking Website asks to use your account owner@demo.test at Sunrise Yoga")

    await page.getByRole("button", { name: "Allow" }).click()
    await page.waitForURL((url) => url.toString().startsWith(REDIRECT))
    const landed = new URL(page.url())
    expect(landed.searchParams.get("state")).toBe("abc")
    expect(landed.searchParams.get("code")).toMatch(/^[0-9a-f]{64}$/)
  })

  it("shows the page in the browser's language", async () => {
    const page = await browser.newPage({ locale: "de-DE" })
    await page.goto(
      `http://demo.${TEST_BASE_DOMAIN}:${server.port}/oauth/authorize?client_id=web&response_type=code&redirect_uri=${encodeURIComponent(REDIRECT)}`
    )
    expect(await page.locator("html").getAttribute("lang")).toBe("de")
    expect(await page.getByRole("button").first().textContent()).not.toBe("Log in")
  })
})
