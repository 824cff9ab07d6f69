import { DuckDBInstance } from "@duckdb/node-api"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { invoiceItemsCatalog } from "../../reports/catalog/invoice-items.ts"
import { storeFile } from "../../reports/sync/generations.ts"
import { DUCKDB_OPTIONS } from "../../reports/sync/copy.ts"
import { TEST_BASE_DOMAIN } from "../support/server.ts"
import { type Sales, buildSales, closeSales, coreInvoices, localToday, ok, rowsOf } from "./sales-fixture.ts"

/**
 * The invoice_items report over HTTP, on sales built through the Core API (sales-fixture.ts):
 * its totals reconcile with the invoices report and the Core API to the cent, each invoice's
 * items add up to the invoice, every field, summary field and grouping answers, and the public
 * analyst queries return rows whose sums match the data.
 */

let sales: Sales
const items = (attributes: unknown, options?: Parameters<Sales["query"]>[2]) => sales.query("invoice_items", attributes, options)
const invoices = (attributes: unknown) => sales.query("invoices", attributes)

const TOTALS = ["invoice_count", "total_expected_amount", "total_outstanding_amount", "total_payments_amount", "total_refunds_amount", "total_net_paid_amount"]
const PER_INVOICE = [
  "gross_amount",
  "adjustments_amount",
  "discounts_amount",
  "coupons_amount",
  "expected_amount",
  "expected_tax_amount",
  "expected_revenue_amount",
  "payments_amount",
  "refunds_amount",
  "net_paid_amount",
  "net_paid_tax_amount",
  "net_paid_revenue_amount",
  "outstanding_amount",
  "outstanding_tax_amount",
  "outstanding_revenue_amount"
]

const coreTotals = async (ids: ReadonlyArray<number>) => {
  const found = await coreInvoices(sales, ids)
  const settled = <T extends { state: string; amount_cents: number }>(list: ReadonlyArray<T>) =>
    list.filter((x) => x.state === "settled").reduce((sum, x) => sum + x.amount_cents, 0)
  const payments = found.reduce((sum, i) => sum + settled(i.payments), 0)
  const refunds = found.reduce((sum, i) => sum + i.payments.reduce((s, p) => s + settled(p.refunds), 0), 0)
  return {
    invoice_count: found.length,
    total_expected_amount: found.reduce((sum, i) => sum + i.total_cents, 0),
    total_outstanding_amount: found.reduce((sum, i) => sum + i.outstanding_amount_cents, 0),
    total_payments_amount: payments,
    total_refunds_amount: -refunds,
    total_net_paid_amount: payments - refunds
  }
}

beforeAll(async () => {
  sales = await buildSales("reports-invoice-items")
  await sales.sync("full")
}, 240_000)

afterAll(async () => {
  await closeSales(sales)
})

