import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { STORE_RESOURCES } from "../../reports/sync/store-status.ts"
import { createTestDatabase } from "../support/database.ts"
import { createBusiness, createPerson } from "../support/factories.ts"

/** `npm run studio -- sync [--full]` as an operator runs it. */

let database: Awaited<ReturnType<typeof createTestDatabase>>
const dataDir = path.resolve(`.data/test/reports-cli-${process.pid}`)

const studio = (...args: Array<string>) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      ["src/cli.ts", ...args],
      { env: { ...process.env, DATABASE_URL: database.url, DATA_DIR: dataDir, LOG_LEVEL: "error" }, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr })
    )
  })

let businessId: number
let manager: Awaited<ReturnType<typeof createPerson>>

beforeAll(async () => {
  database = await createTestDatabase()
  const business = await createBusiness(database.pool, { subdomain: "demo" })
  businessId = business.id
  await createPerson(database.pool, business.id)
  manager = await createPerson(database.pool, business.id, { email: "manager@example.test", role: "manager" })
})
afterAll(async () => {
  await database?.drop()
  fs.rmSync(dataDir, { recursive: true, force: true })
})

describe("npm run studio -- sync", () => {
  it("rebuilds the store with --full, then refreshes it incrementally", async () => {
    const full = await studio("sync", "--full")
    expect(full.code, full.stderr).toBe(0)
    expect(JSON.parse(full.stdout)).toMatchObject({ outcome: "full", generation: 1, rows: { clients: 2 } })
    expect(fs.existsSync(path.join(dataDir, "reports", "store-1.duckdb"))).toBe(true)

    const incremental = await studio("sync")
    expect(incremental.code, incremental.stderr).toBe(0)
    expect(JSON.parse(incremental.stdout)).toMatchObject({ outcome: "unchanged", generation: 1 })
  })

  it("says what a quiet run did: nothing changed, beside the rows the store holds and the generation's age", async () => {
    expect((await studio("sync")).code).toBe(0) // a store to compare with, if the test above left none
    const answer = JSON.parse((await studio("sync")).stdout)
    expect(answer.outcome).toBe("unchanged")
    expect(answer.store).toMatchObject({ generation: answer.generation, rows: { clients: 2, enrollments: 0, pays: 0 } })
    expect(Object.keys(answer.store.rows).sort()).toEqual([...STORE_RESOURCES].sort())
    expect(answer.store.age_seconds).toBeGreaterThanOrEqual(0)
    expect(answer.summary).toMatch(/^nothing changed since the last sync; generation \d+ still serves; built .* ago, it holds 2 clients(, |$)/)
  })
})

describe("npm run studio -- reports grant|revoke", () => {
  const grants = async () =>
    (await database.pool.query(`select staff_member_id from report_grants where business_id = $1`, [businessId])).rows.map((row) =>
      Number(row.staff_member_id))

  it("grants and revokes a staff member's report access by e-mail", async () => {
    const granted = await studio("reports", "grant", "--business", "demo", "--email", "Manager@Example.test")
    expect(granted.code, granted.stderr).toBe(0)
    expect(JSON.parse(granted.stdout)).toMatchObject({ business: "demo", staff_member_id: manager.staffMemberId, granted: true, can_read_reports: true })
    // Granting twice is harmless.
    expect((await studio("reports", "grant", "--business", "demo", "--email", "manager@example.test")).code).toBe(0)
    expect(await grants()).toEqual([manager.staffMemberId])

    const revoked = await studio("reports", "revoke", "--business", "demo", "--email", "manager@example.test")
    expect(revoked.code, revoked.stderr).toBe(0)
    expect(JSON.parse(revoked.stdout)).toMatchObject({ granted: false, can_read_reports: false })
    expect(await grants()).toEqual([])
  })

  it("refuses someone who is not staff, an unknown business and a malformed e-mail", async () => {
    const notStaff = await studio("reports", "grant", "--business", "demo", "--email", "nobody@example.test")
    expect(notStaff.code).toBe(1)
    expect(notStaff.stderr).toContain("nobody@example.test is not a staff member")
    const unknown = await studio("reports", "grant", "--business", "nowhere", "--email", "manager@example.test")
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toContain('no business with subdomain "nowhere"')
    const malformed = await studio("reports", "grant", "--business", "demo", "--email", "not-an-address")
    expect(malformed.code).toBe(1)
    expect(await grants()).toEqual([])
  })
})

