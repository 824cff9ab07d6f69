import { Effect, Exit } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { seedDemo } from "../../src/tools/demo/seed.ts"
import { importBusiness } from "../../src/tools/import/service.ts"
import { ImportError } from "../../src/tools/import/errors.ts"
import { createToken } from "../support/factories.ts"
import { TEST_BASE_DOMAIN, type TestServer, startTestServer } from "../support/server.ts"

/** The import format's catalog (revenue categories, sales taxes, plan products), read back through the API. */
let server: TestServer
beforeAll(async () => {
  server = await startTestServer({ dataDir: `.data/test/catalog-import-${process.pid}-${Date.now()}` })
}, 120_000)
afterAll(async () => server?.close())

const run = <A, E>(effect: Effect.Effect<A, E, any>) => server.runtime.runPromiseExit(effect)

const document = (subdomain: string, catalog: Record<string, unknown> = {}) => ({
  business: { subdomain, name: "Nordic Yoga", time_zone: "Europe/Stockholm", currency_code: "SEK", default_locale: "sv" },
  locations: [{ key: "city", name: "City" }, { key: "harbour", name: "Harbour" }],
  staff: [{ email: `owner@${subdomain}.test`, first_name: "Olga", last_name: "Owner", role: "primary_owner" as const }, { email: `ida@${subdomain}.test`, first_name: "Ida", last_name: "Teacher", role: "standard" as const }],
  services: [
    { key: "flow", name: "Flow", type: "GroupClass" as const, duration_in_minutes: 60 },
    { key: "private", name: "Private", type: "Appointment" as const, duration_in_minutes: 60, staff: [`ida@${subdomain}.test`] }
  ],
  revenue_categories: [{ name: "Memberships" }, { name: "Class packs" }],
  sales_taxes: [{ name: "Moms", tax_rate: 6, inclusive: true, locations: [{ location: "city" }, { location: "harbour", tax_rate: 12.5 }] }],
  plan_products: [
    { kind: "membership", name: "Unlimited", price_cents: 99900, consider_member: true, invoice_interval_unit: "monthly", revenue_category: "Memberships", sales_taxes: ["Moms"] },
    { kind: "pack", name: "Ten", price_cents: 150000, count: 10, commitment_length: 6, commitment_unit: "month", services: ["flow"], location: "city", revenue_category: "Class packs" },
    { kind: "single_visit_pass", name: "Drop-in", price_cents: 20000, visibility: "Staff", staff_prices: [{ staff: `ida@${subdomain}.test`, price_cents: 25000 }] },
    { kind: "prepaid", name: "Summer", price_cents: 300000, commitment_length: 3, commitment_unit: "month", suspended: true, terms: "No refunds", terms_acceptance_type: "document" as const }
  ],
  ...catalog
})

const ownerToken = async (subdomain: string) => {
  const { rows } = await server.pool.query(
    `select b.id as business_id, a.id as account_id from businesses b join accounts a on a.email = $2 where b.subdomain = $1`,
    [subdomain, `owner@${subdomain}.test`]
  )
  return createToken(server.pool, Number(rows[0].account_id), Number(rows[0].business_id))
}

const catalogCount = async () =>
  (await server.pool.query(
    `select (select count(*) from plan_products)::int as products, (select count(*) from revenue_categories)::int as categories,
            (select count(*) from sales_taxes)::int as taxes`
  )).rows[0]

