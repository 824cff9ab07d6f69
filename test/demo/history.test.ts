import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { syncReports } from "../../reports/sync/sync.ts"
import { seedDemo } from "../../src/tools/demo/seed.ts"
import { computeInvoice } from "../../src/billing/invoices/totals.ts"
import { makeSettableClock } from "../support/clock.ts"
import type { TestResponse } from "../support/http.ts"
import { type TestServer, startTestServer } from "../support/server.ts"

/**
 * The demo's history, seen over HTTP the way a new user first sees it: past attendance,
 * upcoming registrations, a full class with its waitlist, notes, and reports with visits.
 */
const clock = makeSettableClock("2026-11-18T20:00:00Z") // Wednesday noon in Los Angeles
const dataDir = path.resolve(`.data/test/demo-history-${process.pid}`)
let server: TestServer
let tokens: { ownerToken: string; clientToken: string }
let businessId: number
let clientId: number

const run = <A>(effect: Parameters<TestServer["runtime"]["runPromise"]>[0]) => server.runtime.runPromise(effect) as Promise<A>
const owner = () => ({ token: tokens.ownerToken })

const counts = async () =>
  (await server.pool.query(
    `select (select count(*) from visits where business_id = $1)::int as visits,
            (select count(*) from waitlist_entries where business_id = $1)::int as waitlist_entries,
            (select count(*) from notes where business_id = $1)::int as notes,
            (select count(*) from make_ups where business_id = $1)::int as make_ups,
            (select count(*) from event_occurrences where business_id = $1)::int as event_occurrences,
            (select count(*) from plans where business_id = $1)::int as plans,
            (select count(*) from plan_holds where business_id = $1)::int as plan_holds,
            (select count(*) from punches where business_id = $1)::int as punches,
            (select count(*) from invoices where business_id = $1)::int as invoices,
            (select count(*) from payments where business_id = $1)::int as payments,
            (select count(*) from refunds where business_id = $1)::int as refunds`,
    [businessId]
  )).rows[0]

/** The desk's occurrences of a service in a range (by name). */
const occurrences = async (from: string, to: string, name: string) => {
  const response = await server.request("GET", `/api/v2/desk/event_occurrences?from=${from}&to=${to}`, owner())
  expect(response.status, response.text).toBe(200)
  return (response.json.event_occurrences as Array<Record<string, any>>).filter((o) => o.name === name)
}

const report = async (resource: string, attributes: unknown): Promise<Array<Record<string, unknown>>> => {
  const response: TestResponse = await server.request("POST", `/desk/api/v3/reports/${resource}/queries`, {
    ...owner(),
    body: { data: { type: "queries", attributes } },
    headers: { "content-type": "application/vnd.api+json" }
  })
  expect(response.status, response.text).toBe(200)
  const { fields, rows } = response.json.data.attributes as { fields: Array<{ name: string }>; rows: Array<Array<unknown>> }
  return rows.map((row) => Object.fromEntries(fields.map((field, i) => [field.name, row[i]])))
}

beforeAll(async () => {
  fs.rmSync(dataDir, { recursive: true, force: true })
  server = await startTestServer({ clock: clock.clock, dataDir })
  tokens = await run(seedDemo)
  businessId = Number((await server.pool.query(`select id from businesses where subdomain = 'demo'`)).rows[0].id)
  clientId = Number(
    (await server.pool.query(`select id from people where business_id = $1 and email = 'client@demo.test'`, [businessId])).rows[0].id
  )
})
afterAll(async () => {
  await server?.close()
  fs.rmSync(dataDir, { recursive: true, force: true })
})

