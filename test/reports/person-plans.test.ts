import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { publish, readCurrent } from "../../reports/sync/generations.ts"
import { syncReports } from "../../reports/sync/sync.ts"
import { createHold, createPlan, createPlanProduct, createRevenueCategory } from "../support/billing-factories.ts"
import { createBusiness, createPerson, createToken } from "../support/factories.ts"
import { type TestServer, startTestServer } from "../support/server.ts"
import { rowsOf, reportQuery } from "./support.ts"
import { createService } from "../schedule/fixtures.ts"

/**
 * The person_plans report over HTTP: a used-up pack, a membership on hold, a canceled and ended
 * membership shared by two people, a grouping, a filter, and a hold lifted reaching the store
 * through the incremental sync (the plan change log). Plans, holds and punches are written
 * straight to SQL, as the billing code writes them.
 */

let server: TestServer
const dataDir = path.resolve(`.data/test/reports-person-plans-${process.pid}`)
const reportsDir = path.join(dataDir, "reports")
let studio: { id: number; subdomain: string }
let token: string
let owner: { accountId: number }
let serviceId: number
let ann: number
let bea: number
const ids = {} as Record<"pack" | "packProduct" | "gold" | "silver" | "goldHold" | "packInvoice", number>

const sync = (mode: "full" | "incremental") => syncReports({ databaseUrl: server.databaseUrl, dir: reportsDir, mode })

const query = (attributes: unknown) => reportQuery(server.request, "person_plans", attributes, { token })


