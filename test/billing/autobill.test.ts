import { DuckDBInstance } from "@duckdb/node-api"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { syncReports } from "../../reports/sync/sync.ts"
import { DUCKDB_OPTIONS } from "../../reports/sync/copy.ts"
import { readCurrent } from "../../reports/sync/generations.ts"
import { chargePeriod, billDueMemberships } from "../../src/billing/billing-runs/service.ts"
import { PaymentGateway } from "../../src/platform/payments/gateway.ts"
import { createPlanProduct } from "../support/billing-factories.ts"
import { makeSettableClock } from "../support/clock.ts"
import { pendingJobs } from "../people/fixtures.ts"
import { vaultCard } from "../support/vaulting.ts"
import { NOW, type Studio, setUpStudio, studioCallers } from "../support/studio.ts"

/**
 * Automatic membership billing with a pinned clock: a membership sold through an invoice and
 * paid with a vaulted card renews itself period by period (the sweep invoices, the charge job
 * pays the autobill card): three periods billed, one decline retried, no period billed twice
 * (the sweep run twice and concurrently, the charge run concurrently, a worker dying after the
 * gateway charged).
 */
const clock = makeSettableClock(NOW)
let s: Studio
let membership: number
let goodCard: number
let decliningCard: number
let planId: number
let saleId: number
const reportsDir = path.resolve(`.data/test/autobill-reports-${process.pid}`)

const { desk } = studioCallers(() => s)
const vault = (personId: number, number: string) => vaultCard(s, personId, number)
const setAutobill = async (formId: number) => {
  const response = await desk("PUT", `/people/${s.cleo.personId}/form_of_payments/${formId}`, { form_of_payment: { autobill: true } })
  expect(response.status, response.text).toBe(200)
}
const sweep = () => s.server.runtime.runPromise(billDueMemberships())
const charge = (periodId: number) => s.server.runtime.runPromise(chargePeriod(s.business.id, periodId))
const charges = async () =>
  Number((await s.pool.query(`select count(*) from sandbox_gateway_transactions where business_id = $1 and kind = 'charge' and status = 'succeeded'`, [s.business.id])).rows[0].count)
const periods = async () =>
  (await s.pool.query(
    `select id::int, period_start::text, invoice_id::int, state, attempts, next_attempt_at from membership_billing_periods where business_id = $1 and plan_id = $2 order by period_start`,
    [s.business.id, planId]
  )).rows as Array<{ id: number; period_start: string; invoice_id: number; state: string; attempts: number; next_attempt_at: Date | null }>
const invoice = async (id: number) => (await desk("GET", `/invoices/${id}`)).json.invoices[0]
const cleoMemberships = async () =>
  Number((await s.pool.query(
    `select count(*) from plans p join plan_people pp on pp.business_id = p.business_id and pp.plan_id = p.id where p.business_id = $1 and pp.person_id = $2 and p.type = 'Membership'`,
    [s.business.id, s.cleo.personId]
  )).rows[0].count)

beforeAll(async () => {
  s = await setUpStudio(clock)
  membership = (await createPlanProduct(s.pool, s.business.id, { kind: "membership", name: "Monthly unlimited", price_cents: 3900, invoice_interval_count: 1, invoice_interval_unit: "monthly" })).id
  goodCard = await vault(s.cleo.personId, "4242424242424242")
  decliningCard = await vault(s.cleo.personId, "4000000000000341")
}, 180_000)

afterAll(async () => {
  await s?.server.close()
  fs.rmSync(reportsDir, { recursive: true, force: true })
})

