import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { monthlyBusinessMetricsCatalog } from "../../reports/catalog/monthly-business-metrics.ts"
import { syncReports } from "../../reports/sync/sync.ts"
import { createPlan, createPlanProduct } from "../support/billing-factories.ts"
import { createApplication, createBusiness, createPerson, createToken } from "../support/factories.ts"
import { type TestResponse, apiCaller } from "../support/http.ts"
import { type TestServer, startTestServer } from "../support/server.ts"
import { rowsOf, reportQuery } from "./support.ts"
import { createService } from "../schedule/fixtures.ts"

/**
 * monthly_business_metrics over HTTP. Three months ago (M3) the studio had its first clients,
 * sessions of the three service types, enrollments in every state and two plans; the two months
 * after are quiet but for money; this month (M0) sells through the Core API (a pack and a
 * membership on one invoice, paid — the payment dated back to M1, after a declined card in M1 —
 * and part refunded this month; a pack on an open invoice paid in part). History cannot be
 * written through the Core API (it dates everything today), so the past is written to SQL as the
 * schedule and plans tests write it; every number below is counted by hand from that data, and
 * each month's money is reconciled with the invoice_item_transactions resource over HTTP.
 */

let server: TestServer
const dataDir = path.resolve(`.data/test/reports-monthly-${process.pid}`)
const reportsDir = path.join(dataDir, "reports")
let business: { id: number }
let token: string
const people = {} as Record<"ann" | "bea" | "cleo" | "dan" | "ivy", number>
let ivyStaff: number
let danInvoice: number

const sync = (mode: "full" | "incremental") => syncReports({ databaseUrl: server.databaseUrl, dir: reportsDir, mode })
const desk = apiCaller("/api/v2/desk", () => ({ request: server.request, token }))
const ok = (response: TestResponse, status = 201) => {
  expect(response.status, response.text).toBe(status)
  return response
}
const query = (attributes: unknown, resource = "monthly_business_metrics") => reportQuery(server.request, resource, attributes, { token })

/** The first of the business's month `back` months before the current one (Los Angeles). */
const today = () => new Intl.DateTimeFormat("en-CA", { timeZone: "America/Los_Angeles" }).format(new Date())
const monthStart = (back: number) => {
  const [y, m] = today().split("-").map(Number) as [number, number]
  const d = new Date(Date.UTC(y, m - 1 - back, 1))
  return d.toISOString().slice(0, 10)
}
const M3 = () => monthStart(3)
/** The 15th of M1 at noon in Los Angeles. */
const midM1 = () => `${monthStart(1).slice(0, 8)}15T20:00:00Z`
/** The 5th of M3, and the 20th. */
const day = (n: number) => `${M3().slice(0, 8)}${String(n).padStart(2, "0")}`

const DETAIL = [...monthlyBusinessMetricsCatalog.detail.keys()]

const zeros = Object.fromEntries(
  DETAIL.filter((name) => !["business_id", "business_name", "business_subdomain", "franchise_id", "currency_code", "key", "month_start_date"].includes(name)).map(
    (name) => [name, 0]
  )
)