/** The business's calendar date `days` from its today (Los Angeles). */
const localDay = (days: number) => {
  const today = new Intl.DateTimeFormat("en-CA", { timeZone: "America/Los_Angeles" }).format(new Date())
  return new Date(Date.parse(`${today}T12:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10)
}

/** A completed visit on `date` at 18:00 UTC (11:00 in Los Angeles), punched on `planId`. */
const punchedVisit = async (personId: number, planId: number, date: string) => {
  const pool = server.pool
  const occurrence = await pool.query(
    `insert into event_occurrences (business_id, service_id, name, start_at, end_at, time_zone)
     values ($1, $2, 'Vinyasa', $3::date + time '18:00', $3::date + time '19:00', 'America/Los_Angeles') returning id`,
    [studio.id, serviceId, date]
  )
  const visit = await pool.query(
    `insert into visits (business_id, event_occurrence_id, person_id, state) values ($1, $2, $3, 'completed') returning id`,
    [studio.id, occurrence.rows[0].id, personId]
  )
  const punch = await pool.query(
    `insert into punches (business_id, visit_id, plan_id, person_id, visit_date) values ($1, $2, $3, $4, $5) returning id`,
    [studio.id, visit.rows[0].id, planId, personId, date]
  )
  await pool.query(`update visits set punch_id = $3 where business_id = $1 and id = $2`, [studio.id, visit.rows[0].id, punch.rows[0].id])
}

/** Moves every write so far an hour back, behind the store's watermark and its overlap. */
const backdate = async (by = "1 hour") => {
  const { rows } = await server.pool.query<{ table_name: string; column_name: string }>(
    `select table_name, column_name from information_schema.columns
     where table_schema = 'public' and data_type = 'timestamp with time zone'
       and (column_name in ('created_at', 'updated_at', 'changed_at') or (table_name = 'report_enrollment_deletions' and column_name = 'deleted_at'))
     order by table_name = 'report_plan_changes', table_name`
  )
  for (const { table_name, column_name } of rows) {
    await server.pool.query(`update ${table_name} set ${column_name} = ${column_name} - $1::interval`, [by])
  }
}

const planOf = async (planId: number, personId: number, fields: ReadonlyArray<string>) =>
  rowsOf(await query({ fields, filter: ["and", [["eq", "plan_id", planId], ["eq", "person_id", personId]]] }))[0]

beforeAll(async () => {
  fs.rmSync(dataDir, { recursive: true, force: true })
  server = await startTestServer({ dataDir })
  const pool = server.pool
  studio = await createBusiness(pool, { subdomain: "demo", name: "Plan Studio", time_zone: "America/Los_Angeles" })
  owner = await createPerson(pool, studio.id, { first_name: "Olive", last_name: "Owner", role: "owner" })
  token = await createToken(pool, owner.accountId, studio.id)
  serviceId = await createService(pool, studio.id, { type: "GroupClass", name: "Vinyasa" })
  ann = (await createPerson(pool, studio.id, { first_name: "Ann", last_name: "Archer" })).personId
  bea = (await createPerson(pool, studio.id, { first_name: "Bea", last_name: "Baker" })).personId
  const memberships = await createRevenueCategory(pool, studio.id, "Memberships")

  // Ann: a pack of 2 visits, both spent (the billing code then marks it exhausted), then a
  // membership on an indefinite hold since two days ago.
  const packProduct = await createPlanProduct(pool, studio.id, { kind: "pack", name: "Two Pack", count: 2 })
  ids.packProduct = packProduct.id
  ids.pack = (await createPlan(pool, studio.id, packProduct.id, [ann], { start_date: "2024-06-01", end_date: localDay(300) })).id
  await punchedVisit(ann, ids.pack, "2024-06-03") // a Monday
  await punchedVisit(ann, ids.pack, "2024-06-08") // a Saturday
  await pool.query(`update plans set exhausted_at = '2024-06-08T19:00:00Z' where business_id = $1 and id = $2`, [studio.id, ids.pack])
  // The pack's sale: an open invoice of 2 June, past due since (written as the invoices code does).
  const invoice = await pool.query(
    `insert into invoices (business_id, invoice_number, state, invoice_date, person_id, currency, subtotal_cents, total_cents)
     values ($1, 'PP-1', 'open', '2024-06-02', $2, 'USD', 4500, 4500) returning id`,
    [studio.id, ann]
  )
  ids.packInvoice = Number(invoice.rows[0].id)
  const item = await pool.query(
    `insert into invoice_items (business_id, invoice_id, kind, plan_product_id, name, price_cents, total_cents)
     values ($1, $2, 'plan', $3, 'Two Pack', 4500, 4500) returning id`,
    [studio.id, ids.packInvoice, packProduct.id]
  )
  await pool.query(`insert into invoice_item_recipients (business_id, invoice_item_id, person_id, plan_id) values ($1, $2, $3, $4)`, [
    studio.id,
    item.rows[0].id,
    ann,
    ids.pack
  ])
  const gold = await createPlanProduct(pool, studio.id, { kind: "membership", name: "Gold", revenue_category_id: memberships.id })
  ids.gold = (await createPlan(pool, studio.id, gold.id, [ann], { start_date: "2024-06-21" })).id
  const hold = await pool.query(`update plans set consider_member = true where business_id = $1 and id = $2`, [studio.id, ids.gold])
  void hold
  ids.goldHold = (await createHold(pool, studio.id, ids.gold, localDay(-2))).id
  await pool.query(`update plan_holds set created_by_account_id = $3 where business_id = $1 and id = $2`, [studio.id, ids.goldHold, owner.accountId])

  // Bea and Ann share Silver (Bea primary), canceled by the owner and ended yesterday.
  const silver = await createPlanProduct(pool, studio.id, { kind: "membership", name: "Silver" })
  ids.silver = (await createPlan(pool, studio.id, silver.id, [bea, ann], { start_date: localDay(-40), end_date: localDay(-1) })).id
  await pool.query(`update plans set canceled_at = now(), canceled_by_account_id = $3 where business_id = $1 and id = $2`, [
    studio.id,
    ids.silver,
    owner.accountId
  ])
  await sync("full")
})
afterAll(async () => {
  await server?.close()
  fs.rmSync(dataDir, { recursive: true, force: true })
})

describe("person_plans", () => {
  it("describes a used-up pack: visits, exhaustion, first and last visit, and the plan after it", async () => {
    expect(
      await planOf(ids.pack, ann, [
        "full_name", "plan_name", "plan_type", "product_id", "allowed_visit_count", "remaining_visit_count", "used_visit_count",
        "lifetime_used_visit_count", "completed_visit_count", "is_exhausted", "is_available", "is_on_hold", "last_usable_date",
        "first_visit_date", "first_visit_day", "first_visit_time", "last_visit_date", "last_visit_day", "start_date_to_first_visit",
        "used_for_initial_visit", "is_first_plan", "is_first_membership", "next_plan_id", "next_plan_name", "next_plan_type",
        "next_plan_revenue_category", "start_date_to_next_plan", "last_visit_to_next_plan", "invoice_interval_unit",
        "is_deleted", "charged_cancellation_fee_amount", "term_acceptance_required", "term_accepted", "latest_invoice_due_date",
        "latest_invoice_item_amount", "latest_invoice_past_due", "latest_invoice_autobill"
      ])
    ).toEqual({
      full_name: "Ann Archer",
      plan_name: "Two Pack",
      plan_type: "pack",
      product_id: ids.packProduct,
      allowed_visit_count: 2,
      remaining_visit_count: 0,
      used_visit_count: 2,
      lifetime_used_visit_count: 2,
      completed_visit_count: 2,
      is_exhausted: "t",
      is_available: "f",
      is_on_hold: "f",
      last_usable_date: "2024-06-08",
      first_visit_date: "2024-06-03",
      first_visit_day: "1",
      first_visit_time: "11:00:00",
      last_visit_date: "2024-06-08",
      last_visit_day: "6",
      start_date_to_first_visit: 2,
      used_for_initial_visit: "t",
      is_first_plan: "t",
      is_first_membership: "f",
      next_plan_id: ids.gold,
      next_plan_name: "Gold",
      next_plan_type: "membership",
      next_plan_revenue_category: "Memberships",
      start_date_to_next_plan: 20,
      last_visit_to_next_plan: 13,
      invoice_interval_unit: "not_applicable",
      is_deleted: null,
      charged_cancellation_fee_amount: null,
      term_acceptance_required: "f",
      term_accepted: "f",
      latest_invoice_due_date: "2024-06-02",
      latest_invoice_item_amount: 4500,
      latest_invoice_past_due: "t",
      latest_invoice_autobill: "f"
    })
  })

  it("describes memberships on hold, canceled and ended, with a row per holder", async () => {
    expect(
      await planOf(ids.gold, ann, [
        "plan_type", "revenue_category", "grants_membership", "is_available", "is_on_hold", "last_hold_by", "last_hold_by_account_id",
        "last_hold_start_date", "last_hold_end_date", "is_last_hold_indefinite", "remaining_visit_count", "end_date",
        "invoice_interval_unit", "is_first_membership", "next_plan_type", "used_for_initial_visit"
      ])
    ).toEqual({
      plan_type: "membership",
      revenue_category: "Memberships",
      grants_membership: "t",
      is_available: "f",
      is_on_hold: "t",
      last_hold_by: "Olive Owner",
      last_hold_by_account_id: owner.accountId,
      last_hold_start_date: localDay(-2),
      last_hold_end_date: null,
      is_last_hold_indefinite: "t",
      remaining_visit_count: null,
      end_date: null,
      invoice_interval_unit: "monthly",
      is_first_membership: "t",
      next_plan_type: "membership", // Silver, shared with Bea, starts after Gold
      used_for_initial_visit: "f"
    })
    const silverFields = ["person_id", "is_primary_participant", "is_canceled", "canceled_by", "canceled_by_account_id", "is_ended", "is_available", "is_on_hold"]
    const silver = rowsOf(await query({ fields: silverFields, filter: ["eq", "plan_id", ids.silver], sort: ["person_id+"] }))
    const common = { is_canceled: "t", canceled_by: "Olive Owner", canceled_by_account_id: owner.accountId, is_ended: "t", is_available: "f", is_on_hold: "f" }
    expect(silver).toEqual(
      [
        { person_id: ann, is_primary_participant: "f", ...common },
        { person_id: bea, is_primary_participant: "t", ...common }
      ].sort((a, b) => a.person_id - b.person_id)
    )
  })

  it("groups by plan type and filters on standing", async () => {
    const grouped = rowsOf(
      await query({ group: "plan_type", fields: ["person_plan_count", "is_available_count", "is_on_hold_count", "is_canceled_count"], sort: ["group_label+"] })
    )
    expect(grouped).toEqual([
      { group_label: "membership", person_plan_count: 3, is_available_count: 0, is_on_hold_count: 1, is_canceled_count: 2 },
      { group_label: "pack", person_plan_count: 1, is_available_count: 0, is_on_hold_count: 0, is_canceled_count: 0 }
    ])
    expect(rowsOf(await query({ fields: ["plan_id"], filter: ["eq", "is_on_hold", true] }))).toEqual([{ plan_id: ids.gold }])
  })

  it("follows a lifted hold, a removed holder and a paid invoice through the incremental sync", async () => {
    await backdate()
    await sync("incremental")
    await server.pool.query(`delete from plan_holds where business_id = $1 and id = $2`, [studio.id, ids.goldHold])
    await server.pool.query(`delete from plan_people where business_id = $1 and plan_id = $2 and person_id = $3`, [studio.id, ids.silver, ann])
    const summary = await sync("incremental")
    expect(summary.outcome).toBe("incremental")
    expect(await planOf(ids.gold, ann, ["is_on_hold", "is_available", "last_hold_start_date"])).toEqual({
      is_on_hold: "f",
      is_available: "t",
      last_hold_start_date: null
    })
    expect(rowsOf(await query({ fields: ["person_id"], filter: ["eq", "plan_id", ids.silver] }))).toEqual([{ person_id: bea }])

    // Paying the invoice changes no plan nor person: found through the plan's invoices alone.
    await backdate()
    await sync("incremental")
    await server.pool.query(`update invoices set state = 'closed', closed_at = now(), updated_at = now() where business_id = $1 and id = $2`, [
      studio.id,
      ids.packInvoice
    ])
    expect((await sync("incremental")).outcome).toBe("incremental")
    expect(await planOf(ids.pack, ann, ["latest_invoice_past_due"])).toEqual({ latest_invoice_past_due: "f" })
  })

  it("reads a renewal's invoice, which also names the plan among its recipients, as autobilled on both engines", async () => {
    const monthly = await createPlanProduct(server.pool, studio.id, { kind: "membership", name: "Monthly Renewal" })
    const dee = (await createPerson(server.pool, studio.id, { first_name: "Dee", last_name: "Dunn" })).personId
    const plan = (await createPlan(server.pool, studio.id, monthly.id, [dee], { start_date: "2024-05-01" })).id
    const invoice = await server.pool.query(
      `insert into invoices (business_id, invoice_number, state, invoice_date, person_id, currency, subtotal_cents, total_cents)
       values ($1, 'PP-R1', 'open', '2024-06-01', $2, 'USD', 3000, 3000) returning id`,
      [studio.id, dee]
    )
    const item = await server.pool.query(
      `insert into invoice_items (business_id, invoice_id, kind, plan_product_id, name, price_cents, total_cents)
       values ($1, $2, 'plan', $3, 'Monthly Renewal', 3000, 3000) returning id`,
      [studio.id, invoice.rows[0].id, monthly.id]
    )
    await server.pool.query(`insert into invoice_item_recipients (business_id, invoice_item_id, person_id, plan_id) values ($1, $2, $3, $4)`, [
      studio.id, item.rows[0].id, dee, plan
    ])
    await server.pool.query(
      `insert into membership_billing_periods (business_id, plan_id, period_start, invoice_id, person_id, created_at, updated_at)
       values ($1, $2, '2024-06-01', $3, $4, now(), now())`,
      [studio.id, plan, invoice.rows[0].id, dee]
    )
    // The full rebuild runs on DuckDB; the refresh right after re-reads these rows on PostgreSQL.
    await sync("full")
    expect(await planOf(plan, dee, ["latest_invoice_autobill", "latest_invoice_due_date"])).toEqual({
      latest_invoice_autobill: "t",
      latest_invoice_due_date: "2024-06-01"
    })
    expect((await sync("incremental")).outcome).toBe("unchanged")
  })

  it("re-reads a plan whose visit period began anew since the last sync, though nothing was written", async () => {
    const weekly = await createPlanProduct(server.pool, studio.id, { kind: "membership", name: "Weekly One" })
    // Cid holds nothing else whose dates turn (Bea's Silver ended yesterday: she is re-read anyway).
    const cid = (await createPerson(server.pool, studio.id, { first_name: "Cid", last_name: "Cole" })).personId
    const plan = (await createPlan(server.pool, studio.id, weekly.id, [cid], { start_date: "2024-01-01", count: 1, limit_period: "week" })).id
    // A past session (an occurrence of today would be re-read for its own sake), punched this week.
    await punchedVisit(cid, plan, "2024-06-10")
    await server.pool.query(`update punches set visit_date = $3 where business_id = $1 and plan_id = $2`, [studio.id, plan, localDay(0)])
    await sync("full")
    expect(await planOf(plan, cid, ["remaining_visit_count", "is_available"])).toEqual({ remaining_visit_count: 0, is_available: "f" })
    // As if the visit was in last week and the store was written then: a new week has begun since.
    await server.pool.query(`update punches set visit_date = visit_date - 8 where business_id = $1 and plan_id = $2`, [studio.id, plan])
    await backdate("10 days")
    publish(reportsDir, { ...readCurrent(reportsDir)!, synced_at: new Date(Date.now() - 9 * 86_400_000).toISOString() })
    await sync("incremental")
    expect(await planOf(plan, cid, ["remaining_visit_count", "is_available", "used_visit_count", "lifetime_used_visit_count"])).toEqual({
      remaining_visit_count: 1,
      is_available: "t",
      used_visit_count: 0,
      lifetime_used_visit_count: 1
    })
  })
})
