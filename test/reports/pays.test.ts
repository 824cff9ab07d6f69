import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { paysCatalog } from "../../reports/catalog/pays.ts"
import { syncReports } from "../../reports/sync/sync.ts"
import { createPlanProduct } from "../support/billing-factories.ts"
import { createApplication, createBusiness, createLocation, createPerson, createToken } from "../support/factories.ts"
import { runStudioCli } from "../support/cli.ts"
import { apiCaller } from "../support/http.ts"
import { type TestServer, startTestServer } from "../support/server.ts"
import { rowsOf, reportQuery } from "./support.ts"
import { createCategory, createService } from "../schedule/fixtures.ts"
import { addVisits, createOccurrence, eventually, paysOf, setRate } from "../staff-pay/support.ts"

/**
 * The pays report: service pays from attendance completed over HTTP (the worker records them),
 * a commission pay from an invoice closed through the Core API, an ad-hoc pay added and a pay
 * reviewed by the operator CLI (a process of its own); every field, summary field and grouping
 * over HTTP, after a full sync and after incremental ones.
 */

let server: TestServer
const dataDir = path.resolve(`.data/test/reports-pays-${process.pid}`)
const reportsDir = path.join(dataDir, "reports")
let businessId: number
let token: string
let owner: number
let ana: number
let ben: number
let yoga: number
let massage: number
let invoiceId: number
const occurrences = {} as Record<"yoga" | "massage", number>

const sync = (mode: "full" | "incremental") => syncReports({ databaseUrl: server.databaseUrl, dir: reportsDir, mode })

const query = (attributes: unknown) => reportQuery(server.request, "pays", attributes, { token })


const studio = (...args: Array<string>) => runStudioCli({ DATABASE_URL: server.databaseUrl, LOG_LEVEL: "error" }, ["pays", ...args])

const localToday = () => new Intl.DateTimeFormat("en-CA", { timeZone: "America/Los_Angeles" }).format(new Date())
const periodOf = (date: string) => {
  const [y, m, d] = date.split("-").map(Number) as [number, number, number]
  const last = new Date(Date.UTC(y, m, 0)).getUTCDate()
  const mm = String(m).padStart(2, "0")
  return d <= 15 ? [`${y}-${mm}-01`, `${y}-${mm}-15`] : [`${y}-${mm}-16`, `${y}-${mm}-${last}`]
}

