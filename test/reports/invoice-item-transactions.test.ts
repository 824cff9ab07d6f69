import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { invoiceItemTransactionsCatalog } from "../../reports/catalog/invoice-item-transactions.ts"
import { REPORT_RESOURCES, resourceCatalog } from "../../reports/catalog/resources.ts"
import { type Sales, buildSales, closeSales, coreInvoices, localToday, methodOf, ok, rowsOf } from "./sales-fixture.ts"

/**
 * The invoice_item_transactions report over HTTP, on sales built through the Core API
 * (sales-fixture.ts): net paid per payment method, card network and processing method equal
 * the Core API's settled payments less settled refunds to the cent; each transaction is shared
 * over its invoice's items and adds up to its amount; every field, summary field and grouping.
 */

let sales: Sales
const tx = (attributes: unknown) => sales.query("invoice_item_transactions", attributes)

/** The Core API's settled payments less settled refunds, per payment method (a refund by its own type). */
const coreNetByMethod = async () => {
  const net: Record<string, number> = { ach: 0, cash: 0, check: 0, credit: 0, external: 0, creditcard: 0 }
  const north = Object.values(sales.invoices).filter((id) => id !== sales.invoices.south)
  for (const invoice of await coreInvoices(sales, north)) {
    for (const payment of invoice.payments) {
      if (payment.state === "settled") net[methodOf(payment.payment_type_id)]! += payment.amount_cents
      for (const refund of payment.refunds) if (refund.state === "settled") net[methodOf(refund.payment_type_id)]! -= refund.amount_cents
    }
  }
  return net
}

beforeAll(async () => {
  sales = await buildSales("reports-invoice-item-transactions")
  await sales.sync("full")
}, 240_000)

afterAll(async () => {
  await closeSales(sales)
})

const FAMILIES = [
  "total_net_paid_amount",
  "total_net_ach_paid_amount",
  "total_net_cash_paid_amount",
  "total_net_check_paid_amount",
  "total_net_credit_paid_amount",
  "total_net_external_paid_amount",
  "total_net_visa_paid_amount",
  "total_net_master_card_paid_amount",
  "total_net_american_express_paid_amount",
  "total_net_discover_paid_amount",
  "total_net_other_credit_card_paid_amount",
  "total_net_sandbox_processing_paid_amount",
  "total_net_american_express_processing_paid_amount",
  "total_net_other_processing_paid_amount"
]

