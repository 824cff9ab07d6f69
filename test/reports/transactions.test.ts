import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { REPORT_RESOURCES } from "../../reports/catalog/resources.ts"
import { transactionsCatalog } from "../../reports/catalog/transactions.ts"
import { transactionsTable } from "../../reports/sync/tables/transactions.ts"
import { createPerson, createToken } from "../support/factories.ts"
import { TEST_BASE_DOMAIN } from "../support/server.ts"
import { type CoreInvoice, type Sales, buildSales, closeSales, coreInvoices, localToday, methodOf, ok, rowsOf } from "./sales-fixture.ts"

/**
 * The transactions report over HTTP, on sales built through the Core API (sales-fixture.ts) plus
 * a declined card payment: one row per payment or refund, each equal to the Core API's record
 * to the cent (the declined and the voided ones too) and to the sum of its
 * invoice_item_transactions rows; every field, summary field and grouping; the months agree
 * with invoice_item_transactions and monthly_business_metrics; grants and franchise scope; a
 * new payment and its void reach the store at the next incremental sync.
 */

let sales: Sales
let declined: number
const tx = (attributes: unknown, options?: Parameters<Sales["query"]>[2]) => sales.query("transactions", attributes, options)
const all = { page: { limit: 500 } }

/** The north invoices out of the cart (the cart has no payments, and is not reported). */
const northInvoices = () => [sales.invoices.credit, sales.invoices.mixed, sales.invoices.member, sales.invoices.refunded]

interface CoreTransaction {
  key: string
  type: "payment" | "refund"
  id: number
  invoice_id: number
  state: string
  amount: number
  payment_type_id: number
  payment_id: number | null
  voided: boolean
  error: string | null
}

/** Every payment and refund of the north invoices as the Core API answers them, signed as the report signs them. */
const coreTransactions = async (): Promise<Array<CoreTransaction>> => {
  const list: Array<CoreTransaction> = []
  for (const invoice of (await coreInvoices(sales, northInvoices())) as Array<CoreInvoice & { payments: Array<any> }>) {
    for (const p of invoice.payments) {
      list.push({ key: `${sales.north.id}-p${p.id}`, type: "payment", id: p.id, invoice_id: invoice.id, state: p.state, amount: p.amount_cents, payment_type_id: p.payment_type_id, payment_id: null, voided: p.voided_at !== null, error: p.error_message ?? null })
      for (const r of p.refunds) {
        list.push({ key: `${sales.north.id}-r${r.id}`, type: "refund", id: r.id, invoice_id: invoice.id, state: r.state, amount: -r.amount_cents, payment_type_id: r.payment_type_id, payment_id: p.id, voided: r.voided_at !== null, error: r.error_message ?? null })
      }
    }
  }
  return list
}

/** A card the sandbox gateway declines, vaulted for Cleo through the hosted form. */
const vaultDecliningCard = async () => {
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
  return Math.max(...(await sales.desk("GET", `/people/${sales.cleo}/form_of_payments`)).json.form_of_payments.map((f: { id: number }) => f.id))
}

beforeAll(async () => {
  sales = await buildSales("reports-transactions")
  const form = await vaultDecliningCard()
  const answer = await sales.desk("POST", `/invoices/${sales.invoices.mixed}/payments`, { payment: { payment_method: "creditcard", amount_cents: 100, form_of_payment_id: form } })
  expect(answer.status, answer.text).toBe(422)
  declined = Number((await sales.server.pool.query(`select id from payments where invoice_id = $1 and state = 'failed'`, [sales.invoices.mixed])).rows[0].id)
  await sales.sync("full")
}, 240_000)

afterAll(async () => {
  await closeSales(sales)
})