beforeAll(async () => {
  fs.rmSync(dataDir, { recursive: true, force: true })
  server = await startTestServer({ dataDir, worker: true })
  const pool = server.pool
  await createApplication(pool, "test-app")
  businessId = (await createBusiness(pool, { subdomain: "demo", name: "Pay Studio", time_zone: "America/Los_Angeles" })).id
  const main = (await createLocation(pool, businessId, { name: "Main", time_zone: "America/Los_Angeles" })).id
  const ownerPerson = await createPerson(pool, businessId, { role: "owner", first_name: "Olga", last_name: "Owner" })
  owner = ownerPerson.staffMemberId!
  token = await createToken(pool, ownerPerson.accountId, businessId)
  const anaPerson = await createPerson(pool, businessId, { role: "standard", first_name: "Ana", last_name: "Instructor" })
  ana = anaPerson.staffMemberId!
  await pool.query(`update people set location_id = $3 where business_id = $1 and id = $2`, [businessId, anaPerson.personId, main])
  ben = (await createPerson(pool, businessId, { role: "standard", first_name: "Ben", last_name: "Seller" })).staffMemberId!
  const mind = await createCategory(pool, businessId, "Mind")
  yoga = await createService(pool, businessId, { type: "GroupClass", name: "Yoga", category_id: mind })
  massage = await createService(pool, businessId, { type: "Appointment", name: "Massage" })
  await setRate(pool, businessId, ana, yoga, { base: 3000, perHead: 200, minimum: 5, tiers: [[8, 500], [10, 1000]] })
  await setRate(pool, businessId, ana, null, { hourly: 6000 })
  await setRate(pool, businessId, ben, null, { base: 2500, perHead: 100, minimum: 10 })
  await pool.query(`insert into staff_commission_rates (business_id, staff_member_id, basis_points) values ($1, $2, 1250)`, [businessId, ben])
  const clients: Array<number> = []
  for (let i = 0; i < 11; i++) clients.push((await createPerson(pool, businessId)).personId)

  const desk = apiCaller("/api/v2/desk", () => ({ request: server.request, token }))
  occurrences.yoga = await createOccurrence(pool, businessId, { serviceId: yoga, start: "2024-03-15T17:00:00Z", minutes: 90, staff: [ana, ben] })
  await pool.query(`update event_occurrences set location_id = $3 where business_id = $1 and id = $2`, [businessId, occurrences.yoga, main])
  await addVisits(pool, businessId, occurrences.yoga, clients)
  occurrences.massage = await createOccurrence(pool, businessId, { serviceId: massage, start: "2024-03-20T18:00:00Z", minutes: 45, staff: [ana] })
  await addVisits(pool, businessId, occurrences.massage, clients.slice(0, 1))
  for (const id of Object.values(occurrences)) expect((await desk("PUT", `/event_occurrences/${id}`, { attendance_complete: true })).status).toBe(200)

  const category = await pool.query(`insert into revenue_categories (business_id, name) values ($1, 'Packs') returning id`, [businessId])
  const product = (await createPlanProduct(pool, businessId, { kind: "pack", name: "Five", count: 5, price_cents: 10001, revenue_category_id: Number(category.rows[0].id) })).id
  const created = await desk("POST", "/invoices", { invoice: { payer_id: clients[0], plan_products: [{ id: product }] } })
  expect(created.status, created.text).toBe(201)
  invoiceId = created.json.invoices[0].id
  expect((await desk("PUT", `/invoices/${invoiceId}`, { invoice: { commission_recipient_id: ben } })).status).toBe(200)
  const paid = await desk("POST", `/invoices/${invoiceId}/payments`, { payment: { payment_method: "cash", amount_cents: created.json.invoices[0].total_cents } })
  expect(paid.status, paid.text).toBe(201)
  await eventually(() => paysOf(pool, businessId), (rows) => rows.length === 4)
  await sync("full")
}, 180_000)

afterAll(async () => {
  await server?.close()
  fs.rmSync(dataDir, { recursive: true, force: true })
})

const ALL_DETAIL = [...paysCatalog.detail.keys()]

const SPEC_DETAIL = `base_pay_amount business_id business_name business_subdomain currency_code final_pay_amount franchise_id key
  pay_description pay_id pay_period pay_period_end_date pay_period_start_date pay_recorded_at pay_reviewed_at pay_reviewed_by_id
  pay_reviewed_by_name pay_reviewed_date pay_state pay_type per_head_pay_amount revenue_category service_category service_date
  service_hours service_id service_location_name service_name service_type staff_home_location_name staff_name staff_id
  tiered_pay_amount`.split(/\s+/)
const SPEC_SUMMARY = `business_id_summary business_subdomain_summary total_count pay_count service_count total_base_pay_amount
  total_final_pay_amount total_per_head_pay_amount total_tiered_pay_amount total_service_hours`.split(/\s+/)
const SPEC_GROUPINGS = `business_id business_name business_subdomain pay_period pay_reviewed_by_id pay_reviewed_by_name
  pay_reviewed_date pay_state pay_type revenue_category service_category service_date service_id service_location_name service_name
  service_type staff_home_location_name staff_id staff_name`.split(/\s+/)