beforeAll(async () => {
  fs.rmSync(dataDir, { recursive: true, force: true })
  server = await startTestServer({ dataDir })
  const pool = server.pool
  await createApplication(pool, "test-app")
  business = await createBusiness(pool, { subdomain: "demo", name: "Monthly Studio", time_zone: "America/Los_Angeles" })
  const owner = await createPerson(pool, business.id, { role: "owner", first_name: "Olga", last_name: "Owner" })
  token = await createToken(pool, owner.accountId, business.id)
  const person = async (first: string, role?: "standard") =>
    createPerson(pool, business.id, { first_name: first, last_name: "Client", ...(role ? { role } : {}) })
  const ivy = await person("Ivy", "standard")
  people.ivy = ivy.personId
  ivyStaff = ivy.staffMemberId!
  people.ann = (await person("Ann")).personId
  people.bea = (await person("Bea")).personId
  people.dan = (await person("Dan")).personId
  people.cleo = (await person("Cleo")).personId
  // Ann, Bea, Dan and Ivy joined on the 5th of M3 (Ivy became staff then too); Cleo and the owner today.
  const then = `${day(5)}T18:00:00Z`
  await pool.query(`update people set joined_at = $2 where business_id = $1 and id = any($3::bigint[])`, [
    business.id,
    then,
    [people.ann, people.bea, people.dan, people.ivy]
  ])
  await pool.query(`update staff_members set created_at = $2 where business_id = $1 and id = $3`, [business.id, then, ivyStaff])

  // Plans of M3: Ann's pack (5th to 20th), Bea's unlimited membership from the 5th.
  const pack = (await createPlanProduct(pool, business.id, { kind: "pack", name: "Five classes", count: 5, price_cents: 10000 })).id
  const membership = (await createPlanProduct(pool, business.id, { kind: "membership", name: "Unlimited", price_cents: 5000, consider_member: true })).id
  const annPack = await createPlan(pool, business.id, pack, [people.ann], { type: "Pack", count: 5, start_date: day(5), end_date: day(20) })
  await createPlan(pool, business.id, membership, [people.bea], { type: "Membership", count: null, consider_member: true, start_date: day(5), end_date: null })

  // Sessions on the 5th of M3 at 11:00 in Los Angeles: a class, an appointment, a course, and a
  // canceled class (left out with its enrollment).
  const service = async (type: "GroupClass" | "Appointment" | "Course", name: string) => createService(pool, business.id, { type, name })
  const session = async (serviceId: number, hour: number, state = "active", attendance = false) => {
    const { rows } = await pool.query(
      `insert into event_occurrences (business_id, service_id, name, start_at, end_at, time_zone, state, attendance_complete)
       values ($1, $2, 'Session', $3::timestamptz, $3::timestamptz + interval '1 hour', 'America/Los_Angeles', $4, $5) returning id`,
      [business.id, serviceId, `${day(5)}T${hour}:00:00Z`, state, attendance]
    )
    const id = Number(rows[0].id)
    return id
  }
  const a = await session(await service("GroupClass", "Vinyasa"), 18, "active", true)
  const b = await session(await service("Appointment", "Massage"), 18)
  const c = await session(await service("Course", "Teacher training"), 18)
  const d = await session(await service("GroupClass", "Yin"), 20, "canceled")
  for (const o of [a, b]) {
    await pool.query(`insert into event_occurrence_staff_members (business_id, event_occurrence_id, staff_member_id) values ($1, $2, $3)`, [business.id, o, ivyStaff])
  }
  const visit = async (o: number, personId: number, state: string, byStaff: number | null = null) =>
    Number(
      (
        await pool.query(
          `insert into visits (business_id, event_occurrence_id, person_id, state, created_by_staff_member_id) values ($1, $2, $3, $4, $5) returning id`,
          [business.id, o, personId, state, byStaff]
        )
      ).rows[0].id
    )
  const wait = (o: number, personId: number, state: string) =>
    pool.query(`insert into waitlist_entries (business_id, event_occurrence_id, person_id, state) values ($1, $2, $3, $4)`, [business.id, o, personId, state])
  const annA = await visit(a, people.ann, "completed")
  await visit(a, people.bea, "noshowed", ivyStaff)
  await wait(a, people.dan, "waiting")
  await visit(b, people.ann, "completed")
  await visit(b, people.bea, "late_canceled")
  await wait(b, people.dan, "expired")
  await visit(c, people.dan, "registered")
  await visit(c, people.bea, "reserved")
  await wait(c, people.ann, "removed")
  await visit(d, people.dan, "completed")
  // Ann's class is paid by her pack.
  const punch = await pool.query(
    `insert into punches (business_id, visit_id, plan_id, person_id, visit_date) values ($1, $2, $3, $4, $5) returning id`,
    [business.id, annA, annPack.id, people.ann, day(5)]
  )
  await pool.query(`update visits set punch_id = $3 where business_id = $1 and id = $2`, [business.id, annA, Number(punch.rows[0].id)])

  // This month, through the Core API: Cleo buys a pack and a membership on one invoice (15000),
  // pays it (it closes, her two plans start today) and gets 3000 back; Dan's pack (10000) is
  // opened and paid 4000.
  const cleoInvoice = ok(await desk("POST", "/invoices", { invoice: { payer_id: people.cleo, plan_products: [{ id: pack }, { id: membership }] } })).json
    .invoices[0] as { id: number; total_cents: number }
  expect(cleoInvoice.total_cents).toBe(15000)
  const payment = ok(await desk("POST", `/invoices/${cleoInvoice.id}/payments`, { payment: { payment_method: "cash", amount_cents: 15000 } })).json
    .payments[0] as { id: number }
  ok(await desk("POST", `/invoices/${cleoInvoice.id}/payments/${payment.id}/refunds`, { refund: { amount_cents: 3000 } }))
  // The payment dated back to M1 (the refund stays this month's), after a card declined on the
  // 10th of M1: a failed payment of an invoice with two items, one transaction.
  await pool.query(`update payments set created_at = $2 where business_id = $1 and id = $3`, [business.id, midM1(), payment.id])
  await pool.query(
    `insert into payments (business_id, invoice_id, person_id, payment_method, payment_type_id, state, amount_cents, description, error_message, created_at, updated_at)
     values ($1, $2, $3, 'creditcard', 1, 'failed', 15000, 'Card', 'Declined', $4, $4)`,
    [business.id, cleoInvoice.id, people.cleo, `${monthStart(1).slice(0, 8)}10T20:00:00Z`]
  )
  danInvoice = (ok(await desk("POST", "/invoices", { invoice: { payer_id: people.dan, plan_products: [{ id: pack }] } })).json.invoices[0] as { id: number }).id
  ok(await desk("PUT", `/invoices/${danInvoice}`, { invoice: { state_event: "open" } }), 200)
  ok(await desk("POST", `/invoices/${danInvoice}/payments`, { payment: { payment_method: "cash", amount_cents: 4000 } }))
  await sync("full")
}, 180_000)