describe("npm run studio -- seed scale", () => {
  let seededInvoices = 0
  let seededPays = 0
  let seededPunches = 0
  it("generates businesses with enrollments, and refuses sizes out of range", { timeout: 120_000 }, async () => {
    const seeded = await studio("seed", "scale", "--enrollments", "2000", "--years", "1")
    expect(seeded.code, seeded.stderr).toBe(0)
    const summary = JSON.parse(seeded.stdout)
    expect(summary.businesses).toEqual(["scale-1"])
    expect(summary.visits + summary.waitlist_entries).toBeGreaterThan(1000)
    const { rows } = await database.pool.query(
      `select count(*)::int as n from visits v join businesses b on b.id = v.business_id where b.subdomain = 'scale-1'`
    )
    expect(rows[0].n).toBe(summary.visits)

    // Sales, as the Core API writes them: totals are the sums of their parts and of their items,
    // payments never exceed an invoice's total, numbers are unique and counted.
    expect(summary.invoices).toBeGreaterThan(0)
    expect(summary.invoice_items).toBeGreaterThan(summary.invoices)
    expect(summary.payments).toBeGreaterThan(0)
    expect(summary.refunds).toBeGreaterThan(0)
    const scalar = async (query: string) => (await database.pool.query(query)).rows[0].n
    const scale = `(select id from businesses where subdomain = 'scale-1')`
    expect(await scalar(`select count(*)::int as n from invoices where business_id = ${scale}`)).toBe(summary.invoices)
    expect(await scalar(`select count(*)::int as n from invoice_items where business_id = ${scale}`)).toBe(summary.invoice_items)
    const states = (await database.pool.query(`select state, count(*)::int as n from invoices where business_id = ${scale} group by 1`)).rows
    expect(states.map((r) => r.state).sort()).toEqual(expect.arrayContaining(["canceled", "closed"]))
    expect(await scalar(`select count(*)::int as n from invoices where business_id = ${scale}
      and total_cents <> subtotal_cents + adjustment_total_cents + discount_total_cents + additional_tax_total_cents`)).toBe(0)
    expect(await scalar(`select count(*)::int as n from invoices i cross join lateral (
        select sum(price_cents) as a, sum(total_cents) as b, sum(discount_total_cents) as c, sum(adjustment_total_cents) as d,
               sum(included_tax_total_cents) as e, sum(additional_tax_total_cents) as f
        from invoice_items it where it.business_id = i.business_id and it.invoice_id = i.id) s
      where i.business_id = ${scale} and (i.subtotal_cents, i.total_cents, i.discount_total_cents, i.adjustment_total_cents,
        i.included_tax_total_cents, i.additional_tax_total_cents) is distinct from (s.a, s.b, s.c, s.d, s.e, s.f)`)).toBe(0)
    // Each item's adjustments add up to its stored amounts: prorates, coupons, exclusive and inclusive tax lines.
    expect(await scalar(`select count(*)::int as n from invoice_items it cross join lateral (
        select coalesce(sum(amount_cents) filter (where type = 'ProrateAdjustment'), 0) as a, coalesce(sum(amount_cents) filter (where type = 'Discount'), 0) as b,
               coalesce(sum(amount_cents) filter (where type = 'TaxAdjustment' and not inclusive), 0) as c,
               coalesce(sum(amount_cents) filter (where type = 'TaxAdjustment' and inclusive), 0) as d
        from invoice_item_adjustments a where a.business_id = it.business_id and a.invoice_item_id = it.id) s
      where it.business_id = ${scale} and (it.adjustment_total_cents, it.discount_total_cents, it.additional_tax_total_cents,
        it.included_tax_total_cents) is distinct from (s.a, s.b, s.c, s.d)`)).toBe(0)
    for (const type of ["ProrateAdjustment", "Discount"]) {
      expect(await scalar(`select count(*)::int as n from invoice_item_adjustments where business_id = ${scale} and type = '${type}'`)).toBeGreaterThan(0)
    }
    expect(await scalar(`select count(distinct inclusive)::int as n from invoice_item_adjustments where business_id = ${scale} and type = 'TaxAdjustment'`)).toBe(2)
    expect(await scalar(`select count(*)::int as n from invoices i where i.business_id = ${scale} and
      (select coalesce(sum(amount_cents), 0) from payments p where p.business_id = i.business_id and p.invoice_id = i.id and p.state = 'settled')
      > i.total_cents`)).toBe(0)
    // A closed invoice is paid in full (less its refunds); refunds never exceed their payment.
    expect(await scalar(`select count(*)::int as n from invoices i where i.business_id = ${scale} and i.state = 'closed' and i.total_cents <>
      (select coalesce(sum(amount_cents), 0) from payments p where p.business_id = i.business_id and p.invoice_id = i.id and p.state = 'settled')`)).toBe(0)
    expect(await scalar(`select count(*)::int as n from refunds r join payments p on p.business_id = r.business_id and p.id = r.payment_id
      where r.business_id = ${scale} and r.amount_cents > p.amount_cents`)).toBe(0)
    for (const state of ["failed", "voided"]) {
      expect(await scalar(`select count(*)::int as n from payments where business_id = ${scale} and state = '${state}'`)).toBeGreaterThan(0)
    }
    expect(await scalar(`select count(distinct payment_method)::int as n from payments where business_id = ${scale}`)).toBe(4)
    expect(await scalar(`select count(*)::int as n from payments p where p.business_id = ${scale} and p.payment_method = 'creditcard'
      and (p.form_of_payment_id is null or (p.state <> 'failed') <> (p.gateway_transaction_id is not null))`)).toBe(0)
    // Account credit never goes below zero.
    expect(await scalar(`select count(*)::int as n from (select person_id from account_credit_entries where business_id = ${scale}
      group by 1 having sum(amount_cents) < 0) x`)).toBe(0)
    // Members' renewals are tied to their billing periods; pack sales created their plans.
    expect(await scalar(`select count(*)::int as n from membership_billing_periods where business_id = ${scale}`)).toBeGreaterThan(0)
    expect(await scalar(`select count(*)::int as n from membership_billing_periods m join invoices i on i.business_id = m.business_id
      and i.id = m.invoice_id where m.business_id = ${scale} and (m.state = 'paid') <> (i.state = 'closed')`)).toBe(0)
    expect(await scalar(`select count(*)::int as n from plans where business_id = ${scale} and type = 'Pack'`)).toBeGreaterThan(0)
    expect(await scalar(`select last_number::int as n from invoice_numbers where business_id = ${scale}`)).toBe(summary.invoices)
    expect(await scalar(`select count(distinct invoice_number)::int as n from invoices where business_id = ${scale}`)).toBe(summary.invoices)
    seededInvoices = summary.invoices
    seededPays = summary.pays
    seededPunches = summary.punches

    const zero = await studio("seed", "scale", "--enrollments", "0")
    expect(zero.code).toBe(1)
    expect(zero.stderr).toContain("--enrollments must be between 1 and 100000000")
    const years = await studio("seed", "scale", "--enrollments", "10", "--years", "50")
    expect(years.code).toBe(1)
    expect(years.stderr).toContain("--years must be between 1 and 20")
  })

  it("its sales are read by the report sync: every invoice (none is a cart) and every plan holder", { timeout: 120_000 }, async () => {
    expect(seededInvoices).toBeGreaterThan(0)
    const synced = await studio("sync", "--full")
    expect(synced.code, synced.stderr).toBe(0)
    const store = JSON.parse(synced.stdout).rows
    expect(store.invoices).toBe(seededInvoices)
    expect(store.person_plans).toBe((await database.pool.query(`select count(*)::int as n from plan_people`)).rows[0].n)
    expect(store.pays).toBe(seededPays)
    // transactions: every payment and refund of those invoices.
    expect(store.transactions).toBe((await database.pool.query(`select (select count(*) from payments) + (select count(*) from refunds) as n`)).rows.map((r) => Number(r.n))[0])
  })

  it("pays its instructors by the pay rules: one service pay per instructor of each past session, commissions, reviews", async () => {
    expect(seededPays).toBeGreaterThan(0)
    const scalar = async (query: string) => (await database.pool.query(query)).rows[0].n
    const scale = `(select id from businesses where subdomain = 'scale-1')`
    // One service pay per instructor of every past active session, each occurrence marked complete.
    expect(await scalar(`select count(*)::int as n from event_occurrences o
      join event_occurrence_staff_members es on es.business_id = o.business_id and es.event_occurrence_id = o.id
      where o.business_id = ${scale} and o.state = 'active' and o.end_at < now()`)).toBe(
      await scalar(`select count(*)::int as n from pays where business_id = ${scale} and pay_type = 'service'`)
    )
    // The rule, recomputed: base + per head beyond the minimum + the highest tier reached.
    expect(await scalar(`select count(*)::int as n from pays y
      join pay_rates r on r.business_id = y.business_id and r.staff_member_id = y.staff_member_id and r.service_id is null
      cross join lateral (select count(*) as n from visits v
        where v.business_id = y.business_id and v.event_occurrence_id = y.event_occurrence_id and v.state = 'completed') a
      where y.business_id = ${scale} and y.pay_type = 'service'
        and y.final_cents <> r.base_cents + r.per_head_cents * greatest(0, a.n - r.per_head_minimum)
          + coalesce((select max(t.bonus_cents) from pay_rate_tiers t where t.business_id = r.business_id and t.pay_rate_id = r.id
                       and t.attendance_threshold <= a.n), 0)`)).toBe(0)
    expect(await scalar(`select count(*)::int as n from pays where business_id = ${scale} and pay_type = 'commission'`)).toBeGreaterThan(0)
    expect(await scalar(`select count(*)::int as n from pays y join invoices i on i.business_id = y.business_id and i.id = y.invoice_id
      where y.business_id = ${scale} and y.pay_type = 'commission' and (i.state <> 'closed' or i.commission_recipient_id <> y.staff_member_id)`)).toBe(0)
    const states = (await database.pool.query(`select pay_state, count(*)::int as n from pays where business_id = ${scale} group by 1`)).rows
    expect(states.map((r) => r.pay_state).sort()).toEqual(["approved", "denied", "pending"])
    expect(await scalar(`select count(*)::int as n from pays where business_id = ${scale}
      and pay_period_start <> date_trunc('month', pay_period_start)::date and extract(day from pay_period_start) <> 16`)).toBe(0)
  })

  it("pays its visits with the plans it sold, as auto-pay does: within the plans' dates, packs up to their count", async () => {
    const scalar = async (query: string) => (await database.pool.query(query)).rows[0].n
    const scale = `(select id from businesses where subdomain = 'scale-1')`
    expect(seededPunches).toBeGreaterThan(0)
    expect(await scalar(`select count(*)::int as n from punches where business_id = ${scale}`)).toBe(seededPunches)
    // Each visit mirrors its punch; each punch is its holder's, within the plan's dates.
    expect(await scalar(`select count(*)::int as n from visits where business_id = ${scale} and punch_id is not null`)).toBe(seededPunches)
    expect(await scalar(`select count(*)::int as n from punches pu
      join visits v on v.business_id = pu.business_id and v.id = pu.visit_id
      join plans pl on pl.business_id = pu.business_id and pl.id = pu.plan_id
      join event_occurrences o on o.business_id = v.business_id and o.id = v.event_occurrence_id
      join businesses b on b.id = pu.business_id
      where pu.business_id = ${scale} and (v.punch_id <> pu.id or v.paid_for_by <> pl.name or pu.person_id <> v.person_id
        or pu.visit_date <> (o.start_at at time zone b.time_zone)::date
        or pu.visit_date < pl.start_date or pu.visit_date > coalesce(pl.end_date, 'infinity')
        or not exists (select 1 from plan_people pp where pp.business_id = pl.business_id and pp.plan_id = pl.id and pp.person_id = pu.person_id))`)).toBe(0)
    // Packs never pay beyond their count, and the used-up ones are exhausted.
    const packs = (await database.pool.query(`select count(*) filter (where x.n > pl.count)::int as over,
        count(*) filter (where (x.n = pl.count) <> (pl.exhausted_at is not null))::int as mismarked,
        count(*) filter (where x.n = pl.count)::int as used_up
      from plans pl cross join lateral (select count(*)::int as n from punches pu where pu.business_id = pl.business_id and pu.plan_id = pl.id) x
      where pl.business_id = ${scale} and pl.count is not null`)).rows[0]
    expect(packs).toMatchObject({ over: 0, mismarked: 0 })
    expect(packs.used_up).toBeGreaterThan(0)
    // Auto-pay leaves no visit unpaid that a plan of its holder could still pay.
    expect(await scalar(`select count(*)::int as n from visits v
      join event_occurrences o on o.business_id = v.business_id and o.id = v.event_occurrence_id
      join businesses b on b.id = v.business_id
      join plan_people pp on pp.business_id = v.business_id and pp.person_id = v.person_id
      join plans pl on pl.business_id = pp.business_id and pl.id = pp.plan_id
      where v.business_id = ${scale} and v.punch_id is null
        and (o.start_at at time zone b.time_zone)::date between pl.start_date and coalesce(pl.end_date, 'infinity')
        and (pl.count is null or pl.count > (select count(*) from punches pu where pu.business_id = pl.business_id and pu.plan_id = pl.id))`)).toBe(0)
  })
})