const SHARED = [
  "business_id",
  "business_name",
  "business_subdomain",
  "franchise_id",
  "currency_code",
  "commission_recipient_name",
  "created_by_name",
  "credit_card_name",
  "error_message",
  "external_payment_name",
  "failed_at",
  "failed_date",
  "invoice_autobill",
  "invoice_due_date",
  "invoice_id",
  "invoice_number",
  "invoice_payer_email",
  "invoice_payer_home_location",
  "invoice_payer_id",
  "invoice_payer_name",
  "invoice_payer_phone",
  "invoice_payer_primary_staff_name_at_sale",
  "invoice_state",
  "payment_method",
  "payment_method_detail",
  "payment_transaction_id",
  "processing_method",
  "processor_transaction_id",
  "sale_location_name",
  "transaction_amount",
  "transaction_at",
  "transaction_autopay",
  "transaction_date",
  "transaction_id",
  "transaction_state",
  "transaction_type",
  "voided_at"
]
const MONEY = ["payments_amount", "refunds_amount", "net_paid_amount", "net_paid_tax_amount", "net_paid_revenue_amount"]

describe("the transactions report", () => {
  it("lists the issue's 43 fields, 26 summary fields and 34 groupings, and its table holds every column it reads", () => {
    expect(REPORT_RESOURCES).toContain("transactions")
    expect(transactionsCatalog.detail.size).toBe(43)
    expect(transactionsCatalog.summary.size).toBe(26)
    expect(transactionsCatalog.groupings.size).toBe(34)
    expect([...transactionsCatalog.summary.keys()].sort()).toEqual(
      [
        "business_id_summary business_subdomain_summary failed_count invoice_count settled_count total_count",
        "total_net_ach_paid_amount total_net_american_express_paid_amount total_net_amex_processing_paid_amount total_net_cash_paid_amount",
        "total_net_check_paid_amount total_net_credit_paid_amount total_net_discover_paid_amount total_net_external_paid_amount",
        "total_net_global_pay_processing_paid_amount total_net_mastercard_paid_amount total_net_other_credit_card_paid_amount",
        "total_net_other_processing_paid_amount total_net_paid_amount total_net_paid_revenue_amount total_net_paid_tax_amount",
        "total_net_visa_paid_amount total_payments_amount total_refunds_amount transaction_autopay_count transaction_count"
      ]
        .join(" ")
        .split(" ")
        .sort()
    )
    const stored = new Set(transactionsTable.columns.map(([name]) => name))
    const sqls = [...transactionsCatalog.detail.values(), ...transactionsCatalog.summary.values(), ...transactionsCatalog.groupings.values()].map((c) => c.sql)
    for (const sql of [...sqls, ...transactionsCatalog.keyOrder, transactionsCatalog.timeZoneSql]) {
      for (const [, name] of sql.matchAll(/\br\.([a-z0-9_]+)/g)) expect(stored.has(name!), name).toBe(true)
    }
  })

  it("has one row per Core API payment and refund, equal to it to the cent: the declined card and the voided payment too", async () => {
    const core = await coreTransactions()
    const rows = rowsOf(
      await tx({ fields: ["key", "transaction_type", "transaction_id", "invoice_id", "transaction_state", "transaction_amount", "payments_amount", "refunds_amount", "net_paid_amount", "payment_method", "payment_transaction_id", "voided_at", "error_message"], ...all })
    )
    expect(rows.map((r) => r.key).sort()).toEqual(core.map((c) => c.key).sort())
    for (const c of core) {
      const row = rows.find((r) => r.key === c.key)!
      const settled = c.state === "settled" ? c.amount : 0
      expect(row, c.key).toEqual({
        key: c.key,
        transaction_type: c.type,
        transaction_id: c.id,
        invoice_id: c.invoice_id,
        transaction_state: c.state,
        transaction_amount: c.amount,
        payments_amount: c.type === "payment" ? settled : 0,
        refunds_amount: c.type === "refund" ? settled : 0,
        net_paid_amount: settled,
        payment_method: methodOf(c.payment_type_id),
        payment_transaction_id: c.payment_id,
        voided_at: c.voided ? expect.stringMatching(/^\d{4}-\d\d-\d\dT/) : null,
        error_message: c.error
      })
    }
    // The declined card and the voided payment are there, and move nothing.
    expect(rows.find((r) => r.key === `${sales.north.id}-p${declined}`)).toMatchObject({ transaction_state: "failed", transaction_amount: 100, net_paid_amount: 0, error_message: expect.stringMatching(/./) })
    expect(rows.find((r) => r.key === `${sales.north.id}-p${sales.payments.voided}`)).toMatchObject({ transaction_state: "voided", transaction_amount: 700, net_paid_amount: 0 })
    // Settled payments less settled refunds, to the cent, per method.
    const [sums] = rowsOf(await tx({ fields: ["total_net_paid_amount", "total_payments_amount", "total_refunds_amount", "total_net_cash_paid_amount", "total_net_credit_paid_amount"], group: "business_id" }))
    const settled = core.filter((c) => c.state === "settled")
    const net = (filter: (c: CoreTransaction) => boolean) => settled.filter(filter).reduce((sum, c) => sum + c.amount, 0)
    expect(sums).toEqual({
      group_label: sales.north.id,
      total_net_paid_amount: net(() => true),
      total_payments_amount: net((c) => c.type === "payment"),
      total_refunds_amount: net((c) => c.type === "refund"),
      total_net_cash_paid_amount: net((c) => c.payment_type_id === 2),
      total_net_credit_paid_amount: net((c) => c.payment_type_id === 5)
    })
    // The invoices report agrees on the whole.
    const [invoices] = rowsOf(await sales.query("invoices", { fields: ["total_net_paid_amount", "total_payments_amount", "total_refunds_amount"], group: "business_id" }))
    expect(invoices).toEqual({ ...sums, total_net_cash_paid_amount: undefined, total_net_credit_paid_amount: undefined, group_label: sales.north.id })
  })

  it("nets each payment method, card network and processing method, as invoice_item_transactions does", async () => {
    const families = (card: string, amexProcessing: string, processor: string) => [
      "total_net_paid_amount",
      "total_net_ach_paid_amount",
      "total_net_cash_paid_amount",
      "total_net_check_paid_amount",
      "total_net_credit_paid_amount",
      "total_net_external_paid_amount",
      "total_net_visa_paid_amount",
      `total_net_${card}_paid_amount`,
      "total_net_american_express_paid_amount",
      "total_net_discover_paid_amount",
      "total_net_other_credit_card_paid_amount",
      `total_net_${processor}_processing_paid_amount`,
      `total_net_${amexProcessing}_processing_paid_amount`,
      "total_net_other_processing_paid_amount"
    ]
    const [row] = rowsOf(await tx({ fields: families("mastercard", "amex", "global_pay"), group: "business_id" }))
    const [items] = rowsOf(await sales.query("invoice_item_transactions", { fields: families("master_card", "american_express", "sandbox"), group: "business_id" }))
    expect(Object.values(row!)).toEqual(Object.values(items!))
    // Cash: 12000 + 3000 − 500 + 7750 + 22888 − 12000; credit: 1000 paid, 2000 refunded to it.
    expect(row).toMatchObject({
      total_net_cash_paid_amount: 12000 + 3000 - 500 + 7750 + 22888 - 12000,
      total_net_check_paid_amount: 2000,
      total_net_credit_paid_amount: 1000 - 2000,
      total_net_external_paid_amount: 1500,
      total_net_visa_paid_amount: 5000,
      total_net_american_express_paid_amount: 2000,
      total_net_mastercard_paid_amount: 0,
      total_net_global_pay_processing_paid_amount: 5000,
      total_net_amex_processing_paid_amount: 2000
    })
    // The three processing totals add up to all of net paid.
    expect(Number(row!.total_net_global_pay_processing_paid_amount) + Number(row!.total_net_amex_processing_paid_amount) + Number(row!.total_net_other_processing_paid_amount)).toBe(
      row!.total_net_paid_amount
    )
  })

  it("gives each transaction the fields of its invoice_item_transactions rows, and their money summed", async () => {
    const detail = [...transactionsCatalog.detail.keys()]
    const rows = rowsOf(await tx({ fields: detail, ...all }))
    const itemRows = rowsOf(await sales.query("invoice_item_transactions", { fields: ["key", ...SHARED, ...MONEY], ...all }))
    expect(rows.length).toBe(2 + 10 + 1 + 2)
    for (const row of rows) {
      const mine = itemRows.filter((r) => String(r.key).startsWith(`${row.key}-`))
      expect(mine.length, String(row.key)).toBeGreaterThan(0)
      for (const name of SHARED) expect(mine.map((r) => r[name]), `${row.key} ${name}`).toEqual(mine.map(() => row[name]))
      for (const name of MONEY) expect(mine.reduce((sum, r) => sum + Number(r[name]), 0), `${row.key} ${name}`).toBe(row[name])
      expect(Number(row.net_paid_revenue_amount) + Number(row.net_paid_tax_amount)).toBe(row.net_paid_amount)
      expect(Number(row.payments_amount) + Number(row.refunds_amount)).toBe(row.net_paid_amount)
    }
    const of = (type: string, id: number) => rows.find((r) => r.transaction_type === type && r.transaction_id === id)!
    expect(of("payment", sales.payments.visa)).toMatchObject({
      business_id: sales.north.id,
      business_name: "North",
      business_subdomain: "demo",
      franchise_id: sales.hq.id,
      currency_code: "USD",
      invoice_id: sales.invoices.mixed,
      invoice_state: "open",
      invoice_payer_id: sales.cleo,
      invoice_payer_name: "Cleo Client",
      invoice_payer_email: "cleo@example.com",
      created_by_name: "Olga Owner",
      sale_location_name: "Main",
      invoice_autobill: "f",
      transaction_state: "settled",
      payment_method: "creditcard",
      credit_card_name: "visa",
      payment_method_detail: "Visa 4242 12/2030",
      processing_method: "sandbox",
      external_payment_name: null,
      payment_transaction_id: null,
      transaction_autopay: "f",
      transaction_amount: 5000,
      payments_amount: 5000,
      refunds_amount: 0,
      net_paid_amount: 5000,
      failed_at: null,
      failed_date: null,
      voided_at: null,
      transaction_date: localToday()
    })
    expect(String(of("payment", sales.payments.visa).processor_transaction_id)).toMatch(/./)
    expect(String(of("payment", sales.payments.visa).invoice_number)).toMatch(/./)
    expect(of("payment", sales.payments.amex)).toMatchObject({ credit_card_name: "american_express", processing_method: "american_express", payment_method_detail: "American Express 0005 12/2030" })
    expect(of("payment", sales.payments.venmo)).toMatchObject({ payment_method: "external", external_payment_name: "Venmo", credit_card_name: null, processing_method: "other" })
    expect(of("payment", declined)).toMatchObject({
      transaction_state: "failed",
      failed_date: localToday(),
      failed_at: of("payment", declined).transaction_at,
      credit_card_name: "visa",
      net_paid_amount: 0,
      net_paid_tax_amount: 0
    })
    // The mixed sale's taxes: its net paid's tax is the invoice's ratio rule, not 0.
    expect(Number(of("payment", sales.payments.cash).net_paid_tax_amount)).toBeGreaterThan(0)
    // The refund to account credit is a credit refund of a cash payment.
    const toCredit = rows.find((r) => r.transaction_type === "refund" && r.invoice_id === sales.invoices.credit)!
    expect(toCredit).toMatchObject({ payment_method: "credit", net_paid_amount: -2000, refunds_amount: -2000, transaction_amount: -2000 })
  })

  it("counts failed, settled, autopay and distinct transactions and invoices", async () => {
    const [row] = rowsOf(await tx({ fields: ["transaction_count", "settled_count", "failed_count", "transaction_autopay_count", "invoice_count", "total_count"], group: "business_id" }))
    // credit: 1 payment + 1 refund; mixed: 8 payments (one declined, one voided) + 2 refunds (one voided); member: 1; refunded: 1 + 1.
    expect(row).toEqual({ group_label: sales.north.id, transaction_count: 15, settled_count: 2 + 7 + 1 + 2, failed_count: 1, transaction_autopay_count: 0, invoice_count: 4, total_count: 15 })
    const byState = rowsOf(await tx({ fields: ["transaction_count", "total_net_paid_amount"], group: "transaction_state" }))
    expect(byState).toEqual([
      { group_label: "failed", transaction_count: 1, total_net_paid_amount: 0 },
      { group_label: "settled", transaction_count: 12, total_net_paid_amount: expect.any(Number) },
      { group_label: "voided", transaction_count: 2, total_net_paid_amount: 0 }
    ])
    const byType = rowsOf(await tx({ fields: ["transaction_count", "total_payments_amount", "total_refunds_amount"], group: "transaction_type" }))
    expect(byType).toEqual([
      { group_label: "payment", transaction_count: 11, total_payments_amount: 12000 + 5000 + 2000 + 3000 + 2000 + 1500 + 1000 + 7750 + 22888, total_refunds_amount: 0 },
      { group_label: "refund", transaction_count: 4, total_payments_amount: 0, total_refunds_amount: -2000 - 500 - 12000 }
    ])
  })

  it("groups by every grouping, sorts by every detail field and sums every summary field", async () => {
    const count = 15
    for (const [name, grouping] of transactionsCatalog.groupings) {
      const response = await tx({ fields: ["total_count", "transaction_count"], group: name })
      expect(response.status, `${name}: ${response.text}`).toBe(200)
      expect(response.json.data.attributes.fields[0], name).toEqual({ name: "group_label", type: grouping.type })
      const rows = response.json.data.attributes.rows as Array<[unknown, number, number]>
      expect(rows.reduce((sum, row) => sum + row[1], 0), name).toBe(count)
      expect(new Set(rows.map((row) => JSON.stringify(row[0]))).size, name).toBe(rows.length)
    }
    const detail = [...transactionsCatalog.detail.keys()]
    for (const name of detail) {
      const response = await tx({ fields: name === "key" ? ["key"] : ["key", name], sort: [`${name}-`] })
      expect(response.status, `${name}: ${response.text}`).toBe(200)
      expect(response.json.data.attributes.rows.length, name).toBe(count)
    }
    const rows = rowsOf(await tx({ fields: detail, ...all }))
    const [sums] = rowsOf(await tx({ fields: [...transactionsCatalog.summary.keys()], group: "business_id" }))
    for (const name of ["net_paid_amount", "net_paid_revenue_amount", "net_paid_tax_amount", "payments_amount", "refunds_amount"]) {
      expect(sums![`total_${name}`], name).toBe(rows.reduce((sum, row) => sum + Number(row[name]), 0))
    }
    expect(sums).toMatchObject({ total_count: count, business_id_summary: String(sales.north.id), business_subdomain_summary: "demo" })
    // Groupings with known groups.
    const labels = async (group: string, filter?: unknown) =>
      rowsOf(await tx({ fields: ["transaction_count"], group, ...(filter === undefined ? {} : { filter }) })).map((r) => [r.group_label, r.transaction_count])
    expect(await labels("invoice_id")).toEqual(
      [
        [sales.invoices.credit, 2],
        [sales.invoices.mixed, 10],
        [sales.invoices.member, 1],
        [sales.invoices.refunded, 2]
      ].sort((a, b) => a[0]! - b[0]!)
    )
    expect(await labels("invoice_payer_name")).toEqual([["Cleo Client", 14], ["Dan Member", 1]])
    expect(await labels("payment_method")).toEqual([["cash", 7], ["check", 2], ["credit", 2], ["creditcard", 3], ["external", 1]])
    expect(await labels("credit_card_name")).toEqual([["american_express", 1], ["visa", 2], [null, 12]])
    expect(await labels("processing_method")).toEqual([["american_express", 1], ["other", 12], ["sandbox", 2]])
    expect(await labels("sale_location_name")).toEqual([["Main", 10], [null, 5]])
    expect(await labels("invoice_state")).toEqual([["closed", 5], ["open", 10]])
    expect(await labels("transaction_autopay")).toEqual([["f", 15]])
    expect(await labels("failed_date")).toEqual([[localToday(), 1], [null, 14]])
    const today = localToday()
    const monday = new Date(`${today}T12:00:00Z`)
    monday.setUTCDate(monday.getUTCDate() - ((monday.getUTCDay() + 6) % 7))
    const sunday = new Date(`${today}T12:00:00Z`)
    sunday.setUTCDate(sunday.getUTCDate() - sunday.getUTCDay())
    const quarter = `${today.slice(0, 4)}-${String(Math.floor((Number(today.slice(5, 7)) - 1) / 3) * 3 + 1).padStart(2, "0")}-01`
    for (const [base, n, filter] of [["transaction", 15, undefined], ["failed", 1, ["nemp", "failed_date"]]] as const) {
      for (const [bucket, label] of [
        ["month", `${today.slice(0, 7)}-01`],
        ["quarter", quarter],
        ["year", `${today.slice(0, 4)}-01-01`],
        ["week_mon", monday.toISOString().slice(0, 10)],
        ["week_sun", sunday.toISOString().slice(0, 10)]
      ] as const) {
        expect(await labels(`${base}_${bucket}_start_date`, filter), `${base}_${bucket}`).toEqual([[label, n]])
      }
    }
  })

  it("filters, sorts and pages by key without skipping or repeating a row", async () => {
    const failed = rowsOf(await tx({ fields: ["transaction_id", "error_message"], filter: ["eq", "transaction_state", "failed"] }))
    expect(failed).toEqual([{ transaction_id: declined, error_message: expect.stringMatching(/./) }])
    const between = rowsOf(await tx({ fields: ["transaction_count"], group: "business_id", filter: ["btw", "transaction_amount", 1500, 2000] }))
    // amex 2000, check 2000, Venmo 1500.
    expect(between).toEqual([{ group_label: sales.north.id, transaction_count: 3 }])
    const refunds = rowsOf(await tx({ fields: ["transaction_amount"], filter: ["and", [["eq", "transaction_type", "refund"], ["nemp", "voided_at"]]] }))
    expect(refunds).toEqual([{ transaction_amount: -300 }])
    const bad = await tx({ fields: ["key"], filter: ["eq", "transaction_state", "pending"] })
    expect(bad.status, bad.text).toBe(400)
    expect((await tx({ fields: ["invoice_item_id"] })).status).toBe(400)
    const sorted = rowsOf(await tx({ fields: ["key", "transaction_amount"], sort: ["transaction_amount-"], ...all }))
    const walked: Array<unknown> = []
    let after: string | undefined
    for (;;) {
      const response = await tx({ fields: ["key", "transaction_amount"], sort: ["transaction_amount-"], page: { limit: 4, ...(after === undefined ? {} : { starting_after: after }) } })
      const attributes = response.json.data.attributes
      walked.push(...rowsOf(response))
      if (!attributes.has_more) break
      after = attributes.last_key
    }
    expect(walked).toEqual(sorted)
    expect(sorted.map((r) => r.transaction_amount)).toEqual([...sorted.map((r) => Number(r.transaction_amount))].sort((a, b) => b - a))
  })

  it("agrees with invoice_item_transactions and monthly_business_metrics for each month", async () => {
    const fields = ["total_payments_amount", "total_refunds_amount", "total_net_paid_amount", "total_net_paid_revenue_amount", "total_net_paid_tax_amount"]
    const mine = rowsOf(await tx({ fields: [...fields, "transaction_count"], group: "transaction_month_start_date", filter: ["eq", "transaction_state", "settled"] }))
    const items = rowsOf(await sales.query("invoice_item_transactions", { fields: [...fields, "transaction_count"], group: "transaction_month_start_date", filter: ["eq", "transaction_state", "settled"] }))
    expect(mine).toEqual(items)
    const metrics = rowsOf(
      await sales.query("monthly_business_metrics", { fields: ["month_start_date", "payments_amount", "refunds_amount", "net_paid_amount", "net_paid_revenue_amount", "failed_transaction_count"], ...all })
    )
    const failed = rowsOf(await tx({ fields: ["failed_count"], group: "failed_month_start_date", filter: ["nemp", "failed_date"] }))
    for (const month of mine) {
      const metric = metrics.find((m) => m.month_start_date === month.group_label)!
      expect(metric, String(month.group_label)).toEqual({
        month_start_date: month.group_label,
        payments_amount: month.total_payments_amount,
        refunds_amount: month.total_refunds_amount,
        net_paid_amount: month.total_net_paid_amount,
        net_paid_revenue_amount: month.total_net_paid_revenue_amount,
        failed_transaction_count: failed.find((f) => f.group_label === month.group_label)?.failed_count ?? 0
      })
    }
  })

  it("answers owners and granted staff only, and a holding its franchisees' rows", async () => {
    const manager = await createPerson(sales.server.pool, sales.north.id, { role: "manager", first_name: "Mona", last_name: "Manager" })
    const token = await createToken(sales.server.pool, manager.accountId, sales.north.id)
    const refused = await tx({ fields: ["key"] }, { token })
    expect(refused.status, refused.text).toBe(403)
    await sales.server.pool.query(`insert into report_grants (business_id, staff_member_id) values ($1, $2)`, [sales.north.id, manager.staffMemberId])
    expect(rowsOf(await tx({ fields: ["total_count"], group: "business_id" }, { token }))).toEqual([{ group_label: sales.north.id, total_count: 15 }])
    const hq = { host: `hq.${TEST_BASE_DOMAIN}`, token: sales.hqToken }
    const [north] = rowsOf(await tx({ fields: ["total_net_paid_amount"], group: "business_id" }))
    expect(rowsOf(await tx({ fields: ["total_net_paid_amount", "transaction_count", "business_subdomain_summary"], group: "business_name" }, hq))).toEqual([
      { group_label: "North", total_net_paid_amount: north!.total_net_paid_amount, transaction_count: 15, business_subdomain_summary: "demo" },
      { group_label: "South", total_net_paid_amount: 5000, transaction_count: 1, business_subdomain_summary: "south" }
    ])
    // The south sale's payment, from the holding: its franchise_id is the holding's.
    const [south] = rowsOf(await tx({ fields: ["invoice_id", "franchise_id", "payment_method", "net_paid_amount"], filter: ["eq", "business_subdomain", "south"] }, hq))
    expect(south).toEqual({ invoice_id: sales.invoices.south, franchise_id: sales.hq.id, payment_method: "cash", net_paid_amount: 5000 })
  })

  it("picks up a new payment and then its void at the next incremental sync, and nothing when nothing changed", async () => {
    // The manager made above is a change (a client row); after it, a quiet minute changes nothing.
    await sales.sync("incremental")
    expect((await sales.sync("incremental")).outcome).toBe("unchanged")
    const paid = ok(await sales.desk("POST", `/invoices/${sales.invoices.mixed}/payments`, { payment: { payment_method: "cash", amount_cents: 1234 } }))
    const id = Number(paid.json.payments[0].id)
    const refreshed = await sales.sync("incremental")
    expect(refreshed.outcome).toBe("incremental")
    // The changed invoice's transactions at least (the refresh re-reads a margin before the last sync).
    expect(refreshed.rows.transactions).toBeGreaterThanOrEqual(11)
    const row = () => tx({ fields: ["transaction_state", "transaction_amount", "net_paid_amount", "payment_method", "voided_at"], filter: ["eq", "transaction_id", id] })
    expect(rowsOf(await row())).toEqual([{ transaction_state: "settled", transaction_amount: 1234, net_paid_amount: 1234, payment_method: "cash", voided_at: null }])
    ok(await sales.desk("POST", `/payments/${id}/voids`, {}))
    expect((await sales.sync("incremental")).outcome).toBe("incremental")
    expect(rowsOf(await row())).toEqual([{ transaction_state: "voided", transaction_amount: 1234, net_paid_amount: 0, payment_method: "cash", voided_at: expect.stringMatching(/^\d{4}-/) }])
    // Still the Core API's, to the cent, and what a full rebuild reads.
    const net = (await coreTransactions()).filter((c) => c.state === "settled").reduce((sum, c) => sum + c.amount, 0)
    const [before] = rowsOf(await tx({ fields: ["total_net_paid_amount", "transaction_count"], group: "business_id" }))
    expect(before).toEqual({ group_label: sales.north.id, total_net_paid_amount: net, transaction_count: 16 })
    const detail = [...transactionsCatalog.detail.keys()]
    const incremental = rowsOf(await tx({ fields: detail, ...all }))
    expect((await sales.sync("full")).outcome).toBe("full")
    expect(rowsOf(await tx({ fields: detail, ...all }))).toEqual(incremental)
  }, 120_000)
})