afterAll(async () => {
  await server?.close()
  fs.rmSync(dataDir, { recursive: true, force: true })
})

const detailRows = async () => rowsOf(await query({ fields: DETAIL, sort: ["month_start_date+"] }))

const MONEY = ["payments_amount", "refunds_amount", "net_paid_amount", "net_paid_revenue_amount"] as const

/**
 * Every month's money equals the invoice_item_transactions resource's settled rows of that month
 * (by transaction date; failed ones by failed date, one per transaction), and its four revenue
 * splits add up to its net paid revenue.
 */
const expectReconciled = async (rows: ReadonlyArray<Record<string, unknown>>) => {
  const tx = rowsOf(
    await query(
      { fields: ["transaction_type", "transaction_id", "transaction_state", "transaction_date", "failed_date", ...MONEY], page: { limit: 500 } },
      "invoice_item_transactions"
    )
  )
  expect(tx.length).toBeGreaterThan(0)
  expect(tx.length).toBeLessThan(500)
  for (const row of rows) {
    const month = String(row.month_start_date).slice(0, 7)
    const settled = tx.filter((t) => t.transaction_state === "settled" && String(t.transaction_date).startsWith(month))
    const totals = Object.fromEntries(MONEY.map((name) => [name, settled.reduce((sum, t) => sum + Number(t[name]), 0)]))
    const failed = new Set(tx.filter((t) => String(t.failed_date).startsWith(month)).map((t) => `${t.transaction_type}-${t.transaction_id}`))
    expect({ ...Object.fromEntries(MONEY.map((name) => [name, row[name]])), failed: row.failed_transaction_count }, month).toEqual({ ...totals, failed: failed.size })
    const splits = ["pass", "prepaid", "recurring", "retail"].reduce((sum, kind) => sum + Number(row[`net_paid_${kind}_revenue_amount`]), 0)
    expect(splits, month).toBe(row.net_paid_revenue_amount)
  }
}