describe("the pays report", () => {
  it("has exactly the spec's detail fields, summary fields and groupings", () => {
    expect([...ALL_DETAIL].sort()).toEqual(SPEC_DETAIL.sort())
    expect([...paysCatalog.summary.keys()].sort()).toEqual(SPEC_SUMMARY.sort())
    expect([...paysCatalog.groupings.keys()].sort()).toEqual(SPEC_GROUPINGS.sort())
  })

  it("gives every detail field of each pay", async () => {
    const rows = rowsOf(await query({ fields: ALL_DETAIL, sort: ["pay_id+"] }))
    const [yogaAna, yogaBen, massageAna, commission] = rows
    expect(rows).toHaveLength(4)
    const common = { business_id: businessId, business_name: "Pay Studio", business_subdomain: "demo", franchise_id: null, currency_code: "USD" }
    expect(yogaAna).toMatchObject({
      ...common,
      key: `${businessId}-${yogaAna!.pay_id}`,
      pay_type: "service",
      pay_state: "pending",
      pay_description: null,
      base_pay_amount: 3000,
      per_head_pay_amount: 1200,
      tiered_pay_amount: 1000,
      final_pay_amount: 5200,
      service_hours: 1.5,
      pay_period: ["2024-03-01", "2024-03-15"],
      pay_period_start_date: "2024-03-01",
      pay_period_end_date: "2024-03-15",
      pay_reviewed_at: null,
      pay_reviewed_by_id: null,
      pay_reviewed_by_name: null,
      pay_reviewed_date: null,
      revenue_category: null,
      service_category: "Mind",
      service_date: "2024-03-15",
      service_id: yoga,
      service_location_name: "Main",
      service_name: "Yoga",
      service_type: "group_class",
      staff_home_location_name: "Main",
      staff_id: ana,
      staff_name: "Ana Instructor"
    })
    expect(String(yogaAna!.pay_recorded_at)).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}-0[78]:00$/)
    expect(yogaBen).toMatchObject({ staff_id: ben, staff_name: "Ben Seller", staff_home_location_name: null, base_pay_amount: 2500, per_head_pay_amount: 100, tiered_pay_amount: 0, final_pay_amount: 2600 })
    expect(massageAna).toMatchObject({
      service_type: "appointment", service_name: "Massage", service_category: null, service_location_name: null,
      base_pay_amount: 4500, final_pay_amount: 4500, service_hours: 0.75, service_date: "2024-03-20", pay_period: ["2024-03-16", "2024-03-31"]
    })
    const today = localToday()
    expect(commission).toMatchObject({
      pay_type: "commission", staff_id: ben, final_pay_amount: 1250, base_pay_amount: 0, service_hours: 0, service_id: null,
      service_name: null, service_type: null, service_date: null, revenue_category: "Packs", pay_period: periodOf(today)
    })
    expect(String(commission!.pay_description)).toContain("Commission on invoice")
  })

  it("returns the spec's types in `fields`, the range as a pair of dates", async () => {
    const response = await query({ fields: ["pay_period", "service_hours", "final_pay_amount", "pay_recorded_at", "pay_state"] })
    expect(response.status).toBe(200)
    expect(response.json.data.attributes.fields).toEqual([
      { name: "pay_period", type: "range" },
      { name: "service_hours", type: "float" },
      { name: "final_pay_amount", type: "currency" },
      { name: "pay_recorded_at", type: "datetime" },
      { name: "pay_state", type: "enum" }
    ])
    // A range cannot be compared for equality (it is two values); a 400 names it.
    const eq = await query({ fields: ["pay_id"], filter: ["eq", "pay_period", "2024-03-01"] })
    expect(eq.status).toBe(400)
    expect(eq.text).toContain("pay_period")
  })

  it("sums every summary field, and groups by the pay period pair", async () => {
    const summaries = [...paysCatalog.summary.keys()]
    const [all] = rowsOf(await query({ fields: summaries, group: "business_id" }))
    expect(all).toMatchObject({
      group_label: businessId,
      business_id_summary: String(businessId),
      business_subdomain_summary: "demo",
      total_count: 4,
      pay_count: 4,
      service_count: 2,
      total_base_pay_amount: 3000 + 2500 + 4500,
      total_per_head_pay_amount: 1300,
      total_tiered_pay_amount: 1000,
      total_final_pay_amount: 5200 + 2600 + 4500 + 1250,
      total_service_hours: 3.75
    })
    const byPeriod = rowsOf(await query({ fields: ["pay_count", "total_final_pay_amount"], group: "pay_period", sort: ["pay_period+"] }))
    expect(byPeriod.slice(0, 2)).toEqual([
      { group_label: ["2024-03-01", "2024-03-15"], pay_count: 2, total_final_pay_amount: 7800 },
      { group_label: ["2024-03-16", "2024-03-31"], pay_count: 1, total_final_pay_amount: 4500 }
    ])
  })

  it("answers every grouping, each splitting the same pays", async () => {
    const expected: Record<string, unknown> = {
      pay_type: [["commission", 1], ["service", 3]],
      pay_state: [["pending", 4]],
      staff_id: [[ana, 2], [ben, 2]],
      staff_name: [["Ana Instructor", 2], ["Ben Seller", 2]],
      staff_home_location_name: [["Main", 2], [null, 2]],
      service_id: [[yoga, 2], [massage, 1], [null, 1]],
      service_name: [["Massage", 1], ["Yoga", 2], [null, 1]],
      service_type: [["appointment", 1], ["group_class", 2], [null, 1]],
      service_category: [["Mind", 2], [null, 2]],
      service_location_name: [["Main", 2], [null, 2]],
      service_date: [["2024-03-15", 2], ["2024-03-20", 1], [null, 1]],
      revenue_category: [["Packs", 1], [null, 3]],
      pay_reviewed_by_id: [[null, 4]],
      pay_reviewed_by_name: [[null, 4]],
      pay_reviewed_date: [[null, 4]]
    }
    for (const group of paysCatalog.groupings.keys()) {
      const rows = rowsOf(await query({ fields: ["pay_count"], group }))
      expect(rows.reduce((sum, row) => sum + Number(row.pay_count), 0), group).toBe(4)
      if (group in expected) {
        const got = rows.map((row) => [row.group_label, row.pay_count]).sort((a, b) => String(a[0]).localeCompare(String(b[0])))
        const want = (expected[group] as Array<[unknown, number]>).slice().sort((a, b) => String(a[0]).localeCompare(String(b[0])))
        expect(got, group).toEqual(want)
      }
    }
  })

  it("filters with btw on a currency and a date field, values as numbers or strings", async () => {
    const ids = (rows: Array<Record<string, unknown>>) => rows.map((r) => r.final_pay_amount)
    expect(ids(rowsOf(await query({ fields: ["final_pay_amount"], filter: ["btw", "final_pay_amount", 2600, 4500], sort: ["final_pay_amount+"] })))).toEqual([2600, 4500])
    expect(ids(rowsOf(await query({ fields: ["final_pay_amount"], filter: ["btw", "final_pay_amount", "2601", "5200"], sort: ["final_pay_amount+"] })))).toEqual([4500, 5200])
    expect(ids(rowsOf(await query({ fields: ["final_pay_amount"], filter: ["btw", "service_date", "2024-03-15", "2024-03-15"], sort: ["final_pay_amount+"] })))).toEqual([2600, 5200])
    expect(ids(rowsOf(await query({ fields: ["final_pay_amount"], filter: ["btw", "pay_period_start_date", "2024-03-16", "2024-03-31"] })))).toEqual([4500])
    expect(rowsOf(await query({ fields: ["pay_id"], filter: ["btw", "service_date", "2000-01-01", "2000-12-31"] }))).toEqual([])
    expect((await query({ fields: ["pay_id"], filter: ["btw", "final_pay_amount", "many", 5] })).status).toBe(400)
  })

  it("shows a pay added and a pay reviewed by the operator at the next incremental sync", async () => {
    const [first] = rowsOf(await query({ fields: ["pay_id"], filter: ["eq", "staff_id", ana], sort: ["pay_id+"] }))
    const reviewed = await studio("review", String(first!.pay_id), "--approve", "--by", String(owner))
    expect(reviewed.code, reviewed.stderr).toBe(0)
    const added = await studio("add", "--staff", String(ben), "--amount-cents", "-500", "--description", "Uniform")
    expect(added.code, added.stderr).toBe(0)
    expect((await sync("incremental")).outcome).toBe("incremental")
    const rows = rowsOf(await query({ fields: ["pay_id", "pay_type", "pay_state", "pay_reviewed_by_id", "pay_reviewed_by_name", "pay_reviewed_date", "final_pay_amount", "pay_description"], sort: ["pay_id+"] }))
    expect(rows).toHaveLength(5)
    expect(rows[0]).toMatchObject({ pay_state: "approved", pay_reviewed_by_id: owner, pay_reviewed_by_name: "Olga Owner", pay_reviewed_date: localToday() })
    expect(rows[4]).toMatchObject({ pay_type: "adhoc", pay_state: "pending", final_pay_amount: -500, pay_description: "Uniform" })
    const [approved] = rowsOf(await query({ fields: ["pay_count", "total_final_pay_amount"], group: "pay_state", filter: ["eq", "pay_state", "approved"] }))
    expect(approved).toEqual({ group_label: "approved", pay_count: 1, total_final_pay_amount: 5200 })
  })
})