describe("catalog import", () => {
  it("writes categories, taxes and every kind of product, readable through the API", async () => {
    const exit = await run(importBusiness(document("nordic")))
    expect(Exit.isSuccess(exit)).toBe(true)
    if (Exit.isSuccess(exit)) expect(exit.value.counts).toMatchObject({ revenue_categories: 2, sales_taxes: 1, plan_products: 4 })
    const token = await ownerToken("nordic")
    const host = `nordic.${TEST_BASE_DOMAIN}`
    const get = (path: string) => server.request("GET", path, { token, host })

    const products = await get("/api/v2/desk/plan_products")
    expect(products.status, products.text).toBe(200)
    const byName = Object.fromEntries(products.json.plan_products.map((p: { name: string }) => [p.name, p]))
    expect(Object.keys(byName).sort()).toEqual(["Drop-in", "Summer", "Ten", "Unlimited"])
    expect(byName["Unlimited"]).toMatchObject({
      type: "Membership",
      count: null,
      invoice_interval_count: 1,
      invoice_interval_unit: "monthly",
      consider_member: true,
      revenue_category: { name: "Memberships" },
      sales_taxes: [{ name: "Moms", tax_rate: 6, inclusive: true }],
      price_cents: 99900
    })
    expect(byName["Ten"]).toMatchObject({ type: "Pack", count: 10, commitment_length: 6, commitment_unit: "month", services: [{ name: "Flow" }], revenue_category: { name: "Class packs" } })
    expect(byName["Drop-in"]).toMatchObject({ type: "SingleVisitPass", count: 1, visibility: "Staff", staff_specific_pricing: true, staff_prices: [{ price_cents: 25000 }] })
    expect(byName["Summer"]).toMatchObject({ type: "Prepaid", suspended: true, terms: "No refunds", terms_acceptance_type: "document" })
    const city = (await get("/api/v2/desk/locations")).json.locations.find((l: { name: string }) => l.name === "City")
    expect(byName["Ten"].location_id).toBe(city.id)

    const packs = await get("/api/v2/desk/pack_products")
    expect(packs.json.pack_products.map((p: { product: { name: string } }) => p.product.name)).toEqual(["Ten"])

    const categories = await get("/api/v2/desk/revenue_categories")
    expect(categories.json.revenue_categories.map((c: { name: string }) => c.name)).toEqual(["Class packs", "Memberships"])
    const taxes = await get("/api/v2/desk/sales_taxes")
    const tax = await get(`/api/v2/desk/sales_taxes/${taxes.json.sales_taxes[0].id}`)
    expect(tax.json.sales_taxes).toMatchObject({
      name: "Moms",
      tax_rate: 6,
      inclusive: true,
      locations: [{ name: "City", tax_rate: 6 }, { name: "Harbour", tax_rate: 12.5 }]
    })

    const front = await server.request("GET", "/api/v2/front/plan_products?client_id=none", { host })
    expect(front.status).toBe(401)
  })

  it("refuses broken references and kind rules with their paths, writing nothing", async () => {
    const before = await catalogCount()
    const exit = await run(
      importBusiness(
        document("broken", {
          revenue_categories: [{ name: "Packs" }, { name: "Packs" }],
          sales_taxes: [{ name: "Tax", tax_rate: 5 }],
          plan_products: [
            { kind: "pack", name: "No count", price_cents: 100, revenue_category: "Nope", services: ["ghost"], location: "moon", sales_taxes: ["Other"] },
            { kind: "membership", name: "No interval", price_cents: 100, commitment_length: 3 },
            { kind: "single_visit_pass", name: "Two", price_cents: 100, count: 2, staff_prices: [{ staff: "nobody@x.test", price_cents: 1 }] }
          ]
        })
      )
    )
    expect(Exit.isFailure(exit)).toBe(true)
    const error = Exit.isFailure(exit) ? (exit.cause.reasons[0] as unknown as { error: ImportError }).error : undefined
    expect(error?.reason).toBe("invalid_document")
    expect(error?.messages).toEqual(
      expect.arrayContaining([
        "revenue_categories[1].name: name \"Packs\" is used twice",
        "plan_products[0].count: a pack needs a count",
        "plan_products[0].location: no location with key \"moon\" in this document",
        "plan_products[0].revenue_category: no revenue category named \"Nope\" in this document",
        "plan_products[0].sales_taxes[0]: no sales tax named \"Other\" in this document",
        "plan_products[0].services[0]: no service with key \"ghost\" in this document",
        "plan_products[1].invoice_interval_unit: a membership needs an invoice interval",
        "plan_products[1].commitment_unit: commitment_length and commitment_unit go together",
        "plan_products[2].count: a single-visit pass has a count of 1",
        "plan_products[2].staff_prices[0].staff: no staff member with e-mail nobody@x.test in this document"
      ])
    )
    // Field rules are reported before references are checked (the import's one-pass order).
    const rate = await run(importBusiness(document("broken", { sales_taxes: [{ name: "Tax", tax_rate: 100 }, { name: "Odd", tax_rate: 1.23456 }] })))
    const rateError = Exit.isFailure(rate) ? (rate.cause.reasons[0] as unknown as { error: ImportError }).error : undefined
    expect(rateError?.messages).toEqual([
      "sales_taxes[0].tax_rate: must be a percentage from 0 to below 100, at most four decimals",
      "sales_taxes[1].tax_rate: must be a percentage from 0 to below 100, at most four decimals"
    ])
    expect(await catalogCount()).toEqual(before)
    expect((await server.pool.query("select count(*)::int as n from businesses where subdomain = 'broken'")).rows[0].n).toBe(0)
  })

  it("a re-import of the same document is refused as a whole and adds no second catalog", async () => {
    const before = await catalogCount()
    const again = await run(importBusiness(document("nordic")))
    expect(Exit.isFailure(again)).toBe(true)
    expect(await catalogCount()).toEqual(before)
  })

  it("the demo studio has a realistic catalog: what a newcomer, an anonymous visitor and staff see", async () => {
    const seeded = await server.runtime.runPromise(seedDemo)
    const desk = await server.request("GET", "/api/v2/desk/plan_products", { token: seeded.ownerToken })
    expect(desk.status, desk.text).toBe(200)
    const names = desk.json.plan_products.map((p: { name: string }) => p.name)
    expect(names).toEqual(
      expect.arrayContaining(["Unlimited Monthly", "4 Classes a Month", "10-Class Pack", "5-Class Pack", "Drop-in", "Intro Offer: 3 Classes", "3-Month Unlimited"])
    )
    const unlimited = desk.json.plan_products.find((p: { name: string }) => p.name === "Unlimited Monthly")
    expect(unlimited).toMatchObject({ type: "Membership", consider_member: true, revenue_category: { name: "Memberships" }, sales_taxes: [{ name: "Sales tax", tax_rate: 8.875 }] })
    expect(desk.json.plan_products.find((p: { name: string }) => p.name === "4 Classes a Month")).toMatchObject({ count: 4, limit_period: "month" })
    const anonymous = await server.request("GET", "/api/v2/front/plan_products?client_id=demo-app")
    expect(anonymous.status).toBe(200)
    const visible = anonymous.json.plan_products.map((p: { name: string }) => p.name)
    expect(visible).toContain("10-Class Pack")
    expect(visible).not.toContain("Intro Offer: 3 Classes")
    expect(visible).not.toContain("Members' Reformer 5-Pack")
    const categories = await server.request("GET", "/api/v2/desk/revenue_categories", { token: seeded.ownerToken })
    expect(categories.json.revenue_categories.map((c: { name: string }) => c.name)).toEqual(["Class packs", "Drop-ins", "Memberships", "Retail"])
  })
})