describe("the invoice_items report", () => {
  it("reconciles with the invoices report and the Core API to the cent, carts left out", async () => {
    const [byItems] = rowsOf(await items({ fields: TOTALS, group: "business_id" }))
    const [byInvoices] = rowsOf(await invoices({ fields: TOTALS, group: "business_id" }))
    const north = Object.values(sales.invoices).filter((id) => id !== sales.invoices.south)
    expect(byItems).toEqual(byInvoices)
    expect(byItems).toEqual({ group_label: sales.north.id, ...(await coreTotals(north)) })
    // The figures themselves: 12000 + 20599 + 7750 + 10888 expected; the mixed sale owes the rest.
    expect(byItems).toMatchObject({ invoice_count: 4, total_payments_amount: 12000 + 14500 + 7750 + 22888, total_refunds_amount: -(2000 + 500 + 12000) })
    const itemIds = rowsOf(await items({ fields: ["invoice_item_id", "invoice_id"] }))
    expect(itemIds.map((r) => r.invoice_id)).not.toContain(sales.invoices.cart)
    expect(itemIds).toHaveLength(1 + 2 + 2 + 2)
  })

  it("adds each invoice's items up to the invoice's own figures, revenue and tax included", async () => {
    const byInvoice = rowsOf(await items({ fields: PER_INVOICE.map((f) => `total_${f}`), group: "invoice_id", sort: ["invoice_id+"] }))
    const own = rowsOf(await invoices({ fields: ["invoice_id", ...PER_INVOICE], sort: ["invoice_id+"] }))
    expect(byInvoice.map((r) => r.group_label)).toEqual(own.map((r) => r.invoice_id))
    for (const [i, invoice] of own.entries()) {
      for (const field of PER_INVOICE) expect(byInvoice[i]![`total_${field}`], `${invoice.invoice_id} ${field}`).toBe(invoice[field])
    }
  })

  it("gives each item its fields: product, type, plan, membership, category, coupon, discount, recipients, taxes", async () => {
    const fields = [
      "invoice_id",
      "invoice_item_id",
      "product_id",
      "product_name",
      "product_name_at_sale",
      "product_type",
      "plan_id",
      "grants_membership",
      "revenue_category",
      "coupon_code",
      "discount_type",
      "recipient_names",
      "tax_types",
      "tax_types_extended",
      "retail_add_ons",
      "retail_options",
      "gross_amount",
      "adjustments_amount",
      "discounts_amount",
      "coupons_amount",
      "expected_amount",
      "expected_tax_amount",
      "payments_amount",
      "refunds_amount",
      "net_paid_amount",
      "outstanding_amount",
      "sale_location_name",
      "invoice_payer_name",
      "invoice_number",
      "invoice_state"
    ]
    const rows = rowsOf(await items({ fields, sort: ["invoice_item_id+"] }))
    const mixed = rows.filter((r) => r.invoice_id === sales.invoices.mixed)
    expect(mixed).toHaveLength(2)
    const [taxed, vat] = mixed
    // 10000 − 1000 coupon + 799 tax = 9799; 12000 − 1200 coupon = 10800, 1800 VAT inside. Paid 14500 − 500 of 20599.
    expect(taxed).toMatchObject({
      product_id: sales.products.taxed,
      product_name: "Five classes",
      product_name_at_sale: "Five classes",
      product_type: "pass",
      plan_id: null,
      grants_membership: "f",
      revenue_category: null,
      coupon_code: "TENOFF",
      discount_type: "percent",
      recipient_names: "Cleo Client",
      tax_types: "State tax",
      tax_types_extended: "State tax (8.875%)",
      retail_add_ons: null,
      retail_options: null,
      gross_amount: 10000,
      adjustments_amount: 0,
      discounts_amount: 0,
      coupons_amount: -1000,
      expected_amount: 9799,
      expected_tax_amount: 799,
      sale_location_name: "Main",
      invoice_payer_name: "Cleo Client",
      invoice_state: "open"
    })
    expect(vat).toMatchObject({ product_type: "pass", coupon_code: "TENOFF", tax_types_extended: "VAT (20% inclusive)", gross_amount: 12000, coupons_amount: -1200, expected_amount: 10800, expected_tax_amount: 1800 })
    // Shares by expected amount: 14500 × 9799 / 20599 = 6897.6… → 6898; the VAT pack takes the rest.
    expect(taxed).toMatchObject({ payments_amount: 6898, refunds_amount: -238 })
    expect(vat).toMatchObject({ payments_amount: 14500 - 6898, refunds_amount: -500 + 238 })
    expect(Number(taxed!.outstanding_amount) + Number(vat!.outstanding_amount)).toBe(20599 - 14000)

    const membership = rows.find((r) => r.invoice_item_id === sales.items.membership)!
    const fee = rows.find((r) => r.invoice_item_id === sales.items.signupFee)!
    const plan = Number((await sales.server.pool.query(`select plan_id from invoice_item_recipients where invoice_item_id = $1`, [sales.items.membership])).rows[0].plan_id)
    // 8000 − 1000 prorate = 7000, less 25 % = 5250.
    expect(membership).toMatchObject({
      product_type: "recurring",
      plan_id: plan,
      grants_membership: "t",
      revenue_category: "Memberships",
      discount_type: "percent",
      coupon_code: null,
      recipient_names: "Dan Member",
      tax_types: null,
      gross_amount: 8000,
      adjustments_amount: -1000,
      discounts_amount: -1750,
      expected_amount: 5250,
      payments_amount: 5250,
      outstanding_amount: 0,
      invoice_state: "closed"
    })
    expect(fee).toMatchObject({
      product_type: "signup_fee",
      product_name_at_sale: "Unlimited (signup fee)",
      product_name: "Unlimited",
      plan_id: plan,
      grants_membership: "f",
      discount_type: null,
      recipient_names: "Dan Member",
      expected_amount: 2500,
      payments_amount: 2500
    })
  })

  it("shows the current product name and a changed invoice's new shares after the incremental sync", async () => {
    await sales.server.pool.query(`update plan_products set name = 'Five classes (2024)', updated_at = now() where id = $1`, [sales.products.taxed])
    // A cash payment on the mixed sale changes its invoice: all its item rows are read again.
    ok(await sales.desk("POST", `/invoices/${sales.invoices.mixed}/payments`, { payment: { payment_method: "cash", amount_cents: 99 } }))
    const summary = await sales.sync("incremental")
    expect(summary.outcome).toBe("incremental")
    const rows = rowsOf(await items({ fields: ["product_name", "product_name_at_sale", "payments_amount"], filter: ["eq", "invoice_id", sales.invoices.mixed], sort: ["invoice_item_id+"] }))
    expect(rows.map((r) => [r.product_name, r.product_name_at_sale])).toEqual([["Five classes (2024)", "Five classes"], ["Ten classes", "Ten classes"]])
    expect(rows.reduce((sum, r) => sum + Number(r.payments_amount), 0)).toBe(14599)
    const [byItems] = rowsOf(await items({ fields: TOTALS, group: "business_id" }))
    const [byInvoices] = rowsOf(await invoices({ fields: TOTALS, group: "business_id" }))
    expect(byItems).toEqual(byInvoices)
    expect((await sales.sync("incremental")).outcome).toBe("unchanged")
  })

  it("filters with btw on a currency and a date field, and groups by the closed, due and issued buckets", async () => {
    const today = localToday()
    const between = rowsOf(await items({ fields: ["invoice_item_id"], filter: ["btw", "expected_amount", 2500, 5250], sort: ["invoice_item_id+"] }))
    expect(between).toEqual([{ invoice_item_id: sales.items.membership }, { invoice_item_id: sales.items.signupFee }])
    const closedToday = rowsOf(await items({ fields: ["invoice_item_count"], group: "business_id", filter: ["btw", "closed_date", today, today] }))
    expect(closedToday).toEqual([{ group_label: sales.north.id, invoice_item_count: 5 }])
    expect(rowsOf(await items({ fields: ["invoice_item_id"], filter: ["btw", "closed_date", "2000-01-01", "2000-12-31"] }))).toEqual([])
    for (const base of ["closed", "due", "issued"]) {
      const month = rowsOf(await items({ fields: ["invoice_item_count"], group: `${base}_month_start_date` }))
      const expected = base === "closed" ? [{ group_label: `${today.slice(0, 7)}-01`, invoice_item_count: 5 }, { group_label: null, invoice_item_count: 2 }] : [{ group_label: `${today.slice(0, 7)}-01`, invoice_item_count: 7 }]
      expect(month, base).toEqual(expected)
      const year = rowsOf(await items({ fields: ["invoice_count"], group: `${base}_year_start_date`, filter: ["nemp", `${base === "due" ? "invoice_due" : base}_date`] }))
      expect(year, base).toEqual([{ group_label: `${today.slice(0, 4)}-01-01`, invoice_count: base === "closed" ? 3 : 4 }])
    }
  })

  it("groups by every grouping, sorts by every detail field and returns every summary field", async () => {
    for (const [name, grouping] of invoiceItemsCatalog.groupings) {
      const response = await items({ fields: ["total_count"], group: name })
      expect(response.status, `${name}: ${response.text}`).toBe(200)
      expect(response.json.data.attributes.fields[0], name).toEqual({ name: "group_label", type: grouping.type })
      const total = (response.json.data.attributes.rows as Array<[unknown, number]>).reduce((sum, row) => sum + row[1], 0)
      expect(total, name).toBe(7)
    }
    const detail = [...invoiceItemsCatalog.detail.keys()]
    for (const name of detail) {
      const response = await items({ fields: name === "key" ? ["key"] : ["key", name], sort: [`${name}-`] })
      expect(response.status, `${name}: ${response.text}`).toBe(200)
      expect(response.json.data.attributes.rows.length, name).toBe(7)
    }
    const all = rowsOf(await items({ fields: detail }))
    for (const row of all) {
      expect(row.key).toBe(`${sales.north.id}-${row.invoice_item_id}`)
      for (const base of ["expected", "net_paid", "outstanding"]) {
        expect(Number(row[`${base}_revenue_amount`]) + Number(row[`${base}_tax_amount`]), `${row.key} ${base}`).toBe(row[`${base}_amount`])
      }
      expect(Number(row.payments_amount) + Number(row.refunds_amount)).toBe(row.net_paid_amount)
    }
    const summaries = [...invoiceItemsCatalog.summary.keys()]
    const [sums] = rowsOf(await items({ fields: summaries, group: "business_id" }))
    for (const name of summaries.filter((n) => n.startsWith("total_") && n.endsWith("_amount"))) {
      expect(sums![name], name).toBe(all.reduce((sum, row) => sum + Number(row[name.slice("total_".length)]), 0))
    }
    expect(sums).toMatchObject({ total_count: 7, invoice_count: 4, invoice_item_count: 7, grants_membership_count: 1, business_id_summary: String(sales.north.id) })
  })
})