describe("the invoice_item_transactions report", () => {
  it("nets each payment method, card network and processing method as the Core API does, to the cent", async () => {
    const [row] = rowsOf(await tx({ fields: FAMILIES, group: "business_id" }))
    const core = await coreNetByMethod()
    expect(row).toMatchObject({
      total_net_ach_paid_amount: core.ach,
      total_net_cash_paid_amount: core.cash,
      total_net_check_paid_amount: core.check,
      total_net_credit_paid_amount: core.credit,
      total_net_external_paid_amount: core.external
    })
    // Cash: 12000 + 3000 − 500 + 7750 + 22888 − 12000; credit: 1000 paid, 2000 refunded to it; the void and the voided refund count nothing.
    expect(row).toEqual({
      group_label: sales.north.id,
      total_net_paid_amount: 12000 - 2000 + 14500 - 500 + 7750 + 22888 - 12000,
      total_net_ach_paid_amount: 0,
      total_net_cash_paid_amount: 12000 + 3000 - 500 + 7750 + 22888 - 12000,
      total_net_check_paid_amount: 2000,
      total_net_credit_paid_amount: 1000 - 2000,
      total_net_external_paid_amount: 1500,
      total_net_visa_paid_amount: 5000,
      total_net_master_card_paid_amount: 0,
      total_net_american_express_paid_amount: 2000,
      total_net_discover_paid_amount: 0,
      total_net_other_credit_card_paid_amount: 0,
      total_net_sandbox_processing_paid_amount: 5000,
      total_net_american_express_processing_paid_amount: 2000,
      total_net_other_processing_paid_amount: 12000 - 2000 + 3000 - 500 + 2000 + 1500 + 1000 + 7750 + 22888 - 12000
    })
    expect(row!.total_net_visa_paid_amount as number + (row!.total_net_american_express_paid_amount as number)).toBe(core.creditcard)
    // The invoices report agrees on the whole.
    const [invoices] = rowsOf(await sales.query("invoices", { fields: ["total_net_paid_amount"], group: "business_id" }))
    expect(invoices!.total_net_paid_amount).toBe(row!.total_net_paid_amount)
  })

  it("gives each transaction its fields and shares it over the invoice's items", async () => {
    const fields = [
      "key",
      "transaction_id",
      "transaction_type",
      "transaction_state",
      "payment_method",
      "credit_card_name",
      "payment_method_detail",
      "external_payment_name",
      "processing_method",
      "processor_transaction_id",
      "payment_transaction_id",
      "transaction_autopay",
      "transaction_amount",
      "payments_amount",
      "refunds_amount",
      "net_paid_amount",
      "net_paid_tax_amount",
      "net_paid_revenue_amount",
      "error_message",
      "voided_at",
      "failed_at",
      "transaction_date",
      "invoice_item_id",
      "product_type"
    ]
    const rows = rowsOf(await tx({ fields, filter: ["eq", "invoice_id", sales.invoices.mixed], sort: ["transaction_type+", "transaction_id+", "invoice_item_id+"] }))
    // 7 payments and 2 refunds, each over the two items.
    expect(rows).toHaveLength(18)
    const of = (type: string, id: number) => rows.filter((r) => r.transaction_type === type && r.transaction_id === id)
    const visa = of("payment", sales.payments.visa)
    // 5000 × 9799 / 20599 = 2378.5… → 2379 to the exclusive-tax pack, the rest to the VAT pack.
    expect(visa.map((r) => r.net_paid_amount)).toEqual([2379, 5000 - 2379])
    expect(visa[0]).toMatchObject({
      transaction_state: "settled",
      payment_method: "creditcard",
      credit_card_name: "visa",
      payment_method_detail: "Visa 4242 12/2030",
      external_payment_name: null,
      processing_method: "sandbox",
      payment_transaction_id: null,
      transaction_autopay: "f",
      transaction_amount: 5000,
      payments_amount: 2379,
      refunds_amount: 0,
      error_message: null,
      voided_at: null,
      failed_at: null,
      transaction_date: localToday(),
      product_type: "pass"
    })
    expect(String(visa[0]!.processor_transaction_id)).not.toBe("null")
    expect(of("payment", sales.payments.amex)[0]).toMatchObject({ credit_card_name: "american_express", processing_method: "american_express", payment_method_detail: "American Express 0005 12/2030" })
    expect(of("payment", sales.payments.venmo)[0]).toMatchObject({ payment_method: "external", external_payment_name: "Venmo", credit_card_name: null, processing_method: "other" })
    expect(of("payment", sales.payments.credit)[0]).toMatchObject({ payment_method: "credit", payment_method_detail: null })
    const voided = of("payment", sales.payments.voided)
    expect(voided.map((r) => [r.transaction_state, r.net_paid_amount, r.payments_amount, r.transaction_amount])).toEqual([["voided", 0, 0, 700], ["voided", 0, 0, 700]])
    expect(voided[0]!.voided_at).not.toBeNull()
    const refunds = rows.filter((r) => r.transaction_type === "refund")
    const settledRefund = refunds.filter((r) => r.transaction_state === "settled")
    expect(settledRefund.map((r) => r.payment_transaction_id)).toEqual([sales.payments.cash, sales.payments.cash])
    expect(settledRefund.reduce((sum, r) => sum + Number(r.refunds_amount), 0)).toBe(-500)
    expect(settledRefund.map((r) => r.transaction_amount)).toEqual([-500, -500])
    const voidedRefund = refunds.filter((r) => r.transaction_state === "voided")
    expect(voidedRefund.map((r) => [r.payment_method, r.payment_transaction_id, r.refunds_amount, r.net_paid_amount])).toEqual([
      ["check", sales.payments.check, 0, 0],
      ["check", sales.payments.check, 0, 0]
    ])
    for (const row of rows) {
      expect(Number(row.net_paid_revenue_amount) + Number(row.net_paid_tax_amount), String(row.key)).toBe(row.net_paid_amount)
      expect(Number(row.payments_amount) + Number(row.refunds_amount)).toBe(row.net_paid_amount)
    }
    // A settled transaction's rows add up to it.
    for (const id of [sales.payments.visa, sales.payments.cash, sales.payments.check]) {
      expect(of("payment", id).reduce((sum, r) => sum + Number(r.net_paid_amount), 0)).toBe(of("payment", id)[0]!.transaction_amount)
    }
    // The refund to account credit is a credit refund of a cash payment.
    const [toCredit] = rowsOf(await tx({ fields: ["payment_method", "net_paid_amount"], filter: ["and", [["eq", "transaction_type", "refund"], ["eq", "invoice_id", sales.invoices.credit]]] }))
    expect(toCredit).toEqual({ payment_method: "credit", net_paid_amount: -2000 })
  })

  it("counts failed, settled, autopay and distinct transactions, items and invoices", async () => {
    const [row] = rowsOf(
      await tx({
        fields: ["transaction_count", "settled_count", "failed_count", "transaction_autopay_count", "invoice_count", "invoice_item_count", "grants_membership_count", "total_count"],
        group: "business_id"
      })
    )
    // credit: 1 payment + 1 refund (1 item); mixed: 7 + 2 (2 items); member: 1 (2 items); refunded: 1 + 1 (2 items).
    expect(row).toEqual({
      group_label: sales.north.id,
      transaction_count: 2 + 9 + 1 + 2,
      settled_count: 2 + 2 * 7 + 2 + 2 * 2,
      failed_count: 0,
      transaction_autopay_count: 0,
      invoice_count: 4,
      invoice_item_count: 7,
      grants_membership_count: 1,
      total_count: 2 + 18 + 2 + 4
    })
  })

  it("records a declined card payment as failed, with its error and failed date, on the next incremental sync", async () => {
    const follow = (url: string, method = "GET", body?: string) => {
      const parsed = new URL(url)
      return sales.server.request(method, parsed.pathname + parsed.search, {
        host: parsed.host,
        ...(body === undefined ? {} : { body, headers: { "content-type": "application/x-www-form-urlencoded" } })
      })
    }
    const started = ok(await sales.desk("POST", `/people/${sales.cleo}/form_of_payments`, { form_of_payment: { type: "creditcard" } }))
    const card = { "billing-cc-number": "4000000000000341", "billing-cc-exp": "1230", "billing-cvv": "123", "billing-first-name": "Cleo", "billing-last-name": "Client", "billing-postal": "94110" }
    const posted = ok(await follow(started.json.form_of_payments[0].form_url, "POST", new URLSearchParams(card).toString()), 303)
    ok(await follow(posted.headers.location!), 200)
    const form = Math.max(...(await sales.desk("GET", `/people/${sales.cleo}/form_of_payments`)).json.form_of_payments.map((f: { id: number }) => f.id))
    const declined = await sales.desk("POST", `/invoices/${sales.invoices.mixed}/payments`, { payment: { payment_method: "creditcard", amount_cents: 100, form_of_payment_id: form } })
    expect(declined.status, declined.text).toBe(422)
    expect((await sales.sync("incremental")).outcome).toBe("incremental")
    const failed = rowsOf(await tx({ fields: ["transaction_state", "error_message", "failed_date", "net_paid_amount", "transaction_amount"], filter: ["eq", "transaction_state", "failed"] }))
    expect(failed).toEqual([
      { transaction_state: "failed", error_message: expect.stringMatching(/./), failed_date: localToday(), net_paid_amount: 0, transaction_amount: 100 },
      { transaction_state: "failed", error_message: expect.stringMatching(/./), failed_date: localToday(), net_paid_amount: 0, transaction_amount: 100 }
    ])
    const byFailedMonth = rowsOf(await tx({ fields: ["failed_count", "transaction_count"], group: "failed_month_start_date", filter: ["nemp", "failed_date"] }))
    expect(byFailedMonth).toEqual([{ group_label: `${localToday().slice(0, 7)}-01`, failed_count: 2, transaction_count: 1 }])
  })

  it("filters with btw on a currency and a date field, and groups by the transaction buckets", async () => {
    const today = localToday()
    const between = rowsOf(await tx({ fields: ["transaction_count"], group: "business_id", filter: ["btw", "transaction_amount", 1500, 2000] }))
    // amex 2000, check 2000, Venmo 1500.
    expect(between).toEqual([{ group_label: sales.north.id, transaction_count: 3 }])
    const todays = rowsOf(await tx({ fields: ["transaction_count"], group: "business_id", filter: ["btw", "transaction_date", today, today] }))
    expect(todays).toEqual([{ group_label: sales.north.id, transaction_count: 15 }])
    expect(rowsOf(await tx({ fields: ["key"], filter: ["btw", "transaction_date", "2000-01-01", "2000-12-31"] }))).toEqual([])
    const monday = new Date(`${today}T12:00:00Z`)
    monday.setUTCDate(monday.getUTCDate() - ((monday.getUTCDay() + 6) % 7))
    const sunday = new Date(`${today}T12:00:00Z`)
    sunday.setUTCDate(sunday.getUTCDate() - sunday.getUTCDay())
    for (const [bucket, label] of [
      ["transaction_month_start_date", `${today.slice(0, 7)}-01`],
      ["transaction_year_start_date", `${today.slice(0, 4)}-01-01`],
      ["transaction_week_mon_start_date", monday.toISOString().slice(0, 10)],
      ["transaction_week_sun_start_date", sunday.toISOString().slice(0, 10)]
    ] as const) {
      expect(rowsOf(await tx({ fields: ["transaction_count"], group: bucket })), bucket).toEqual([{ group_label: label, transaction_count: 15 }])
    }
    const byMethod = rowsOf(await tx({ fields: ["total_net_paid_amount"], group: "payment_method", sort: ["total_net_paid_amount-"] }))
    expect(byMethod.map((r) => r.group_label)).toEqual(["cash", "creditcard", "check", "external", "credit"])
  })

  it("groups by every grouping, sorts by every detail field and returns every summary field", async () => {
    const count = Number(rowsOf(await tx({ fields: ["total_count"], group: "business_id" }))[0]!.total_count)
    for (const [name, grouping] of invoiceItemTransactionsCatalog.groupings) {
      const response = await tx({ fields: ["total_count"], group: name })
      expect(response.status, `${name}: ${response.text}`).toBe(200)
      expect(response.json.data.attributes.fields[0], name).toEqual({ name: "group_label", type: grouping.type })
      const total = (response.json.data.attributes.rows as Array<[unknown, number]>).reduce((sum, row) => sum + row[1], 0)
      expect(total, name).toBe(count)
    }
    const detail = [...invoiceItemTransactionsCatalog.detail.keys()]
    for (const name of detail) {
      const response = await tx({ fields: name === "key" ? ["key"] : ["key", name], sort: [`${name}-`] })
      expect(response.status, `${name}: ${response.text}`).toBe(200)
      expect(response.json.data.attributes.rows.length, name).toBe(count)
    }
    const all = rowsOf(await tx({ fields: detail }))
    const summaries = [...invoiceItemTransactionsCatalog.summary.keys()]
    const [sums] = rowsOf(await tx({ fields: summaries, group: "business_id" }))
    for (const name of ["total_net_paid_amount", "total_net_paid_revenue_amount", "total_net_paid_tax_amount", "total_payments_amount", "total_refunds_amount"]) {
      expect(sums![name], name).toBe(all.reduce((sum, row) => sum + Number(row[name.slice("total_".length)]), 0))
    }
    expect(sums).toMatchObject({ total_count: count, business_id_summary: String(sales.north.id), business_subdomain_summary: "demo" })
  })

  it("holds only the listed values in every closed enum field of every resource (equality filters compare them as stored)", async () => {
    for (const resource of REPORT_RESOURCES) {
      for (const [name, column] of resourceCatalog(resource)!.detail) {
        if (column.type !== "enum" || !column.values) continue
        const rows = rowsOf(await sales.query(resource, { fields: [name], page: { limit: 500 } }))
        for (const row of rows) if (row[name] !== null) expect(column.values, `${resource}.${name}`).toContain(row[name])
      }
    }
  })
})
