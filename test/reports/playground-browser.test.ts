import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { promisify } from "node:util"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { TEST_BASE_DOMAIN } from "../support/server.ts"
import { MONTHS, type PlaygroundWorld, buildMonthlyQuery, buildPlaygroundWorld, runQuery, signIn } from "./playground-fixture.ts"

/**
 * The reports playground in Chromium: the owner signs in through the OAuth pages, builds
 * invoice_items by issue month and gets the table and a line with one point per row; the copied
 * curl, run by a shell, answers the same rows; the link reopens the query; errors are the API's
 * own; a staff member without the grant and a client get the refusal and no data; signing out
 * revokes the token.
 */
let world: PlaygroundWorld

beforeAll(async () => {
  world = await buildPlaygroundWorld("playground-browser")
}, 15 * 60 * 1000)

afterAll(async () => {
  await world?.close()
})

const run = promisify(execFile)

/** Runs a copied command in a shell; a curlrc maps the test host to the server (curl has no resolver rules of its own). */
const shell = async (command: string) => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "curl-home-"))
  fs.writeFileSync(path.join(home, ".curlrc"), `resolve = "demo.${TEST_BASE_DOMAIN}:${world.server.port}:127.0.0.1"\n`)
  try {
    return (await run("sh", ["-c", command], { env: { ...process.env, CURL_HOME: home, HOME: home } })).stdout
  } finally {
    fs.rmSync(home, { recursive: true, force: true })
  }
}

const tableRows = (page: import("playwright-core").Page) =>
  page.locator("#table tbody tr").evaluateAll((rows) => rows.map((row) => [...row.querySelectorAll("td")].map((td) => td.textContent)))