describe("the store a full rebuild writes", () => {
  it("holds each business's invoices and items newest first (a closed_at- page reads the business's first row groups)", async () => {
    // Rows an incremental refresh adds since are appended; the next full rebuild sorts them again.
    const { generation } = await sales.sync("full")
    const dir = path.join(sales.dataDir, "reports")
    const instance = await DuckDBInstance.create(path.join(dir, storeFile(generation)), { ...DUCKDB_OPTIONS, access_mode: "READ_ONLY" })
    const connection = await instance.connect()
    try {
      for (const table of ["invoices", "invoice_items"]) {
        const reader = await connection.runAndReadAll(
          `SELECT count(*) FILTER (WHERE prev_business > business_id
                                      OR (prev_business = business_id AND (closed_at > prev OR (prev IS NULL AND closed_at IS NOT NULL)))),
                  count(DISTINCT closed_at)
           FROM (SELECT business_id, closed_at, lag(business_id) OVER (ORDER BY rowid) AS prev_business,
                        lag(closed_at) OVER (ORDER BY rowid) AS prev FROM ${table})`
        )
        const [outOfOrder, instants] = reader.getRows()[0]!
        expect(Number(outOfOrder), table).toBe(0)
        expect(Number(instants), table).toBeGreaterThan(2)
      }
    } finally {
      connection.closeSync()
      instance.closeSync()
    }
  })
})

