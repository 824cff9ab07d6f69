import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createWriteBaselines } from "../../bench/support/write-baselines.ts"
import { createPlanProduct } from "../support/billing-factories.ts"
import { makeSettableClock } from "../support/clock.ts"
import { createPerson } from "../support/factories.ts"
import { NOW, type Studio, setUpStudio } from "../support/studio.ts"

/**
 * The write benches' database functions (bench/support/write-baselines.ts) against today's schema:
 * the benches measure the service against them, so one that no longer matches the tables would
 * stop the benches (never run by CI) rather than a test. Each writes the rows it stands for and
 * keeps the rules it claims to keep. The occurrences are in the future of the database's own
 * clock (the test clock is the service's, not PostgreSQL's), so they are moved there first.
 */
const clock = makeSettableClock(NOW)
let s: Studio
beforeAll(async () => {
  s = await setUpStudio(clock, { capacity: 2 })
  await createWriteBaselines(s.pool)
  await s.pool.query(
    `update event_occurrences set start_at = start_at + interval '10 years', end_at = end_at + interval '10 years' where business_id = $1`,
    [s.business.id]
  )
})
afterAll(async () => s?.server.close())

const visitsOf = async (occurrenceId: number) =>
  (await s.pool.query(`select person_id::int, state, lease_id is not null as leased from visits where event_occurrence_id = $1 order by id`, [occurrenceId])).rows

describe("the write benches' baselines", () => {
  for (const fn of ["bench_book", "bench_book_rules"]) {
    it(`${fn} books a registered visit with its lease, refuses a second one of the person and a full occurrence`, async () => {
      const occurrence = s.yoga(fn === "bench_book" ? "2026-11-10" : "2026-11-11").id
      const [a, b, c] = await Promise.all([1, 2, 3].map((i) => createPerson(s.pool, s.business.id, { first_name: `B${i}` })))
      const book = (personId: number) =>
        s.pool.query(`select ${fn}($1, $2, $3, $4) as id`, [s.business.id, occurrence, personId, s.owner.staffMemberId])
      await book(a!.personId)
      await expect(book(a!.personId)).rejects.toThrow(/already booked/)
      await book(b!.personId)
      await expect(book(c!.personId)).rejects.toThrow(/full/)
      expect(await visitsOf(occurrence)).toEqual([
        { person_id: a!.personId, state: "registered", leased: true },
        { person_id: b!.personId, state: "registered", leased: true }
      ])
    })
  }

  it("bench_book_rules refuses an unknown person and a session that is not a class", async () => {
    const book = (occurrenceId: number, personId: number) =>
      s.pool.query(`select bench_book_rules($1, $2, $3, $4)`, [s.business.id, occurrenceId, personId, s.owner.staffMemberId])
    await expect(book(s.yoga("2026-11-12").id, 999_999)).rejects.toThrow(/no such person/)
    await expect(book(s.courseSessions[0]!.id, s.cleo.personId)).rejects.toThrow(/not a class/)
  })

  it("bench_checkout sells a pack: a closed invoice, its payment and the plan", async () => {
    const pack = (await createPlanProduct(s.pool, s.business.id, { kind: "pack", count: 5, price_cents: 5000 })).id
    const { rows: [sold] } = await s.pool.query(`select bench_checkout($1, $2, $3) as id`, [s.business.id, s.otto.personId, pack])
    const { rows: [invoice] } = await s.pool.query(
      `select i.state, i.total_cents, (select sum(amount_cents)::int from payments p where p.invoice_id = i.id) as paid,
              (select count(*)::int from plans p join plan_people h on h.plan_id = p.id where p.plan_product_id = $2 and h.person_id = $3) as plans
       from invoices i where i.id = $1`,
      [sold.id, pack, s.otto.personId]
    )
    expect(invoice).toEqual({ state: "closed", total_cents: 5000, paid: 5000, plans: 1 })
  })

  it("bench_invoice_rules and bench_pay_rules sell a pack in two calls, part payments first, and keep the money rule", async () => {
    const pack = (await createPlanProduct(s.pool, s.business.id, { kind: "pack", count: 5, price_cents: 5000 })).id
    const staffPerson = s.owner.personId
    const { rows: [created] } = await s.pool.query(`select * from bench_invoice_rules($1, $2, $3, $4)`, [s.business.id, s.otto.personId, pack, staffPerson])
    expect(created.total_cents).toBe(5000)
    const pay = (amount: number) =>
      s.pool.query(`select bench_pay_rules($1, $2, $3, $4) as id`, [s.business.id, created.id, amount, s.owner.staffMemberId])
    await expect(pay(6000)).rejects.toThrow(/more than outstanding/)
    await pay(2000)
    const state = async () =>
      (await s.pool.query(
        `select i.state, (select sum(amount_cents)::int from payments p where p.invoice_id = i.id) as paid,
                (select count(*)::int from invoice_item_recipients r join plan_people h on h.plan_id = r.plan_id and h.person_id = r.person_id
                 join invoice_items it on it.id = r.invoice_item_id where it.invoice_id = i.id) as plans_tied
         from invoices i where i.id = $1`,
        [created.id]
      )).rows[0]
    expect(await state()).toEqual({ state: "cart", paid: 2000, plans_tied: 0 })
    await pay(3000)
    expect(await state()).toEqual({ state: "closed", paid: 5000, plans_tied: 1 })
    await expect(pay(1)).rejects.toThrow(/invoice closed/)
    await expect(s.pool.query(`select * from bench_invoice_rules($1, $2, $3, $4)`, [s.business.id, 999_999, pack, staffPerson])).rejects.toThrow(/no such payer/)
  })
})