const expectedM3 = {
  ...zeros,
  event_occurrence_count: 3,
  appointment_count: 1,
  class_count: 1,
  course_count: 1,
  attendance_completed_count: 1,
  event_occurrence_organizer_count: 1,
  enrollment_count: 9,
  client_booked_count: 8,
  first_visit_count: 2,
  completed_enrollment_count: 2,
  completed_appointment_enrollment_count: 1,
  completed_class_enrollment_count: 1,
  completed_course_enrollment_count: 0,
  completed_unpaid_count: 1,
  client_completed_enrollment_count: 1,
  completed_enrollment_per_client: 2,
  noshowed_enrollment_count: 1,
  late_canceled_enrollment_count: 1,
  registered_enrollment_count: 1,
  reserved_enrollment_count: 1,
  waiting_enrollment_count: 1,
  expired_enrollment_count: 1,
  removed_enrollment_count: 1,
  new_client_count: 4,
  new_staff_count: 1,
  client_w_plan_count: 2,
  new_client_w_plan_count: 2,
  member_count: 1,
  new_member_count: 1,
  plan_start_count: 2,
  membership_count: 1,
  pack_count: 1,
  plan_end_count: 1
}
/** A quiet month: only Bea's membership goes on. */
const expectedQuiet = { ...zeros, client_w_plan_count: 1, member_count: 1 }
/** M1 also has Cleo's payment (10000 of it the pack's, 5000 the membership's) and the declined card. */
const expectedM1 = {
  ...expectedQuiet,
  payments_amount: 15000,
  net_paid_amount: 15000,
  net_paid_revenue_amount: 15000,
  net_paid_pass_revenue_amount: 10000,
  net_paid_recurring_revenue_amount: 5000,
  failed_transaction_count: 1
}
const expectedM0 = {
  ...zeros,
  new_client_count: 2,
  new_staff_count: 1,
  client_w_plan_count: 2,
  new_client_w_plan_count: 1,
  member_count: 2,
  new_member_count: 1,
  plan_start_count: 2,
  membership_count: 1,
  pack_count: 1,
  due_invoice_count: 2,
  expected_amount: 25000,
  outstanding_amount: 6000,
  payments_amount: 4000,
  refunds_amount: -3000,
  net_paid_amount: 1000,
  net_paid_revenue_amount: 1000,
  // Cleo's refund of 3000 in this month: 10000/15000 of it (2000) off the pack, 1000 off the
  // membership; Dan's 4000 all pass.
  net_paid_pass_revenue_amount: 2000,
  net_paid_recurring_revenue_amount: -1000,
  net_paid_prepaid_revenue_amount: 0,
  net_paid_retail_revenue_amount: 0
}