describe("the reports playground in a browser", () => {
  it("signs the owner in, draws invoice items by month as a table and a line, and the copied curl answers the same rows", async () => {
    const page = await world.browser.newPage({ locale: "en-US" })
    page.setDefaultTimeout(15_000)
    const violations: Array<string> = []
    page.on("console", (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text())
    })
    await signIn(page, world, "owner@demo.test")
    // The token lives in the tab's sessionStorage, never in the address bar.
    expect(page.url()).not.toContain("code=")
    await buildMonthlyQuery(page)
    await runQuery(page, 1)

    const shown = await tableRows(page)
    expect(shown).toEqual([
      [MONTHS[0], "2", "20000"],
      [MONTHS[1], "1", "10000"],
      [MONTHS[2], "2", "20000"]
    ])
    expect(await page.locator("#table thead th").allTextContents()).toEqual(["group_label", "invoice_item_count", "total_expected_amount"])
    // The chart: a line over the months, one rendered point per row.
    await page.locator("#chart[data-marks]:not([data-marks=''])").waitFor()
    expect(await page.locator("#chart").getAttribute("data-marks")).toBe(String(shown.length))
    expect(await page.locator("#chart-box").getAttribute("aria-label")).toContain("Line chart of invoice_item_count by group_label, 3 points")
    expect(await page.locator("#chart canvas").count()).toBeGreaterThan(0)

    // Categories draw bars, one per row (every invoice here is open: one bar).
    await page.getByLabel("Group by").selectOption("invoice_state")
    await runQuery(page, 2)
    expect(await tableRows(page)).toEqual([["open", "5", "50000"]])
    await page.locator("#chart-box[aria-label^='Bar chart']").waitFor()
    await page.locator("#chart[data-marks='1']").waitFor()
    await page.getByLabel("Group by").selectOption("issued_month_start_date")
    await runQuery(page, 3)

    await page.getByRole("button", { name: "Copy as curl" }).click()
    const curl = await page.locator("#copied-text").inputValue()
    expect(curl).toMatch(/^curl -sS -X POST 'http:\/\/demo\./)
    expect(curl).toContain("Authorization: Bearer ")
    const answered = JSON.parse(await shell(curl))
    expect(answered.data.attributes.rows.map((row: Array<unknown>) => row.map((v) => (v === null ? "" : String(v))))).toEqual(shown)

    await page.getByRole("button", { name: "Copy as JSON" }).click()
    const described = JSON.parse(await page.locator("#copied-text").inputValue())
    expect(described).toMatchObject({
      method: "POST",
      url: `${world.pageUrl.replace("/reports", "")}/desk/api/v3/reports/invoice_items/queries`,
      headers: { "Content-Type": "application/vnd.api+json" },
      body: { data: { type: "queries", attributes: { fields: ["invoice_item_count", "total_expected_amount"], group: "issued_month_start_date", sort: ["group_label+"], page: { limit: 100 } } } }
    })
    expect(described.headers.Authorization).toBe(curl.match(/Authorization: (Bearer [^']+)/)![1])
    expect(violations).toEqual([])
    await page.close()
  })

  it("pages with Next page, filters with nested and/or, keeps the query in the link and shows the API's own errors", async () => {
    const page = await world.browser.newPage({ locale: "en-US" })
    page.setDefaultTimeout(15_000)
    await signIn(page, world, "owner@demo.test")
    await buildMonthlyQuery(page)
    await page.getByLabel("Page size").fill("2")
    await page.getByLabel("Page size").dispatchEvent("change")
    await runQuery(page, 1)
    expect(await tableRows(page)).toHaveLength(2)
    await page.getByRole("button", { name: "Next page" }).click()
    await page.locator('#results[data-run="2"]').waitFor()
    expect((await tableRows(page)).map((r) => r[0])).toEqual(MONTHS)
    expect(await page.getByRole("button", { name: "Next page" }).isHidden()).toBe(true)

    // A nested filter: items of open invoices, and (February or later).
    await page.getByRole("button", { name: "Add condition" }).click()
    await page.getByLabel("Field", { exact: true }).first().selectOption("invoice_state")
    await page.getByLabel("Value", { exact: true }).first().selectOption("open")
    await page.getByRole("button", { name: "Add and/or group" }).first().click()
    const nested = page.locator(".filter-group .filter-group")
    await nested.getByLabel("Field", { exact: true }).selectOption("issued_date")
    await nested.getByLabel("Operation", { exact: true }).selectOption("gt")
    await nested.getByLabel("Value", { exact: true }).fill("2026-01-31")
    await nested.getByLabel("Value", { exact: true }).dispatchEvent("change")
    await runQuery(page, 3)
    expect((await tableRows(page)).map((r) => r[0])).toEqual(MONTHS.slice(1))

    // The link reopens the query, filter and all.
    const link = page.url()
    expect(new URL(link).hash).toMatch(/^#q=/)
    await page.goto("about:blank")
    await page.goto(link)
    await page.locator("#query:not([hidden])").waitFor()
    expect(await page.getByLabel("Group by").inputValue()).toBe("issued_month_start_date")
    expect(await page.getByRole("checkbox", { name: "total_expected_amount", exact: true }).isChecked()).toBe(true)
    await runQuery(page, 1)
    expect((await tableRows(page)).map((r) => r[0])).toEqual(MONTHS.slice(1))

    // No fields: the API's refusal, word for word.
    for (const name of ["invoice_item_count", "total_expected_amount"]) await page.getByRole("checkbox", { name, exact: true }).uncheck()
    const direct = await world.server.request("POST", "/desk/api/v3/reports/invoice_items/queries", {
      token: world.ownerToken,
      body: { data: { type: "queries", attributes: { fields: [], group: "issued_month_start_date", page: { limit: 2 } } } },
      headers: { "content-type": "application/vnd.api+json" }
    })
    expect(direct.status).toBe(400)
    await page.getByRole("button", { name: "Run", exact: true }).click()
    await page.getByRole("alert").waitFor()
    expect(await page.locator("#problem-list li").allTextContents()).toEqual(direct.json.errors)
    await page.close()
  })

  it("shows a staff member without the grant the API's refusal and no data", async () => {
    const page = await world.browser.newPage({ locale: "en-US" })
    page.setDefaultTimeout(15_000)
    const refusal = await world.server.request("GET", "/desk/api/v3/reports", { token: world.staffToken })
    expect(refusal.status).toBe(403)
    await signIn(page, world, "staff@demo.test")
    await page.getByRole("alert").waitFor()
    expect(await page.getByRole("alert").textContent()).toContain("This account cannot use the reports playground")
    expect(await page.locator("#problem-list li").allTextContents()).toEqual(refusal.json.errors)
    expect(await page.locator("#query").isHidden()).toBe(true)
    expect(await page.locator("#results").isHidden()).toBe(true)
    expect(await page.locator("#table tbody tr").count()).toBe(0)
    await page.close()
  })

  it("gives a client account no playground, saying so", async () => {
    const page = await world.browser.newPage({ locale: "en-US" })
    page.setDefaultTimeout(15_000)
    const refusal = await world.server.request("GET", "/desk/api/v3/reports", { token: world.clientToken })
    expect(refusal.status).toBe(403)
    expect(refusal.json.error).toBeTruthy()
    await signIn(page, world, "client@demo.test")
    await page.getByRole("alert").waitFor()
    expect(await page.getByRole("alert").textContent()).toContain("This account cannot use the reports playground")
    expect(await page.locator("#problem-list li").allTextContents()).toEqual([refusal.json.error])
    expect(await page.locator("#query").isHidden()).toBe(true)
    expect(await page.locator("#table tbody tr").count()).toBe(0)
    await page.close()
  })

  it("signs out by revoking the token: the old token then gets 401", async () => {
    const page = await world.browser.newPage({ locale: "en-US" })
    page.setDefaultTimeout(15_000)
    await signIn(page, world, "owner@demo.test")
    await page.getByRole("button", { name: "Sign out" }).waitFor()
    const token = await page.evaluate(() => sessionStorage.getItem("reports-playground.token"))
    expect(token).toBeTruthy()
    expect((await world.server.request("GET", "/desk/api/v3/reports", { token: token! })).status).toBe(200)
    await page.getByRole("button", { name: "Sign out" }).click()
    await page.getByRole("button", { name: "Sign in" }).waitFor()
    expect(await page.evaluate(() => sessionStorage.getItem("reports-playground.token"))).toBeNull()
    expect((await world.server.request("GET", "/desk/api/v3/reports", { token: token! })).status).toBe(401)
    await page.close()
  })
})
