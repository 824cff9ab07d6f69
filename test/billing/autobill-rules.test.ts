import { parseCrontab } from "graphile-worker"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { crontab } from "../../workers/crontab.ts"
import { tasks } from "../../workers/runner.ts"
import { MAX_ATTEMPTS, billDueMemberships, chargePeriod } from "../../src/billing/billing-runs/service.ts"
import { createPlanProduct } from "../support/billing-factories.ts"
import { makeSettableClock } from "../support/clock.ts"
import { NOW, type Studio, setUpStudio, studioCallers } from "../support/studio.ts"

/**
 * Automatic billing's rules: no autobill card counts as a decline (recorded with its reason),
 * retries come after 1, 3 and 7 days and the last failure ends the plan the day before the
 * unpaid period; stop_renewing_after_commitment, canceled plans and end dates stop billing; a
 * renewal paid by staff meanwhile settles its period; another business's period is not found.
 */
const clock = makeSettableClock(NOW)
let s: Studio
const plans: Record<"noCard" | "committed" | "canceled" | "ending", number> = { noCard: 0, committed: 0, canceled: 0, ending: 0 }

const { desk } = studioCallers(() => s)
const sweep = () => s.server.runtime.runPromise(billDueMemberships())
const charge = (periodId: number, businessId = s.business.id) => s.server.runtime.runPromise(chargePeriod(businessId, periodId))
const periodsOf = async (planId: number) =>
  (await s.pool.query(
    `select id::int, period_start::text, invoice_id::int, state, attempts, next_attempt_at from membership_billing_periods where business_id = $1 and plan_id = $2 order by period_start`,
    [s.business.id, planId]
  )).rows as Array<{ id: number; period_start: string; invoice_id: number; state: string; attempts: number; next_attempt_at: Date | null }>
const endDate = async (planId: number) => (await s.pool.query(`select end_date::text from plans where id = $1`, [planId])).rows[0].end_date as string | null

/** Sells `product` to Otto through an invoice paid in cash; answers the plan it created. */
const sell = async (product: number) => {
  const created = await desk("POST", "/invoices", { invoice: { payer_id: s.otto.personId, plan_products: [{ id: product }] } })
  expect(created.status, created.text).toBe(201)
  const sale = created.json.invoices[0]
  const paid = await desk("POST", `/invoices/${sale.id}/payments`, { payment: { payment_method: "cash", amount_cents: sale.total_cents } })
  expect(paid.status, paid.text).toBe(201)
  const { rows } = await s.pool.query(
    `select r.plan_id::int from invoice_item_recipients r join invoice_items i on i.business_id = r.business_id and i.id = r.invoice_item_id
     where i.business_id = $1 and i.invoice_id = $2`,
    [s.business.id, sale.id]
  )
  return rows[0].plan_id as number
}

beforeAll(async () => {
  s = await setUpStudio(clock)
  const monthly = (await createPlanProduct(s.pool, s.business.id, { kind: "membership", price_cents: 2500, commitment_length: null, commitment_unit: null })).id
  const committed = (await createPlanProduct(s.pool, s.business.id, { kind: "membership", price_cents: 2500, commitment_length: 2, commitment_unit: "month" })).id
  await s.pool.query(`update plan_products set stop_renewing_after_commitment = true where id = $1`, [committed])
  plans.noCard = await sell(monthly)
  plans.committed = await sell(committed)
  plans.canceled = await sell(monthly)
  plans.ending = await sell(monthly)
  await s.pool.query(`update plans set canceled_at = now() where id = $1`, [plans.canceled])
  await s.pool.query(`update plans set end_date = '2026-12-15' where id = $1`, [plans.ending])
}, 180_000)

afterAll(async () => s?.server.close())

describe("automatic billing rules", () => {
  it("bills the first period of every billable membership, not the canceled one", async () => {
    clock.set("2026-12-02T17:00:00Z")
    expect(await sweep()).toBe(3)
    expect(await periodsOf(plans.canceled)).toEqual([])
    for (const plan of [plans.noCard, plans.committed, plans.ending]) {
      expect((await periodsOf(plan)).map((p) => [p.period_start, p.state])).toEqual([["2026-12-02", "open"]])
    }
  })

  it("another business's period is not charged", async () => {
    const [period] = await periodsOf(plans.noCard)
    expect(await charge(period!.id, s.elsewhere.id)).toBe("skipped")
    expect((await periodsOf(plans.noCard))[0]).toMatchObject({ state: "open", attempts: 0 })
  })

  it("no autobill card is a decline with its reason; retries after 1, 3 and 7 days; the last ends the plan", async () => {
    const [period] = await periodsOf(plans.noCard)
    const schedule = ["2026-12-03T17:00:00.000Z", "2026-12-06T17:00:00.000Z", "2026-12-13T17:00:00.000Z"]
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const outcome = await charge(period!.id)
      const [now] = await periodsOf(plans.noCard)
      if (attempt < MAX_ATTEMPTS) {
        expect(outcome).toBe("declined")
        expect(now).toMatchObject({ state: "open", attempts: attempt })
        expect(now!.next_attempt_at!.toISOString()).toBe(schedule[attempt - 1])
        clock.set(schedule[attempt - 1]!)
      } else {
        expect(outcome).toBe("failed")
        expect(now).toMatchObject({ state: "failed", attempts: MAX_ATTEMPTS, next_attempt_at: null })
      }
    }
    const failed = await s.pool.query(`select state, error_message, form_of_payment_id from payments where business_id = $1 and invoice_id = $2`, [s.business.id, period!.invoice_id])
    expect(failed.rows).toHaveLength(MAX_ATTEMPTS)
    for (const row of failed.rows) expect(row).toEqual({ state: "failed", error_message: "No autobill card on file for automatic billing", form_of_payment_id: null })
    expect(await endDate(plans.noCard)).toBe("2026-12-01")
    // The amount is still owed: the invoice stays open.
    expect((await desk("GET", `/invoices/${period!.invoice_id}`)).json.invoices[0].state).toBe("open")
    expect(await charge(period!.id)).toBe("skipped")
  })

  it("a renewal paid by staff meanwhile settles its period without a charge", async () => {
    for (const plan of [plans.committed, plans.ending]) {
      const [period] = await periodsOf(plan)
      const paid = await desk("POST", `/invoices/${period!.invoice_id}/payments`, { payment: { payment_method: "cash", amount_cents: 2500 } })
      expect(paid.status, paid.text).toBe(201)
      expect(await charge(period!.id)).toBe("paid")
      expect((await periodsOf(plan))[0]!.state).toBe("paid")
    }
  })

  it("stops after the commitment (the plan ends with it), at a plan's end date, and after a final failure", async () => {
    clock.set("2027-01-02T17:00:00Z")
    expect(await sweep()).toBe(0)
    expect(await endDate(plans.committed)).toBe("2027-01-01")
    expect(await endDate(plans.ending)).toBe("2026-12-15")
    clock.set("2027-03-02T17:00:00Z")
    expect(await sweep()).toBe(0)
    for (const plan of Object.values(plans)) expect((await periodsOf(plan)).length).toBeLessThanOrEqual(1)
  })

  it("the sweep is on the crontab every 15 minutes and both tasks are registered with the worker", () => {
    const item = parseCrontab(crontab).find((candidate) => candidate.task === "bill_memberships")
    expect(item).toBeDefined()
    expect(tasks).toHaveProperty("bill_memberships")
    expect(tasks).toHaveProperty("charge_membership_period")
  })
})