describe("the demo's history", () => {
  it("is seeded once: seeding again adds nothing", async () => {
    const before = await counts()
    expect(before.visits).toBeGreaterThan(300)
    expect(before.waitlist_entries).toBeGreaterThan(3)
    expect(before.notes).toBeGreaterThan(0)
    expect(before.make_ups).toBeGreaterThan(0)
    await run(seedDemo)
    expect(await counts()).toEqual(before)
  })

  it("seeds each kind of history while the demo has none of it: notes come back, visits are not repeated", async () => {
    const before = await counts()
    const notes = `select person_id, event_occurrence_id, note, public, pinned from notes where business_id = $1 order by id`
    const written = (await server.pool.query(notes, [businessId])).rows
    await server.pool.query(`delete from notes where business_id = $1`, [businessId])
    await run(seedDemo)
    expect(await counts()).toEqual(before)
    expect((await server.pool.query(notes, [businessId])).rows).toEqual(written)
  })

  it("is deterministic: on the same clock, the same attendance and waitlists", async () => {
    const before = await counts()
    const roster = `select o.start_at, p.email, v.state, v.registered_at, v.completed_at, v.noshow_at, v.cancelled_at,
                           v.created_by_staff_member_id
                    from visits v join event_occurrences o on o.business_id = v.business_id and o.id = v.event_occurrence_id
                    join people p on p.business_id = v.business_id and p.id = v.person_id
                    where v.business_id = $1 order by o.start_at, p.email`
    const queue = `select w.event_occurrence_id, p.email, w.state, w.created_at from waitlist_entries w
                   join people p on p.business_id = w.business_id and p.id = w.person_id where w.business_id = $1 order by w.created_at, p.email`
    const seeded = { visits: (await server.pool.query(roster, [businessId])).rows, queue: (await server.pool.query(queue, [businessId])).rows }
    const paid = `select p.name, pe.email, pl.start_date::text, pl.end_date::text, pl.exhausted_at, o.start_at, v.paid_for_by
                  from plans pl join plan_people pp on pp.business_id = pl.business_id and pp.plan_id = pl.id
                  join people pe on pe.business_id = pp.business_id and pe.id = pp.person_id
                  join plan_products p on p.business_id = pl.business_id and p.id = pl.plan_product_id
                  left join punches pu on pu.business_id = pl.business_id and pu.plan_id = pl.id
                  left join visits v on v.business_id = pu.business_id and v.id = pu.visit_id
                  left join event_occurrences o on o.business_id = v.business_id and o.id = v.event_occurrence_id
                  where pl.business_id = $1 order by pe.email, pl.start_date, o.start_at`
    const plansBefore = (await server.pool.query(paid, [businessId])).rows
    const sold = `select i.invoice_number, i.state, i.invoice_date::text, pe.email, i.total_cents, i.closed_at, t.name, r.plan_id is not null as sold_plan,
                         (select coalesce(json_agg(json_build_object('method', p.payment_method, 'cents', p.amount_cents, 'at', p.created_at) order by p.id), '[]')
                          from payments p where p.business_id = i.business_id and p.invoice_id = i.id) as payments,
                         (select coalesce(sum(x.amount_cents), 0)::int from refunds x where x.business_id = i.business_id and x.invoice_id = i.id) as refunded
                  from invoices i join people pe on pe.business_id = i.business_id and pe.id = i.person_id
                  join invoice_items t on t.business_id = i.business_id and t.invoice_id = i.id
                  join invoice_item_recipients r on r.business_id = t.business_id and r.invoice_item_id = t.id
                  where i.business_id = $1 order by i.invoice_number::int`
    const invoicesBefore = (await server.pool.query(sold, [businessId])).rows
    expect(invoicesBefore.length).toBeGreaterThan(0)
    for (const table of ["pays", "account_credit_entries", "refunds", "payments", "invoices", "invoice_numbers", "plans", "make_ups", "waitlist_entries", "visits"]) {
      await server.pool.query(`delete from ${table} where business_id = $1`, [businessId])
    }
    await run(seedDemo)
    expect(await counts()).toEqual(before)
    expect({ visits: (await server.pool.query(roster, [businessId])).rows, queue: (await server.pool.query(queue, [businessId])).rows })
      .toEqual(seeded)
    expect((await server.pool.query(paid, [businessId])).rows).toEqual(plansBefore)
    expect((await server.pool.query(sold, [businessId])).rows).toEqual(invoicesBefore)
  })

  it("keeps the rules of the tables: capacity, one visit per person, state timestamps, waitlists off the roster", async () => {
    const over = await server.pool.query(
      `select o.id from event_occurrences o join visits v on v.business_id = o.business_id and v.event_occurrence_id = o.id
       where o.business_id = $1 and v.state in ('reserved', 'registered', 'completed')
       group by o.business_id, o.id having count(*) > o.capacity`,
      [businessId]
    )
    expect(over.rows).toEqual([])
    const badStamps = await server.pool.query(
      `select v.id from visits v join event_occurrences o on o.business_id = v.business_id and o.id = v.event_occurrence_id
       where v.business_id = $1 and not (
         v.registered_at is not null and v.registered_at <= $2 and v.created_at = v.registered_at
         and (v.completed_at is not null) = (v.state = 'completed') and (v.noshow_at is not null) = (v.state = 'noshowed')
         and (v.cancelled_at is not null) = (v.state = 'late_canceled')
         and (v.state not in ('completed', 'noshowed') or (o.end_at <= v.completed_at or o.end_at <= v.noshow_at))
         and (v.state <> 'late_canceled' or v.cancelled_at between v.registered_at and o.start_at)
         and (v.state = 'registered' or o.start_at <= $2))`,
      [businessId, clock.now()]
    )
    expect(badStamps.rows).toEqual([])
    const waitingOnRoster = await server.pool.query(
      `select w.id from waitlist_entries w join event_occurrences o on o.business_id = w.business_id and o.id = w.event_occurrence_id
       where w.business_id = $1 and ((w.state = 'waiting') <> (o.start_at > $2)
         or exists (select 1 from visits v where v.business_id = w.business_id and v.event_occurrence_id = w.event_occurrence_id
                                             and v.person_id = w.person_id))`,
      [businessId, clock.now()]
    )
    expect(waitingOnRoster.rows).toEqual([])
  })

  it("shows weeks of attendance on past classes, and open attendance on the one that just ended", async () => {
    const weeksAgo = await occurrences("2026-09-28T00:00:00-07:00", "2026-10-04T23:59:59-07:00", "Vinyasa Flow")
    expect(weeksAgo.length).toBe(3)
    const lastMonday = (await occurrences("2026-11-16T00:00:00-08:00", "2026-11-16T23:59:59-08:00", "Vinyasa Flow"))[0]!
    expect(lastMonday).toMatchObject({ attendance_complete: true })
    expect(lastMonday.visits_count).toBeGreaterThan(5)
    const visits = await server.request("GET", `/api/v2/desk/event_occurrences/${lastMonday.id}/visits`, owner())
    expect(visits.status, visits.text).toBe(200)
    expect(visits.json.visits).toHaveLength(lastMonday.visits_count)
    const states = new Set(visits.json.visits.map((v: { state: string }) => v.state))
    expect([...states].every((state) => ["completed", "noshowed", "late_canceled"].includes(state as string))).toBe(true)
    expect(states.has("completed")).toBe(true)
    const allPast = await server.pool.query(
      `select v.state, count(*)::int as n from visits v join event_occurrences o on o.business_id = v.business_id and o.id = v.event_occurrence_id
       where v.business_id = $1 and o.start_at < $2 group by v.state`,
      [businessId, clock.now()]
    )
    expect(new Set(allPast.rows.map((row) => row.state))).toEqual(new Set(["completed", "noshowed", "late_canceled", "registered"]))

    // This morning's class ended four hours ago: its roster waits for the desk.
    const thisMorning = (await occurrences("2026-11-18T00:00:00-08:00", "2026-11-18T11:00:00-08:00", "Vinyasa Flow"))[0]!
    expect(thisMorning).toMatchObject({ attendance_complete: false })
    const open = await server.request("GET", `/api/v2/desk/event_occurrences/${thisMorning.id}/visits`, owner())
    expect(open.json.visits.some((v: { state: string }) => v.state === "registered")).toBe(true)
  })

  it("has registrations for the coming days, and a full class with people waiting", async () => {
    const upcoming = await occurrences("2026-11-18T12:00:01-08:00", "2026-11-21T23:59:59-08:00", "Reformer Pilates")
    expect(upcoming.map((o) => o.start_at)).toEqual(["2026-11-18T22:30:00Z", "2026-11-21T22:30:00Z"])
    expect(upcoming[0]!.visits_count).toBeGreaterThan(0)
    const full = upcoming[1]!
    expect(full).toMatchObject({ full: true, capacity_remaining: 0, visits_count: 8 })
    const roster = await server.request("GET", `/api/v2/desk/event_occurrences/${full.id}/visits`, owner())
    expect(roster.json.visits.map((v: { state: string }) => v.state)).toEqual(Array(8).fill("registered"))

    const waitlist = await server.request("GET", `/api/v2/desk/event_occurrences/${full.id}/waitlist_entries`, owner())
    expect(waitlist.status, waitlist.text).toBe(200)
    expect(waitlist.json.waitlist_entries.map((w: { state: string }) => w.state)).toEqual(["waiting", "waiting", "waiting"])
    const queue = await server.pool.query(
      `select person_id from waitlist_entries where business_id = $1 and event_occurrence_id = $2 order by created_at, id`,
      [businessId, full.id]
    )
    expect(Number(queue.rows[0].person_id)).toBe(clientId)
    // The demo client sees their own place in the queue.
    const mine = await server.request("GET", `/api/v2/front/people/${clientId}/waitlist_entries`, { token: tokens.clientToken })
    expect(mine.status, mine.text).toBe(200)
    expect(mine.json.waitlist_entries).toEqual([expect.objectContaining({ event_occurrence_id: full.id, state: "waiting" })])
  })

  it("gives the demo client a visit history, a summary and notes", async () => {
    const visits = await server.request("GET", `/api/v2/desk/people/${clientId}/visits?per_page=100`, owner())
    expect(visits.status, visits.text).toBe(200)
    const states = visits.json.visits.map((v: { state: string }) => v.state)
    expect(states).toContain("completed")
    expect(states).toContain("registered")
    const own = await server.request("GET", `/api/v2/front/people/${clientId}/visits`, { token: tokens.clientToken })
    expect(own.status, own.text).toBe(200)
    expect(own.json.visits.length).toBeGreaterThan(0)

    const summary = await server.request("GET", `/api/v2/desk/people/${clientId}/visits/summary`, owner())
    expect(summary.status, summary.text).toBe(200)
    const [overall] = summary.json.summaries
    expect(overall.completed_count).toBeGreaterThan(3)
    expect(overall.first_visited_at < overall.last_visited_at).toBe(true)
    expect(overall.services_visited_at.length).toBeGreaterThan(0)

    const notes = await server.request("GET", `/api/v2/desk/people/${clientId}/notes`, owner())
    expect(notes.status, notes.text).toBe(200)
    expect(notes.json.notes.map((n: { public: boolean; pinned: boolean }) => [n.public, n.pinned])).toEqual(
      expect.arrayContaining([[true, true], [false, true]])
    )
    const publicOnly = await server.request("GET", `/api/v2/front/people/${clientId}/notes`, { token: tokens.clientToken })
    expect(publicOnly.json.notes.map((n: { public: boolean }) => n.public)).toEqual([true])

    const noted = await server.pool.query(`select event_occurrence_id from notes where business_id = $1 and event_occurrence_id is not null`, [
      businessId
    ])
    expect(noted.rowCount).toBeGreaterThan(0)
    const onClass = await server.request("GET", `/api/v2/desk/event_occurrences/${noted.rows[0].event_occurrence_id}/notes`, owner())
    expect(onClass.json.notes.length).toBeGreaterThan(0)
  })

  it("gives clients plans: the demo client a usable membership covering every service, packs paid by punches", async () => {
    const plans = await server.request("GET", `/api/v2/front/people/${clientId}/plans?filter=usable`, { token: tokens.clientToken })
    expect(plans.status, plans.text).toBe(200)
    expect(plans.json.plans).toEqual([expect.objectContaining({ type: "Membership", name: "Unlimited Monthly", consider_member: true, on_hold: false })])
    const restricted = await server.pool.query(
      `select 1 from plan_product_services where business_id = $1 and plan_product_id = $2`,
      [businessId, plans.json.plans[0].plan_product_id]
    )
    expect(restricted.rowCount).toBe(0) // a product with no services covers every service, require_plan ones too
    const person = await server.request("GET", `/api/v2/desk/people/${clientId}`, owner())
    expect(person.json.people[0]).toMatchObject({ is_member: true, membership: "Unlimited Monthly", secondary_info_field: "Unlimited Monthly" })

    const all = await server.request("GET", "/api/v2/desk/plans?per_page=100&include_holds=true", owner())
    expect(all.status, all.text).toBe(200)
    const types = new Set(all.json.plans.map((p: { type: string }) => p.type))
    expect(types).toEqual(new Set(["Membership", "Pack"]))
    expect(all.json.plans.some((p: { holds: Array<unknown> }) => p.holds.length > 0)).toBe(true)
    const inactive = await server.request("GET", `/api/v2/desk/plans?per_page=100`, owner())
    expect(inactive.json.total_count).toBe(all.json.total_count)

    // Punches never spend more than a pack holds; each paid visit mirrors its punch.
    const overspent = await server.pool.query(
      `select pl.id from plans pl join punches pu on pu.business_id = pl.business_id and pu.plan_id = pl.id
       where pl.business_id = $1 and pl.count is not null group by pl.id, pl.count having count(*) > pl.count`,
      [businessId]
    )
    expect(overspent.rows).toEqual([])
    const mirrors = await server.pool.query(
      `select count(*)::int as punches, count(*) filter (where v.punch_id = pu.id and v.paid_for_by = pl.name)::int as mirrored,
              count(*) filter (where pu.visit_date < pl.start_date or pu.visit_date > coalesce(pl.end_date, pu.visit_date))::int as outside
       from punches pu join visits v on v.business_id = pu.business_id and v.id = pu.visit_id
       join plans pl on pl.business_id = pu.business_id and pl.id = pu.plan_id where pu.business_id = $1`,
      [businessId]
    )
    expect(mirrors.rows[0].punches).toBeGreaterThan(50)
    expect(mirrors.rows[0]).toMatchObject({ mirrored: mirrors.rows[0].punches, outside: 0 })
    const own = await server.request("GET", `/api/v2/desk/people/${clientId}/visits?per_page=100`, owner())
    expect(own.json.visits.some((v: { paid_for_by: string | null }) => v.paid_for_by === "Unlimited Monthly")).toBe(true)
  })

  it("sold the plans through paid invoices: the desk lists them, a client sees their own, every total is the sum of its parts", async () => {
    const plans = Number((await server.pool.query(`select count(*) from plans where business_id = $1 and price_cents > 0`, [businessId])).rows[0].count)
    const list = await server.request("GET", "/api/v2/desk/invoices?per_page=100", owner())
    expect(list.status, list.text).toBe(200)
    expect(list.json.total_count).toBe(plans + 4) // one per plan, four open
    const closed = await server.request("GET", "/api/v2/desk/invoices?per_page=100&state=closed", owner())
    expect(closed.json.total_count).toBe(plans)
    const open = await server.request("GET", "/api/v2/desk/invoices?per_page=100&state=open", owner())
    expect(open.json.total_count).toBe(4)

    let pages = [...list.json.invoices]
    for (let next = list.json.next; next; ) {
      const page = await server.request("GET", new URL(next).pathname + new URL(next).search, owner())
      pages = pages.concat(page.json.invoices)
      next = page.json.next
    }
    // The products' sales taxes at their own rates (the demo's invoices have no location), as the recompute reads them.
    const taxRows = (await server.pool.query(
      `select pt.plan_product_id::int as product, t.id::int as id, t.name, t.tax_rate::float8 as rate, t.inclusive
       from plan_product_sales_taxes pt join sales_taxes t on t.business_id = pt.business_id and t.id = pt.sales_tax_id
       where pt.business_id = $1 order by pt.plan_product_id, t.id`,
      [businessId]
    )).rows
    let partial = 0
    let refunded = 0
    let taxed = 0
    for (const { id } of pages) {
      const invoice = (await server.request("GET", `/api/v2/desk/invoices/${id}`, owner())).json.invoices[0]
      expect(invoice.total_cents).toBe(invoice.subtotal_cents + invoice.adjustment_total_cents + invoice.discount_total_cents + invoice.additional_tax_total_cents)
      expect(invoice.total_cents).toBe(invoice.invoice_items.reduce((sum: number, item: { total_cents: number }) => sum + item.total_cents, 0))
      expect(invoice.invoice_items.length).toBe(1)
      // The money rule itself gives the stored amounts.
      const computed = computeInvoice(
        invoice.invoice_items.map((item: { id: number; price_cents: number; detail: { plan_product_id: number } }) => ({
          id: item.id,
          priceCents: item.price_cents,
          override: null,
          prorateCents: null,
          discount: null,
          taxes: taxRows.filter((t) => t.product === item.detail.plan_product_id).map((t) => ({ salesTaxId: t.id, name: t.name, rate: t.rate, inclusive: t.inclusive }))
        })),
        null
      )
      expect({ total: invoice.total_cents, included: invoice.included_tax_total_cents, additional: invoice.additional_tax_total_cents })
        .toEqual({ total: computed.totalCents, included: computed.includedTaxTotalCents, additional: computed.additionalTaxTotalCents })
      const taxLines = invoice.invoice_items[0].adjustments.filter((a: { type: string }) => a.type === "TaxAdjustment")
      expect(taxLines.map((a: { amount_cents: number }) => a.amount_cents)).toEqual(computed.items[0]!.taxes.map((t) => t.amountCents))
      if (invoice.additional_tax_total_cents + invoice.included_tax_total_cents > 0) taxed++
      const paid = invoice.payments.filter((p: { state: string }) => p.state === "settled").reduce((sum: number, p: { amount_cents: number }) => sum + p.amount_cents, 0)
      if (invoice.state === "closed") {
        expect(paid, `invoice ${id}`).toBe(invoice.total_cents)
        expect(invoice.outstanding_amount_cents).toBe(0)
        expect(invoice.payments[0].payment_method).toMatch(/^(cash|check)$/)
      } else {
        expect(invoice.state).toBe("open")
        expect(invoice.outstanding_amount_cents).toBe(invoice.total_cents - paid)
        if (paid > 0) partial++
      }
      for (const payment of invoice.payments) {
        const back = payment.refunds.reduce((sum: number, r: { amount_cents: number }) => sum + r.amount_cents, 0)
        expect(payment.maximum_refund_cents).toBe(payment.amount_cents - back)
        if (payment.refunds.some((r: { payment_type_id: number; state: string }) => r.payment_type_id === 5 && r.state === "settled")) refunded++
      }
    }
    expect(partial).toBe(1)
    expect(refunded).toBe(1)
    expect(taxed).toBeGreaterThan(0)
    const credit = await server.pool.query(`select coalesce(sum(amount_cents), 0)::int as n from account_credit_entries where business_id = $1`, [businessId])
    expect(credit.rows[0].n).toBeGreaterThan(0)

    // Every plan points back at the invoice item that sold it.
    const unsold = await server.pool.query(
      `select pl.id from plans pl where pl.business_id = $1 and pl.price_cents > 0
         and not exists (select 1 from invoice_item_recipients r where r.business_id = $1 and r.plan_id = pl.id)`,
      [businessId]
    )
    expect(unsold.rows).toEqual([])

    // The demo client sees their own invoices in client mode, and not another client's.
    const mine = await server.pool.query(`select id from invoices where business_id = $1 and person_id = $2 order by id`, [businessId, clientId])
    expect(mine.rows.length).toBeGreaterThanOrEqual(2) // the membership's sale and an open pack
    for (const { id } of mine.rows) {
      const own = await server.request("GET", `/api/v2/front/invoices/${id}`, { token: tokens.clientToken })
      expect(own.status, own.text).toBe(200)
      expect(own.json.invoices[0].person).toMatchObject({ id: clientId })
    }
    const [other] = (await server.pool.query(`select id from invoices where business_id = $1 and person_id <> $2 limit 1`, [businessId, clientId])).rows
    expect((await server.request("GET", `/api/v2/front/invoices/${other.id}`, { token: tokens.clientToken })).status).toBe(404)
  })

  it("fills every schedule report with visits after a sync", async () => {
    // The demo's days are fixed by the test clock (November 2026), but the store counts future
    // visits against the database's own clock: one registered session moves to tomorrow.
    await server.pool.query(
      `update event_occurrences o set start_at = now() + interval '1 day', end_at = now() + interval '1 day' + (o.end_at - o.start_at)
       where o.business_id = $1 and o.id = (
         select v.event_occurrence_id from visits v
         where v.business_id = $1 and v.state = 'registered'
           and exists (select 1 from visits c where c.business_id = v.business_id and c.person_id = v.person_id and c.state = 'completed')
         order by v.id limit 1)`,
      [businessId]
    )
    await syncReports({ databaseUrl: server.databaseUrl, dir: path.join(dataDir, "reports"), mode: "full" })
    const [enrollments] = await report("enrollments", {
      fields: ["visit_count", "completed_enrollment_count", "noshowed_enrollment_count", "late_canceled_enrollment_count",
        "registered_enrollment_count", "waiting_enrollment_count", "expired_enrollment_count"],
      group: "business_subdomain"
    })
    for (const count of Object.entries(enrollments!).filter(([name]) => name.endsWith("_count"))) {
      expect(count[1], count[0]).toBeGreaterThan(0)
    }
    const occurrenceRows = await report("event_occurrences", { fields: ["event_occurrence_id", "visit_count"], filter: ["gt", "visit_count", 0] })
    expect(occurrenceRows.length).toBeGreaterThan(50)
    const staffRows = await report("event_occurrence_staff_members", { fields: ["full_name", "visit_count"], filter: ["gt", "visit_count", 0] })
    expect(new Set(staffRows.map((row) => row.full_name))).toEqual(new Set(["Ines Alvarez", "Tom Becker", "Sam Okoye"]))
    const clients = await report("clients", { fields: ["person_id", "completed_visits", "future_visits"], filter: ["gt", "completed_visits", 0] })
    expect(clients.length).toBeGreaterThan(20)
    expect(clients.some((row) => Number(row.future_visits) > 0)).toBe(true)
  })
})
