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
 * The plan fields of the report store: what paid an enrollment (punch, plan, type, rollover,
 * membership) and what could pay an unpaid one, the clients' current plans, membership, holds
 * and end dates, and plan writes (punches made and deleted, holds, plans deleted, a renamed
 * revenue category) reaching the store through the incremental sync. Plans and punches are
 * written straight to SQL, as the billing code writes them (a punch sets visits.punch_id).
 */

let server: TestServer
const dataDir = path.resolve(`.data/test/reports-plans-${process.pid}`)
const reportsDir = path.join(dataDir, "reports")
let studio: { id: number; subdomain: string }
let token: string
let serviceId: number
let ann: number
let bea: number
type Ids = "memberships" | "packProduct" | "pack" | "gold" | "prepaid" | "dropIn" | "w1" | `v${1 | 2 | 3 | 4 | 5}` | `p${1 | 2 | 3 | 4 | 5}`
const ids = {} as Record<Ids, number>

const sync = (mode: "full" | "incremental") => syncReports({ databaseUrl: server.databaseUrl, dir: reportsDir, mode })

const query = (resource: string, attributes: unknown) => reportQuery(server.request, resource, attributes, { token })


/** A calendar date `days` from today (far enough from the edges for any zone). */
const fromToday = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10)

/** The business's calendar date `days` from its today (Los Angeles). */
const localDay = (days: number) => {
  const today = new Intl.DateTimeFormat("en-CA", { timeZone: "America/Los_Angeles" }).format(new Date())
  return new Date(Date.parse(`${today}T12:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10)
}

/** A session on `date` at 18:00 UTC (11:00 in Los Angeles: the same calendar date). */
const session = async (date: string) => {
  const { rows } = await server.pool.query(
    `insert into event_occurrences (business_id, service_id, name, start_at, end_at, time_zone)
     values ($1, $2, 'Vinyasa', $3::date + time '18:00', $3::date + time '19:00', 'America/Los_Angeles') returning id`,
    [studio.id, serviceId, date]
  )
  return Number(rows[0].id)
}

const visit = async (personId: number, date: string, state = "completed") => {
  const occurrenceId = await session(date)
  const { rows } = await server.pool.query(
    `insert into visits (business_id, event_occurrence_id, person_id, state) values ($1, $2, $3, $4) returning id`,
    [studio.id, occurrenceId, personId, state]
  )
  return Number(rows[0].id)
}

/** A punch as the billing code makes it: the punch, and the visit's mirror of it. */
const punch = async (visitId: number, planId: number, personId: number, visitDate: string) => {
  const { rows } = await server.pool.query(
    `insert into punches (business_id, visit_id, plan_id, person_id, visit_date) values ($1, $2, $3, $4, $5) returning id`,
    [studio.id, visitId, planId, personId, visitDate]
  )
  const punchId = Number(rows[0].id)
  await server.pool.query(
    `update visits set punch_id = $3, paid_for_by = (select name from plans where business_id = $1 and id = $4) where business_id = $1 and id = $2`,
    [studio.id, visitId, punchId, planId]
  )
  return punchId
}

/**
 * Moves everything written so far an hour into the past, behind the store's watermark and its
 * two-minute overlap: the next incremental sync then re-reads only what changes after this, and
 * a change it must find through the plan change log is found only so.
 */
const backdate = async (by = "1 hour") => {
  const { rows } = await server.pool.query<{ table_name: string; column_name: string }>(
    `select table_name, column_name from information_schema.columns
     where table_schema = 'public' and data_type = 'timestamp with time zone'
       and (column_name in ('created_at', 'updated_at', 'changed_at') or (table_name = 'report_enrollment_deletions' and column_name = 'deleted_at'))
     order by table_name = 'report_plan_changes', table_name` // last: backdating plans records changes
  )
  for (const { table_name, column_name } of rows) {
    await server.pool.query(`update ${table_name} set ${column_name} = ${column_name} - $1::interval`, [by])
  }
}

const ENROLLMENT_PLAN_FIELDS = [
  "visit_id",
  "waitlist_id",
  "is_paid",
  "paid_with",
  "paid_with_type",
  "paid_with_complimentary_pass",
  "plan_id",
  "plan_product_id",
  "punch_id",
  "punchcard_id",
  "is_rollover",
  "consider_member",
  "available_plans"
]

const enrollmentsOf = async (personId: number) =>
  rowsOf(await query("enrollments", { fields: ENROLLMENT_PLAN_FIELDS, filter: ["eq", "person_id", personId], sort: ["start_at+", "key+"] }))

const CLIENT_PLAN_FIELDS = [
  "current_plans",
  "current_plan_types",
  "current_plan_revenue_category",
  "has_membership",
  "has_plan_on_hold",
  "last_membership_end_date",
  "next_pass_plan_end_date",
  "unpaid_visits"
]

const clientOf = async (personId: number) =>
  rowsOf(await query("clients", { fields: CLIENT_PLAN_FIELDS, filter: ["eq", "person_id", personId] }))[0]

beforeAll(async () => {
  fs.rmSync(dataDir, { recursive: true, force: true })
  server = await startTestServer({ dataDir })
  const pool = server.pool
  studio = await createBusiness(pool, { subdomain: "demo", name: "Plan Studio", time_zone: "America/Los_Angeles" })
  const owner = await createPerson(pool, studio.id, { first_name: "Olive", last_name: "Owner", role: "owner" })
  token = await createToken(pool, owner.accountId, studio.id)
  serviceId = await createService(pool, studio.id, { type: "GroupClass", name: "Vinyasa" })
  ann = (await createPerson(pool, studio.id, { first_name: "Ann", last_name: "Archer" })).personId
  bea = (await createPerson(pool, studio.id, { first_name: "Bea", last_name: "Baker" })).personId

  const memberships = await createRevenueCategory(pool, studio.id, "Memberships")
  const dropIns = await createRevenueCategory(pool, studio.id, "Drop-ins")
  ids.memberships = memberships.id

  // Ann: a complimentary pack of 2 visits with 1 rolled over, a membership, a prepaid plan on
  // hold from 8 June 2024 on, and a single-visit pass.
  const packProduct = await createPlanProduct(pool, studio.id, { kind: "pack", name: "Two Pack", count: 2 })
  ids.packProduct = packProduct.id
  ids.pack = (await createPlan(pool, studio.id, packProduct.id, [ann], { start_date: "2024-01-01", end_date: fromToday(300) })).id
  await pool.query(`update plans set rollover_count = 1, is_complimentary = true where business_id = $1 and id = $2`, [studio.id, ids.pack])
  const goldProduct = await createPlanProduct(pool, studio.id, { kind: "membership", name: "Gold", revenue_category_id: memberships.id })
  ids.gold = (await createPlan(pool, studio.id, goldProduct.id, [ann], { start_date: "2024-01-01" })).id
  const prepaidProduct = await createPlanProduct(pool, studio.id, { kind: "prepaid", name: "Spring Prepaid", count: null })
  ids.prepaid = (await createPlan(pool, studio.id, prepaidProduct.id, [ann], { start_date: "2024-01-01", end_date: fromToday(60) })).id
  await createHold(pool, studio.id, ids.prepaid, "2024-06-08")
  const dropInProduct = await createPlanProduct(pool, studio.id, { kind: "single_visit_pass", name: "Drop-in", revenue_category_id: dropIns.id })
  ids.dropIn = (await createPlan(pool, studio.id, dropInProduct.id, [ann], { start_date: "2024-01-01", end_date: fromToday(10) })).id

  // Three pack punches (the third spends the rolled-over visit), one paid by the membership,
  // one unpaid visit after the pack ran out, and a waitlist entry.
  ids.v1 = await visit(ann, "2024-06-03")
  ids.p1 = await punch(ids.v1, ids.pack, ann, "2024-06-03")
  ids.v2 = await visit(ann, "2024-06-04")
  ids.p2 = await punch(ids.v2, ids.pack, ann, "2024-06-04")
  ids.v3 = await visit(ann, "2024-06-05")
  ids.p3 = await punch(ids.v3, ids.pack, ann, "2024-06-05")
  ids.v4 = await visit(ann, "2024-06-06")
  ids.p4 = await punch(ids.v4, ids.gold, ann, "2024-06-06")
  ids.v5 = await visit(ann, "2024-06-10")
  const waitlistedFor = await session("2024-06-11")
  const entry = await pool.query(
    `insert into waitlist_entries (business_id, event_occurrence_id, person_id, state) values ($1, $2, $3, 'waiting') returning id`,
    [studio.id, waitlistedFor, ann]
  )
  ids.w1 = Number(entry.rows[0].id)

  // Bea: a membership that ended, one deactivated early, an unpaid completed visit and a
  // registered (not yet completed) one.
  const silverProduct = await createPlanProduct(pool, studio.id, { kind: "membership", name: "Silver" })
  await createPlan(pool, studio.id, silverProduct.id, [bea], { start_date: "2024-01-01", end_date: "2024-12-31" })
  await createPlan(pool, studio.id, silverProduct.id, [bea], {
    name: "Bronze",
    start_date: "2023-01-01",
    deactivated_at: new Date("2023-06-01T20:00:00Z")
  })
  await visit(bea, "2024-06-03")
  await visit(bea, "2024-06-04", "registered")

  await sync("full")
})
afterAll(async () => {
  await server?.close()
  fs.rmSync(dataDir, { recursive: true, force: true })
})

describe("enrollments' plan fields", () => {
  it("tell what paid each visit, and list what could pay the unpaid ones", async () => {
    const pack = {
      is_paid: "t",
      paid_with: "Two Pack",
      paid_with_type: "pack",
      paid_with_complimentary_pass: "t",
      plan_id: ids.pack,
      plan_product_id: ids.packProduct,
      punchcard_id: ids.pack,
      consider_member: "f",
      available_plans: null
    }
    expect(await enrollmentsOf(ann)).toEqual([
      { ...pack, visit_id: ids.v1, waitlist_id: null, punch_id: ids.p1, is_rollover: "f" },
      { ...pack, visit_id: ids.v2, waitlist_id: null, punch_id: ids.p2, is_rollover: "f" },
      // The pack's own two visits are spent first: the third punch spends the rolled-over one.
      { ...pack, visit_id: ids.v3, waitlist_id: null, punch_id: ids.p3, is_rollover: "t" },
      {
        visit_id: ids.v4,
        waitlist_id: null,
        is_paid: "t",
        paid_with: "Gold",
        paid_with_type: "membership",
        paid_with_complimentary_pass: "f",
        plan_id: ids.gold,
        plan_product_id: expect.any(Number),
        punch_id: ids.p4,
        punchcard_id: null,
        is_rollover: "f",
        consider_member: "t",
        available_plans: null
      },
      // Unpaid on 10 June: the pack is used up and the prepaid plan on hold; the others are available.
      {
        visit_id: ids.v5,
        waitlist_id: null,
        is_paid: "f",
        paid_with: null,
        paid_with_type: "unpaid",
        paid_with_complimentary_pass: "f",
        plan_id: null,
        plan_product_id: null,
        punch_id: null,
        punchcard_id: null,
        is_rollover: "f",
        consider_member: "f",
        available_plans: "Drop-in, Gold"
      },
      // A waitlist entry is no visit: nothing paid it, and the same plans could.
      {
        visit_id: null,
        waitlist_id: ids.w1,
        is_paid: "f",
        paid_with: null,
        paid_with_type: null,
        paid_with_complimentary_pass: "f",
        plan_id: null,
        plan_product_id: null,
        punch_id: null,
        punchcard_id: null,
        is_rollover: "f",
        consider_member: "f",
        available_plans: "Drop-in, Gold"
      }
    ])
  })

  it("group and count by what paid", async () => {
    const rows = rowsOf(await query("enrollments", { fields: ["total_count", "is_paid_count", "is_rollover_count", "consider_member_count"], group: "paid_with_type" }))
    expect(rows).toEqual([
      { group_label: "membership", total_count: 1, is_paid_count: 1, is_rollover_count: 0, consider_member_count: 1 },
      { group_label: "pack", total_count: 3, is_paid_count: 3, is_rollover_count: 1, consider_member_count: 0 },
      { group_label: "unpaid", total_count: 3, is_paid_count: 0, is_rollover_count: 0, consider_member_count: 0 },
      { group_label: null, total_count: 1, is_paid_count: 0, is_rollover_count: 0, consider_member_count: 0 }
    ])
    expect(rowsOf(await query("enrollments", { fields: ["visit_id"], filter: ["eq", "punchcard_id", ids.pack] })).map((r) => r.visit_id)).toEqual([
      ids.v1,
      ids.v2,
      ids.v3
    ])
  })
})

describe("clients' plan fields", () => {
  it("tell the current plans, membership, holds and end dates as of today", async () => {
    expect(await clientOf(ann)).toEqual({
      // The pack is used up and the prepaid plan on hold: neither is current.
      current_plans: "Drop-in, Gold",
      current_plan_types: "membership, single_visit_pass",
      current_plan_revenue_category: "Drop-ins, Memberships",
      has_membership: "t",
      has_plan_on_hold: "t",
      // Gold has no end.
      last_membership_end_date: null,
      next_pass_plan_end_date: fromToday(10),
      unpaid_visits: 1
    })
    expect(await clientOf(bea)).toEqual({
      current_plans: null,
      current_plan_types: null,
      current_plan_revenue_category: null,
      has_membership: "f",
      has_plan_on_hold: "f",
      // Silver ended on 31 December; Bronze was deactivated on 1 June 2023 (Los Angeles).
      last_membership_end_date: "2024-12-31",
      next_pass_plan_end_date: null,
      // Completed but unpaid; the registered visit does not count.
      unpaid_visits: 1
    })
    expect(rowsOf(await query("clients", { fields: ["has_membership_count", "has_plan_on_hold_count", "total_unpaid_visits"], group: "business_id" }))).toEqual([
      { group_label: studio.id, has_membership_count: 1, has_plan_on_hold_count: 1, total_unpaid_visits: 2 }
    ])
  })
})

describe("the incremental sync", () => {
  it("shows a deleted punch on its visit and on everything its plan's visits left change", async () => {
    await backdate()
    // Deleting a punch clears visits.punch_id by foreign key: no visit timestamp moves.
    await server.pool.query(`delete from punches where business_id = $1 and id = $2`, [studio.id, ids.p2])
    await server.pool.query(`update visits set paid_for_by = null where business_id = $1 and id = $2`, [studio.id, ids.v2])
    expect((await sync("incremental")).outcome).toBe("incremental")

    const rows = await enrollmentsOf(ann)
    const byVisit = (visitId: number) => rows.find((row) => row.visit_id === visitId)
    // The pack has a visit left again: it could pay the visit it stopped paying (4 June, before
    // the prepaid plan's hold), and the other unpaid one.
    expect(byVisit(ids.v2)).toMatchObject({
      is_paid: "f",
      paid_with_type: "unpaid",
      punch_id: null,
      plan_id: null,
      available_plans: "Drop-in, Gold, Spring Prepaid, Two Pack"
    })
    expect(byVisit(ids.v5)).toMatchObject({ available_plans: "Drop-in, Gold, Two Pack" })
    // The third punch now spends the pack's own second visit.
    expect(byVisit(ids.v3)).toMatchObject({ is_paid: "t", is_rollover: "f" })
    expect(await clientOf(ann)).toMatchObject({ current_plans: "Drop-in, Gold, Two Pack", current_plan_types: "membership, pack, single_visit_pass", unpaid_visits: 2 })
  })

  it("shows a new punch, a hold, a renamed revenue category and a deleted plan", async () => {
    await backdate()
    ids.p5 = await punch(ids.v5, ids.dropIn, ann, "2024-06-10")
    await sync("incremental")
    expect((await enrollmentsOf(ann)).find((row) => row.visit_id === ids.v5)).toMatchObject({
      is_paid: "t",
      paid_with: "Drop-in",
      paid_with_type: "pack",
      punch_id: ids.p5,
      punchcard_id: ids.dropIn,
      available_plans: null
    })
    // The pass is used up.
    expect(await clientOf(ann)).toMatchObject({ current_plans: "Gold, Two Pack", next_pass_plan_end_date: fromToday(300), unpaid_visits: 1 })

    await backdate()
    await createHold(server.pool, studio.id, ids.gold, fromToday(-1))
    await sync("incremental")
    expect(await clientOf(ann)).toMatchObject({ current_plans: "Two Pack", has_membership: "f", has_plan_on_hold: "t", current_plan_revenue_category: null })
    await backdate()
    await server.pool.query(`delete from plan_holds where business_id = $1 and plan_id = $2 and start_date = $3`, [studio.id, ids.gold, fromToday(-1)])
    await sync("incremental")
    expect(await clientOf(ann)).toMatchObject({ current_plans: "Gold, Two Pack", has_membership: "t", current_plan_revenue_category: "Memberships" })

    // A renamed revenue category shows in the holders' client rows; their enrollments (which
    // name no category) are not read again.
    await backdate()
    await server.pool.query(`update revenue_categories set name = 'Clubs', updated_at = now() where business_id = $1 and id = $2`, [
      studio.id,
      ids.memberships
    ])
    const renamed = await sync("incremental")
    expect(renamed.rows).toMatchObject({ clients: 1, enrollments: 0 })
    expect(await clientOf(ann)).toMatchObject({ current_plan_revenue_category: "Clubs" })

    // Deleting a plan takes its punches (cascade) and so its visits' payment.
    await backdate()
    await server.pool.query(`update visits set paid_for_by = null where business_id = $1 and id = $2`, [studio.id, ids.v5])
    await server.pool.query(`delete from plans where business_id = $1 and id = $2`, [studio.id, ids.dropIn])
    await sync("incremental")
    expect((await enrollmentsOf(ann)).find((row) => row.visit_id === ids.v5)).toMatchObject({
      is_paid: "f",
      paid_with_type: "unpaid",
      punch_id: null,
      available_plans: "Gold, Two Pack"
    })
    expect(await clientOf(ann)).toMatchObject({ unpaid_visits: 2 })
  }, 120_000)

  it("refreshes every holder of a shared plan when one of them spends it", async () => {
    const cy = (await createPerson(server.pool, studio.id, { first_name: "Cy", last_name: "Cole" })).personId
    const duo = await createPlanProduct(server.pool, studio.id, { kind: "pack", name: "Duo Pack", count: 1 })
    const shared = await createPlan(server.pool, studio.id, duo.id, [ann, cy], { start_date: "2024-01-01", visits_shared: true })
    const cyVisit = await visit(cy, "2024-06-12")
    const annVisit = await visit(ann, "2024-06-12")
    await sync("incremental")
    expect((await enrollmentsOf(cy))[0]).toMatchObject({ visit_id: cyVisit, available_plans: "Duo Pack" })
    expect(await clientOf(cy)).toMatchObject({ current_plans: "Duo Pack", current_plan_types: "pack", unpaid_visits: 1 })

    // Ann spends the pack's one visit: nothing in Cy's records changed, yet the pack is gone from them.
    await backdate()
    await punch(annVisit, shared.id, ann, "2024-06-12")
    await sync("incremental")
    expect((await enrollmentsOf(cy))[0]).toMatchObject({ visit_id: cyVisit, is_paid: "f", available_plans: null })
    expect(await clientOf(cy)).toMatchObject({ current_plans: null, current_plan_types: null, unpaid_visits: 1 })
  })

  it("refreshes the clients whose plans end with the business's day, though nothing was written", async () => {
    const dee = (await createPerson(server.pool, studio.id, { first_name: "Dee", last_name: "Day" })).personId
    const club = await createPlanProduct(server.pool, studio.id, { kind: "membership", name: "Day Club" })
    const plan = await createPlan(server.pool, studio.id, club.id, [dee], { start_date: "2024-01-01", end_date: localDay(10) })
    await sync("incremental")
    expect(await clientOf(dee)).toMatchObject({ current_plans: "Day Club", has_membership: "t", last_membership_end_date: localDay(10) })

    // The membership's last day was yesterday, set long ago; the last sync ran before today began.
    await server.pool.query(`update plans set end_date = $3 where business_id = $1 and id = $2`, [studio.id, plan.id, localDay(-1)])
    await backdate("3 days")
    publish(reportsDir, { ...readCurrent(reportsDir)!, synced_at: new Date(Date.now() - 26 * 3_600_000).toISOString() })
    await sync("incremental")
    expect(await clientOf(dee)).toMatchObject({ current_plans: null, has_membership: "f", last_membership_end_date: localDay(-1) })
  })

  it("keeps the change log to what a later refresh still reads: the full rebuild prunes the rest", async () => {
    // Two marks: written an hour ago (before the rebuild's snapshot and its overlap), and now.
    await server.pool.query(
      `insert into report_plan_changes (business_id, plan_id, person_id, changed_at)
       values ($1, 0, 1, now() - interval '1 hour'), ($1, 0, 2, now())`,
      [studio.id]
    )
    await sync("full")
    const { rows } = await server.pool.query(`select person_id from report_plan_changes where business_id = $1 and plan_id = 0`, [studio.id])
    expect(rows.map((row) => Number(row.person_id))).toEqual([2])
  })
})
