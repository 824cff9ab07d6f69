import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { seedDemo } from "../../src/tools/demo/seed.ts"
import { commission, servicePay } from "../../src/billing/staff-pay/rules.ts"
import { makeSettableClock } from "../support/clock.ts"
import { type TestServer, startTestServer } from "../support/server.ts"

/** The demo's pays: from its instructors' rates, for the past sessions whose attendance was taken, and commissions on closed sales. */
const clock = makeSettableClock("2026-11-18T20:00:00Z")
const dataDir = path.resolve(`.data/test/demo-pays-${process.pid}`)
let server: TestServer
let businessId: number

const run = <A>(effect: Parameters<TestServer["runtime"]["runPromise"]>[0]) => server.runtime.runPromise(effect) as Promise<A>

const paysSql = `
  select y.id::int, y.pay_type, y.pay_state, p.email, y.service_id::int, y.event_occurrence_id::int, y.invoice_id::int,
         y.base_cents::int, y.per_head_cents::int, y.tiered_cents::int, y.final_cents::int, y.service_hours::float8,
         y.pay_period_start::text, y.pay_period_end::text, y.reviewed_by_staff_member_id::int
    from pays y join staff_members sm on sm.business_id = y.business_id and sm.id = y.staff_member_id
    join people p on p.business_id = sm.business_id and p.id = sm.person_id
   where y.business_id = $1 order by y.pay_type, y.event_occurrence_id, y.invoice_id, p.email`

beforeAll(async () => {
  fs.rmSync(dataDir, { recursive: true, force: true })
  server = await startTestServer({ clock: clock.clock, dataDir })
  await run(seedDemo)
  businessId = Number((await server.pool.query(`select id from businesses where subdomain = 'demo'`)).rows[0].id)
}, 180_000)
afterAll(async () => {
  await server?.close()
  fs.rmSync(dataDir, { recursive: true, force: true })
})

describe("the demo's pays", () => {
  it("pays each rated instructor of every session whose attendance was taken, by the rules", async () => {
    const pays = (await server.pool.query(paysSql, [businessId])).rows
    const service = pays.filter((p) => p.pay_type === "service")
    expect(service.length).toBeGreaterThan(20)
    const expected = await server.pool.query(
      `select o.id::int as event_occurrence_id, p.email, s.type,
              (extract(epoch from o.end_at - o.start_at) / 60)::float8 as minutes,
              (select count(*)::int from visits v where v.business_id = o.business_id and v.event_occurrence_id = o.id and v.state = 'completed') as completed,
              coalesce(r.id, d.id) as rate_id
         from event_occurrences o
         join services s on s.business_id = o.business_id and s.id = o.service_id
         join event_occurrence_staff_members es on es.business_id = o.business_id and es.event_occurrence_id = o.id
         join staff_members sm on sm.business_id = es.business_id and sm.id = es.staff_member_id
         join people p on p.business_id = sm.business_id and p.id = sm.person_id
         left join pay_rates r on r.business_id = o.business_id and r.staff_member_id = sm.id and r.service_id = o.service_id
         left join pay_rates d on d.business_id = o.business_id and d.staff_member_id = sm.id and d.service_id is null
        where o.business_id = $1 and o.attendance_complete and coalesce(r.id, d.id) is not null
        order by o.id, p.email`,
      [businessId]
    )
    expect(service.map((p) => [p.event_occurrence_id, p.email])).toEqual(expected.rows.map((r) => [r.event_occurrence_id, r.email]))
    const rates = new Map(
      (
        await server.pool.query(
          `select r.id, r.base_cents, r.per_head_cents, r.per_head_minimum, r.hourly_cents,
                  coalesce((select json_agg(json_build_object('attendance_threshold', t.attendance_threshold, 'bonus_cents', t.bonus_cents))
                              from pay_rate_tiers t where t.business_id = r.business_id and t.pay_rate_id = r.id), '[]') as tiers
             from pay_rates r where r.business_id = $1`,
          [businessId]
        )
      ).rows.map((r) => [r.id, r])
    )
    expected.rows.forEach((row, i) => {
      const figures = servicePay(rates.get(row.rate_id)!, { appointment: row.type === "Appointment", completedVisits: row.completed, durationMinutes: row.minutes })
      expect(service[i]).toMatchObject(figures)
    })
    // Some pay a tier bonus, some a per-head bonus.
    expect(service.some((p) => p.tiered_cents > 0)).toBe(true)
    expect(service.some((p) => p.per_head_cents > 0)).toBe(true)
  })

  it("pays Ines her commission on the sales she is the recipient of", async () => {
    const pays = (await server.pool.query(paysSql, [businessId])).rows.filter((p) => p.pay_type === "commission")
    expect(pays.length).toBeGreaterThan(0)
    for (const pay of pays) {
      expect(pay.email).toBe("ines@demo.test")
      const { rows } = await server.pool.query(
        `select coalesce(sum(total_cents - additional_tax_total_cents - included_tax_total_cents), 0)::int as revenue
           from invoice_items where business_id = $1 and invoice_id = $2 and canceled_at is null and commissionable`,
        [businessId, pay.invoice_id]
      )
      expect(pay.final_cents).toBe(commission(1000, rows[0].revenue))
    }
  })

  it("approves the pays of ended periods and leaves the current period's pending; seeding again adds nothing", async () => {
    const pays = (await server.pool.query(paysSql, [businessId])).rows
    const today = "2026-11-18"
    for (const pay of pays) {
      expect(pay.pay_state).toBe(pay.pay_period_end < today ? "approved" : "pending")
      expect(pay.reviewed_by_staff_member_id === null).toBe(pay.pay_state === "pending")
    }
    expect(pays.some((p) => p.pay_state === "approved")).toBe(true)
    expect(pays.some((p) => p.pay_state === "pending")).toBe(true)
    await run(seedDemo)
    expect((await server.pool.query(paysSql, [businessId])).rows).toEqual(pays)
  })
})
