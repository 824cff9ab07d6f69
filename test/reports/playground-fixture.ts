import * as fs from "node:fs"
import * as path from "node:path"
import { type Browser, type Page, chromium } from "playwright-core"
import { expect } from "vitest"
import { syncReports } from "../../reports/sync/sync.ts"
import { hashPassword } from "../../src/access/passwords.ts"
import { createPlanProduct } from "../support/billing-factories.ts"
import { chromiumArgs, ensureChromium } from "../support/chromium.ts"
import { createBusiness, createPerson, createToken } from "../support/factories.ts"
import { TEST_BASE_DOMAIN, type TestServer, startTestServer } from "../support/server.ts"

/**
 * What the playground's browser tests share: a business with an owner, a staff member without
 * the report grant and a client (each with a password for the OAuth pages), invoices issued in
 * three months, a synced report store, and Chromium mapping every test host to the server.
 */
export const PASSWORD = "playground-pass"
export const MONTHS = ["2026-01-01", "2026-02-01", "2026-03-01"]

export interface PlaygroundWorld {
  readonly server: TestServer
  readonly browser: Browser
  readonly dataDir: string
  readonly ownerToken: string
  readonly staffToken: string
  readonly clientToken: string
  readonly pageUrl: string
  readonly close: () => Promise<void>
}

export const buildPlaygroundWorld = async (name: string): Promise<PlaygroundWorld> => {
  const executablePath = ensureChromium()
  const dataDir = path.resolve(`.data/test/${name}-${process.pid}`)
  fs.rmSync(dataDir, { recursive: true, force: true })
  const server = await startTestServer({ dataDir })
  const pool = server.pool
  const demo = await createBusiness(pool, { subdomain: "demo", name: "Demo Studio", time_zone: "America/Los_Angeles" })
  const person = async (email: string, role?: "owner" | "standard") => {
    const created = await createPerson(pool, demo.id, { email, ...(role ? { role } : {}) })
    await pool.query("update accounts set password_hash = $2 where id = $1", [created.accountId, await hashPassword(PASSWORD)])
    return { ...created, token: await createToken(pool, created.accountId, demo.id) }
  }
  const owner = await person("owner@demo.test", "owner")
  const staff = await person("staff@demo.test", "standard")
  const client = await person("client@demo.test")

  // Invoices through the Core API, opened (carts are not reported), then dated into three months.
  const pack = (await createPlanProduct(pool, demo.id, { kind: "pack", name: "Five classes", count: 5, price_cents: 10000 })).id
  const dates = ["2026-01-10T18:00:00Z", "2026-01-20T18:00:00Z", "2026-02-14T18:00:00Z", "2026-03-03T18:00:00Z", "2026-03-25T18:00:00Z"]
  for (const date of dates) {
    const sold = await server.request("POST", "/api/v2/desk/invoices", { token: owner.token, body: { invoice: { payer_id: client.personId, plan_products: [{ id: pack }] } } })
    expect(sold.status, sold.text).toBe(201)
    const id = sold.json.invoices[0].id as number
    const opened = await server.request("PUT", `/api/v2/desk/invoices/${id}`, { token: owner.token, body: { invoice: { state_event: "open" } } })
    expect(opened.status, opened.text).toBe(200)
    await pool.query("update invoices set created_at = $2 where id = $1", [id, date])
  }
  await syncReports({ databaseUrl: server.databaseUrl, dir: path.join(dataDir, "reports"), mode: "full" })

  const browser = await chromium.launch({
    executablePath,
    args: chromiumArgs([`--host-resolver-rules=MAP *.${TEST_BASE_DOMAIN} 127.0.0.1, MAP ${TEST_BASE_DOMAIN} 127.0.0.1`])
  })
  return {
    server,
    browser,
    dataDir,
    ownerToken: owner.token,
    staffToken: staff.token,
    clientToken: client.token,
    pageUrl: `http://demo.${TEST_BASE_DOMAIN}:${server.port}/reports`,
    close: async () => {
      await browser.close()
      await server.close()
      fs.rmSync(dataDir, { recursive: true, force: true })
    }
  }
}

/** Signs in through the service's own login and consent pages; ends back on the playground. */
export const signIn = async (page: Page, world: PlaygroundWorld, email: string, hash = "") => {
  await page.goto(`${world.pageUrl}${hash}`)
  await page.getByRole("button", { name: "Sign in" }).click()
  await page.getByLabel("E-mail").fill(email)
  await page.getByLabel("Password").fill(PASSWORD)
  await page.getByRole("button", { name: "Log in" }).click()
  await page.getByRole("button", { name: "Allow" }).click()
  await page.waitForURL((url) => url.pathname === "/reports" && !url.searchParams.has("code"))
}

/** invoice_items by issue month: the count of items and their expected total, oldest month first. */
export const buildMonthlyQuery = async (page: Page) => {
  await page.getByRole("button", { name: "Sign out" }).waitFor()
  await page.getByLabel("Resource").selectOption("invoice_items")
  await page.getByLabel("Search fields").waitFor()
  await page.getByLabel("Group by").selectOption("issued_month_start_date")
  await page.getByLabel("Search fields").fill("count")
  await page.getByRole("checkbox", { name: "invoice_item_count", exact: true }).check()
  await page.getByLabel("Search fields").fill("total_expected_amount")
  await page.getByRole("checkbox", { name: "total_expected_amount", exact: true }).check()
  await page.getByRole("button", { name: "Add sort key" }).click()
}

export const runQuery = async (page: Page, run: number) => {
  await page.getByRole("button", { name: "Run", exact: true }).click()
  await page.locator(`#results[data-run="${run}"]`).waitFor()
}