describe("automatic membership billing", () => {
  it("sells the membership through an invoice paid with the vaulted card; nothing is due yet", async () => {
    clock.set(NOW)
    const created = await desk("POST", "/invoices", { invoice: { payer_id: s.cleo.personId, plan_products: [{ id: membership }] } })
    expect(created.status, created.text).toBe(201)
    const sale = created.json.invoices[0]
    saleId = sale.id
    const paid = await desk("POST", `/invoices/${sale.id}/payments`, { payment: { payment_method: "creditcard", amount_cents: sale.total_cents, form_of_payment_id: goodCard } })
    expect(paid.status, paid.text).toBe(201)
    expect((await invoice(sale.id)).state).toBe("closed")
    const { rows } = await s.pool.query(
      `select r.plan_id::int from invoice_item_recipients r join invoice_items i on i.business_id = r.business_id and i.id = r.invoice_item_id
       where i.business_id = $1 and i.invoice_id = $2`,
      [s.business.id, sale.id]
    )
    planId = rows[0].plan_id
    const plan = (await s.pool.query(`select start_date::text, end_date from plans where id = $1`, [planId])).rows[0]
    expect(plan).toEqual({ start_date: "2026-11-02", end_date: null })
    expect(await sweep()).toBe(0)
    // The day before the first renewal (business-local: Los Angeles), still nothing.
    clock.set("2026-12-02T07:00:00Z")
    expect(await sweep()).toBe(0)
    expect(await periods()).toEqual([])
  })

  it("bills the first renewal once, whether the sweep runs twice or two sweeps run at once", async () => {
    clock.set("2026-12-02T17:00:00Z")
    const together = await Promise.all([sweep(), sweep()])
    expect(together[0] + together[1]).toBe(1)
    expect(await sweep()).toBe(0)
    const [period] = await periods()
    expect(await periods()).toHaveLength(1)
    expect(period).toMatchObject({ period_start: "2026-12-02", state: "open", attempts: 0 })
    const renewal = await invoice(period!.invoice_id)
    expect(renewal).toMatchObject({ state: "open", total_cents: 3900 })
    const jobs = (await pendingJobs(s.pool, "charge_membership_period")) as Array<{ period_id: number }>
    expect(jobs.filter((job) => job.period_id === period!.id)).toHaveLength(1)
    // The job payload carries ids only.
    expect(JSON.stringify(jobs)).not.toContain("4242")
  })

  it("charges the autobill card once when two charge runs race, closes the invoice and keeps the one plan", async () => {
    const before = await charges()
    const [period] = await periods()
    const outcomes = await Promise.all([charge(period!.id), charge(period!.id)])
    expect([...outcomes].sort()).toEqual(["paid", "skipped"])
    expect(await charges()).toBe(before + 1)
    expect(await periods()).toMatchObject([{ state: "paid", attempts: 1 }])
    const renewal = await invoice(period!.invoice_id)
    expect(renewal.state).toBe("closed")
    expect(await cleoMemberships()).toBe(1)
    expect((await s.pool.query(`select end_date from plans where id = $1`, [planId])).rows[0].end_date).toBeNull()
    // A late duplicate of the job finds the period paid.
    expect(await charge(period!.id)).toBe("skipped")
    expect(await charges()).toBe(before + 1)
  })

  it("records a decline, retries a day later on the autobill card then in place, and pays", async () => {
    await setAutobill(decliningCard)
    clock.set("2027-01-02T17:00:00Z")
    expect(await sweep()).toBe(1)
    const second = (await periods())[1]!
    expect(second.period_start).toBe("2027-01-02")
    expect(await charge(second.id)).toBe("declined")
    const failed = await s.pool.query(`select state, error_message, amount_cents from payments where business_id = $1 and invoice_id = $2`, [s.business.id, second.invoice_id])
    expect(failed.rows).toEqual([{ state: "failed", error_message: "card_declined", amount_cents: 3900 }])
    const retrying = (await periods())[1]!
    expect(retrying).toMatchObject({ state: "open", attempts: 1 })
    expect(retrying.next_attempt_at!.toISOString()).toBe("2027-01-03T17:00:00.000Z")
    expect((await invoice(second.invoice_id)).state).toBe("open")
    // While the period is being retried, no new period starts and an early run does nothing.
    expect(await sweep()).toBe(0)
    expect(await charge(second.id)).toBe("skipped")
    await setAutobill(goodCard)
    clock.set("2027-01-03T17:00:00Z")
    expect(await charge(second.id)).toBe("paid")
    expect((await periods())[1]).toMatchObject({ state: "paid", attempts: 2 })
    expect((await invoice(second.invoice_id)).state).toBe("closed")
  })

  it("a worker that died after the gateway charged: the restarted job's charge is the same charge", async () => {
    clock.set("2027-02-02T17:00:00Z")
    expect(await sweep()).toBe(1)
    const third = (await periods())[2]!
    const token = (await s.pool.query(`select gateway_token from forms_of_payment where id = $1`, [goodCard])).rows[0].gateway_token
    // The dead worker's attempt 1 reached the gateway with the attempt's key (payments scope it by business and payer).
    const key = `${s.business.id}:person:${s.cleo.personId}:autobill:${planId}:2027-02-02:1`
    const first = await s.server.runtime.runPromise(
      Effect.gen(function* () {
        const gateway = yield* PaymentGateway
        return yield* gateway.charge({ businessId: s.business.id, token, amountCents: 3900, currency: "USD", idempotencyKey: key, description: "Invoice" })
      })
    )
    expect(first._tag).toBe("Succeeded")
    const before = await charges()
    expect(await charge(third.id)).toBe("paid")
    expect(await charges()).toBe(before)
    const payment = await s.pool.query(`select gateway_transaction_id from payments where business_id = $1 and invoice_id = $2 and state = 'settled'`, [s.business.id, third.invoice_id])
    expect(payment.rows).toEqual([{ gateway_transaction_id: (first as { transactionId: string }).transactionId }])
  })

  it("three periods billed, each once; one membership; nothing more is due until the next period", async () => {
    expect(await sweep()).toBe(0)
    const all = await periods()
    expect(all.map((p) => [p.period_start, p.state])).toEqual([
      ["2026-12-02", "paid"],
      ["2027-01-02", "paid"],
      ["2027-02-02", "paid"]
    ])
    expect(new Set(all.map((p) => p.invoice_id)).size).toBe(3)
    for (const p of all) expect((await invoice(p.invoice_id)).state).toBe("closed")
    expect(await cleoMemberships()).toBe(1)
  })

  it("reports the renewals' charges as autopay, and the sale the desk was paid for as not", async () => {
    await syncReports({ databaseUrl: s.server.databaseUrl, dir: reportsDir, mode: "full" })
    const instance = await DuckDBInstance.create(path.join(reportsDir, readCurrent(reportsDir)!.file), { ...DUCKDB_OPTIONS, access_mode: "READ_ONLY" })
    try {
      const connection = await instance.connect()
      const reader = await connection.runAndReadAll(
        `SELECT DISTINCT CAST(invoice_id AS INTEGER) AS invoice_id, transaction_state, transaction_autopay
         FROM invoice_item_transactions WHERE business_id = ${s.business.id} AND transaction_type = 'payment' ORDER BY 1, 2`
      )
      connection.closeSync()
      const renewals = (await periods()).map((p) => p.invoice_id)
      expect(reader.getRowObjectsJS()).toEqual([
        { invoice_id: saleId, transaction_state: "settled", transaction_autopay: false },
        { invoice_id: renewals[0], transaction_state: "settled", transaction_autopay: true },
        // The declined charge was the billing run's too.
        { invoice_id: renewals[1], transaction_state: "failed", transaction_autopay: true },
        { invoice_id: renewals[1], transaction_state: "settled", transaction_autopay: true },
        { invoice_id: renewals[2], transaction_state: "settled", transaction_autopay: true }
      ])
    } finally {
      instance.closeSync()
    }
  })

  it("reports the autobill retry's declined charge as a failed, autopay transaction with its error (transactions)", async () => {
    // The store the test above built.
    const instance = await DuckDBInstance.create(path.join(reportsDir, readCurrent(reportsDir)!.file), { ...DUCKDB_OPTIONS, access_mode: "READ_ONLY" })
    try {
      const connection = await instance.connect()
      const reader = await connection.runAndReadAll(
        `SELECT CAST(invoice_id AS INTEGER) AS invoice_id, transaction_state, transaction_autopay, error_message, CAST(net_paid_amount AS INTEGER) AS net_paid_amount,
                CAST(transaction_amount AS INTEGER) AS transaction_amount, local_failed_at IS NOT NULL AS failed
         FROM transactions WHERE business_id = ${s.business.id} AND transaction_type = 'payment' ORDER BY invoice_id, transaction_state`
      )
      connection.closeSync()
      const renewals = (await periods()).map((p) => p.invoice_id)
      const sale = (state: string, autopay: boolean, invoice: number, error: string | null = null) => ({
        invoice_id: invoice,
        transaction_state: state,
        transaction_autopay: autopay,
        error_message: error,
        net_paid_amount: state === "settled" ? 3900 : 0,
        transaction_amount: 3900,
        failed: state === "failed"
      })
      const rows = reader.getRowObjectsJS()
      expect(rows.slice(1)).toEqual([
        sale("settled", true, renewals[0]!),
        sale("failed", true, renewals[1]!, "card_declined"),
        sale("settled", true, renewals[1]!),
        sale("settled", true, renewals[2]!)
      ])
      expect(rows[0]).toMatchObject({ invoice_id: saleId, transaction_state: "settled", transaction_autopay: false })
    } finally {
      instance.closeSync()
    }
  })
})