describe("the public analyst queries", () => {
  it("answer on both paths, grouped answers' fields beginning with group_label", async () => {
    const body = { fields: ["total_net_paid_amount"], group: "product_name" }
    const long = await items(body)
    const short = await items(body, { path: "/api/v3/invoice_items/queries" })
    expect(short.status, short.text).toBe(200)
    expect(short.json.data.attributes.rows).toEqual(long.json.data.attributes.rows)
    expect(short.json.data.attributes.fields).toEqual([{ name: "group_label", type: "string" }, { name: "total_net_paid_amount", type: "currency" }])
    expect(Object.keys(short.json.data.attributes)).toEqual(expect.arrayContaining(["duration", "has_more"]))
    expect(typeof short.json.data.id).toBe("string")
  })

  it("top revenue by franchise business", async () => {
    const hq = { host: `hq.${TEST_BASE_DOMAIN}`, token: sales.hqToken }
    const rows = rowsOf(await items({ fields: ["total_net_paid_amount", "invoice_item_count"], group: "business_name", sort: ["total_net_paid_amount-"] }, hq))
    const [north] = rowsOf(await items({ fields: ["total_net_paid_amount"], group: "business_id" }))
    expect(rows).toEqual([
      { group_label: "North", total_net_paid_amount: north!.total_net_paid_amount, invoice_item_count: 7 },
      { group_label: "South", total_net_paid_amount: 5000, invoice_item_count: 1 }
    ])
  })

  it("sales of one product by closed date", async () => {
    const rows = rowsOf(await items({ fields: ["invoice_item_count", "total_expected_amount", "total_net_paid_amount"], group: "closed_date", filter: ["eq", "product_id", sales.products.vat] }))
    // Closed today: the credit sale's pack (12000 paid, 2000 refunded) and the refunded sale's, whose
    // net 10888 is shared by expected amount: the exclusive-tax pack first takes round(10888 × 10888 / 22888) = 5180.
    expect(rows).toEqual([
      { group_label: localToday(), invoice_item_count: 2, total_expected_amount: 24000, total_net_paid_amount: 10000 + (10888 - 5180) },
      { group_label: null, invoice_item_count: 1, total_expected_amount: 10800, total_net_paid_amount: expect.any(Number) }
    ])
  })

  it("most valuable clients by payer over a month, excluding retail", async () => {
    const today = localToday()
    const month = [`${today.slice(0, 7)}-01`, today]
    const rows = rowsOf(
      await items({
        fields: ["total_net_paid_amount", "invoice_count"],
        group: "invoice_payer_id",
        filter: ["and", [["btw", "closed_date", ...month], ["ne", "product_type", "retail"]]],
        sort: ["total_net_paid_amount-"]
      })
    )
    // Closed this month: Cleo's credit sale (10000 net) and canceled-item sale (22888 − 12000); Dan's membership 7750.
    expect(rows).toEqual([
      { group_label: sales.cleo, total_net_paid_amount: 10000 + 10888, invoice_count: 2 },
      { group_label: sales.dan, total_net_paid_amount: 7750, invoice_count: 1 }
    ])
  })

  it("recently sold items and best-selling items", async () => {
    const recent = rowsOf(await items({ fields: ["invoice_item_id", "product_name_at_sale", "closed_at"], sort: ["closed_at-"], page: { limit: 2 } }))
    expect(recent).toHaveLength(2)
    // The refunded sale closed last: its two items, at one instant.
    expect(new Set(recent.map((r) => r.invoice_item_id))).toEqual(new Set([sales.items.refundedVat - 1, sales.items.refundedVat]))
    expect(recent[0]!.closed_at).toBe(recent[1]!.closed_at)
    const best = rowsOf(await items({ fields: ["invoice_item_count", "total_expected_amount"], group: "product_name", sort: ["invoice_item_count-", "total_expected_amount-"] }))
    expect(best[0]).toEqual({ group_label: "Ten classes", invoice_item_count: 3, total_expected_amount: 12000 + 10800 + 12000 })
    expect(best.reduce((sum, r) => sum + Number(r.invoice_item_count), 0)).toBe(7)
    const byExpected = rowsOf(await items({ fields: ["total_expected_amount"], group: "product_name_at_sale", sort: ["total_expected_amount-"], page: { limit: 1 } }))
    expect(byExpected).toEqual([{ group_label: "Ten classes", total_expected_amount: 34800 }])
  })

  it("leaves a canceled item out at the next incremental sync, its invoice's other rows kept", async () => {
    // The Core API has no item cancellation yet (a refund's invoice_item_ids_to_cancel cancels the
    // item's plans): the column it would write is set here, as a later write path will.
    await sales.server.pool.query(`update invoice_items set canceled_at = now(), updated_at = now() where id = $1`, [sales.items.refundedVat])
    expect((await sales.sync("incremental")).outcome).toBe("incremental")
    const rows = rowsOf(await items({ fields: ["invoice_item_id"], filter: ["eq", "invoice_id", sales.invoices.refunded] }))
    expect(rows).toEqual([{ invoice_item_id: sales.items.refundedVat - 1 }])
  })
})