describe("monthly business metrics", () => {
  it("has one row per month from the first activity to this month, every detail field counted", async () => {
    const rows = await detailRows()
    expect(rows.map((r) => r.month_start_date)).toEqual([monthStart(3), monthStart(2), monthStart(1), monthStart(0)])
    const common = { business_id: business.id, business_name: "Monthly Studio", business_subdomain: "demo", franchise_id: null, currency_code: "USD" }
    expect(rows[0]).toEqual({ ...common, ...expectedM3, key: `${business.id}-${monthStart(3).slice(0, 7)}`, month_start_date: monthStart(3) })
    expect(rows[1]).toEqual({ ...common, ...expectedQuiet, key: `${business.id}-${monthStart(2).slice(0, 7)}`, month_start_date: monthStart(2) })
    expect(rows[2]).toEqual({ ...common, ...expectedM1, key: `${business.id}-${monthStart(1).slice(0, 7)}`, month_start_date: monthStart(1) })
    expect(rows[3]).toEqual({ ...common, ...expectedM0, key: `${business.id}-${monthStart(0).slice(0, 7)}`, month_start_date: monthStart(0) })
    await expectReconciled(rows)
  })

  it("answers every summary field for every grouping, equal to the detail rows summed", async () => {
    const rows = await detailRows()
    const sum = (group: ReadonlyArray<Record<string, unknown>>, name: string) => group.reduce((s, r) => s + Number(r[name]), 0)
    const avg = (group: ReadonlyArray<Record<string, unknown>>, name: string) => Math.round(sum(group, name) / group.length)
    const summaries = [...monthlyBusinessMetricsCatalog.summary.keys()]
    const keyOf: Record<string, (r: Record<string, unknown>) => unknown> = {
      business_id: (r) => r.business_id,
      business_name: (r) => r.business_name,
      business_subdomain: (r) => r.business_subdomain,
      currency_code: (r) => r.currency_code,
      quarter_start_date: (r) => {
        const [y, m] = String(r.month_start_date).split("-").map(Number) as [number, number]
        return `${y}-${String(Math.floor((m - 1) / 3) * 3 + 1).padStart(2, "0")}-01`
      },
      year_start_date: (r) => `${String(r.month_start_date).slice(0, 4)}-01-01`
    }
    expect([...monthlyBusinessMetricsCatalog.groupings.keys()].sort()).toEqual(Object.keys(keyOf).sort())
    for (const [grouping, keyFn] of Object.entries(keyOf)) {
      const got = rowsOf(await query({ group: grouping, fields: summaries })).sort((x, y) => String(x.group_label).localeCompare(String(y.group_label)))
      const groups = new Map<unknown, Array<Record<string, unknown>>>()
      for (const r of rows) groups.set(keyFn(r), [...(groups.get(keyFn(r)) ?? []), r])
      expect(got.map((g) => g.group_label)).toEqual([...groups.keys()])
      for (const g of got) {
        const group = groups.get(g.group_label)!
        const expected: Record<string, unknown> = {
          group_label: g.group_label,
          business_id_summary: String(business.id),
          business_subdomain_summary: "demo",
          total_count: group.length,
          monthly_business_count: group.length,
          avg_client_completed_enrollment_count: avg(group, "client_completed_enrollment_count"),
          avg_client_w_plan_count: avg(group, "client_w_plan_count"),
          avg_member_count: avg(group, "member_count")
        }
        for (const name of summaries.filter((s) => s.startsWith("total_") && s !== "total_count")) expected[name] = sum(group, name.slice("total_".length))
        expect(g, grouping).toEqual(expected)
      }
    }
    // The whole history at once: the hand counts summed.
    const [all] = rowsOf(await query({ group: "business_id", fields: ["total_enrollment_count", "total_net_paid_amount", "avg_member_count", "avg_client_w_plan_count"] }))
    expect(all).toEqual({ group_label: business.id, total_enrollment_count: 9, total_net_paid_amount: 16000, avg_member_count: 1, avg_client_w_plan_count: 2 })
  })

  it("filters and sorts on its fields, and refuses a detail field with a grouping", async () => {
    const busy = rowsOf(await query({ fields: ["month_start_date"], filter: ["gt", "enrollment_count", 0] }))
    expect(busy).toEqual([{ month_start_date: monthStart(3) }])
    const paid = rowsOf(await query({ fields: ["month_start_date", "net_paid_amount"], filter: ["btw", "net_paid_amount", 1, 20000], sort: ["month_start_date+"] }))
    expect(paid).toEqual([
      { month_start_date: monthStart(1), net_paid_amount: 15000 },
      { month_start_date: monthStart(0), net_paid_amount: 1000 }
    ])
    const response = await query({ group: "year_start_date", fields: ["enrollment_count"] })
    expect(response.status).toBe(400)
    expect(response.json.errors.length).toBeGreaterThan(0)
  })

  it("shows a payment in this month's money after the next incremental sync, a signup fee as its plan's kind", async () => {
    ok(await desk("POST", `/invoices/${danInvoice}/payments`, { payment: { payment_method: "cash", amount_cents: 6000 } }))
    // Ann buys a pack with a signup fee and pays it all: both items are pass revenue.
    const tenClasses = (await createPlanProduct(server.pool, business.id, { kind: "pack", name: "Ten classes", count: 10, price_cents: 8000 })).id
    await server.pool.query(`update plan_products set signup_fee_cents = 1500 where id = $1`, [tenClasses])
    const annInvoice = ok(await desk("POST", "/invoices", { invoice: { payer_id: people.ann, plan_products: [{ id: tenClasses }] } })).json
      .invoices[0] as { id: number; total_cents: number; invoice_items: Array<{ name: string }> }
    expect(annInvoice.total_cents).toBe(9500)
    expect(annInvoice.invoice_items.map((i) => i.name).sort()).toEqual(["Ten classes", "Ten classes (signup fee)"])
    ok(await desk("POST", `/invoices/${annInvoice.id}/payments`, { payment: { payment_method: "cash", amount_cents: 9500 } }))
    expect((await sync("incremental")).outcome).toBe("incremental")
    const rows = await detailRows()
    // The business's months are computed anew, the past ones as they were.
    expect(rows.map((r) => r.month_start_date)).toEqual([monthStart(3), monthStart(2), monthStart(1), monthStart(0)])
    expect(rows[0]).toMatchObject(expectedM3)
    expect(rows[2]).toMatchObject(expectedM1)
    expect(rows[3]).toMatchObject({
      payments_amount: 4000 + 6000 + 9500,
      net_paid_amount: 1000 + 6000 + 9500,
      outstanding_amount: 0,
      net_paid_pass_revenue_amount: 2000 + 6000 + 9500,
      net_paid_recurring_revenue_amount: -1000,
      // Dan's and Ann's packs started when their invoices closed.
      plan_start_count: 4,
      pack_count: 3,
      client_w_plan_count: 4
    })
    await expectReconciled(rows)
  })
})
