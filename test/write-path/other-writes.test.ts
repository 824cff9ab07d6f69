import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createPlan, createPlanProduct } from "../support/billing-factories.ts"
import { makeSettableClock } from "../support/clock.ts"
import { createPerson } from "../support/factories.ts"
import { ok } from "../support/http.ts"
import { countStatements } from "../support/statements.ts"
import { NOW, type Studio, setUpStudio, studioCallers } from "../support/studio.ts"
import { vaultCard } from "../support/vaulting.ts"

/**
 * The round trips of the other writes a client calls most, counted by PostgreSQL as the booking's
 * and checkout's are (statement-counts.test.ts): a visit created, a visit's state event, a punch,
 * a card payment, a refund. Each is done once first (the first request of a kind warms the
 * caches it reads), then counted.
 */
/** Today's counts: lower them when a write gets cheaper, never raise them to pass. */
const LIMITS = {
  visitCreated: { roundTrips: 9 },
  visitStateEvent: { roundTrips: 5 },
  punch: { roundTrips: 6 },
  // 7 until the invoice's lock and the read after it became two statements (statement-counts.test.ts).
  cardPayment: { roundTrips: 8 },
  refund: { roundTrips: 10 }
}

const clock = makeSettableClock(NOW)
let s: Studio
let pack = 0
let card = 0
const { desk } = studioCallers(() => s)

const person = async () => (await createPerson(s.pool, s.business.id, {})).personId

beforeAll(async () => {
  s = await setUpStudio(clock, { capacity: 50 })
  pack = (await createPlanProduct(s.pool, s.business.id, { kind: "pack", count: 10, price_cents: 12000 })).id
  card = await vaultCard(s, s.cleo.personId, "4242424242424242")
}, 180_000)
afterAll(async () => s?.server.close())

/** Counts `action` after running `warm` once; `mark` names a statement the action must have sent. */
const counted = async (warm: () => Promise<void>, action: () => Promise<void>, mark: string) => {
  await warm()
  const result = await countStatements(s.pool, action)
  // The counting sees the write at all (a broken count would pass the bounds with zeros).
  expect(result.statements.some((line) => line.includes(mark)), result.statements.join("\n")).toBe(true)
  return result
}

describe("the other writes' statements", () => {
  const postVisit = async (date: string, personId: number) =>
    ok(await desk("POST", "/visits", { visit: { person_id: personId, event_occurrence_id: s.yoga(date).id } }), 201).json.visits[0].id as number

  it("POST visits", async () => {
    const [first, second] = [await person(), await person()]
    const result = await counted(
      async () => void (await postVisit("2026-11-06", first)),
      async () => void (await postVisit("2026-11-07", second)),
      "with enrolled as (update waitlist_entries"
    )
    expect(result.roundTrips, result.statements.join("\n")).toBeLessThanOrEqual(LIMITS.visitCreated.roundTrips)
  })

  it("PUT visits with a state event", async () => {
    const first = await postVisit("2026-11-08", await person())
    const second = await postVisit("2026-11-08", await person())
    const noshow = (id: number) => async () => void ok(await desk("PUT", `/visits/${id}`, { visit: { state_event: "noshow" } }), 200)
    const result = await counted(noshow(first), noshow(second), "update visits")
    expect(result.roundTrips, result.statements.join("\n")).toBeLessThanOrEqual(LIMITS.visitStateEvent.roundTrips)
  })

  it("PUT visits answers the visit as a later GET shows it", async () => {
    const id = await postVisit("2026-11-08", await person())
    for (const state_event of ["noshow", "reset", "late_cancel", "reset", "complete"]) {
      const answered = ok(await desk("PUT", `/visits/${id}`, { visit: { state_event } }), 200).json
      expect(answered, state_event).toEqual(ok(await desk("GET", `/visits/${id}`), 200).json)
    }
  })

  it("POST punches", async () => {
    const holder = await person()
    const plan = (await createPlan(s.pool, s.business.id, pack, [holder], { type: "Pack", count: 10, start_date: "2026-11-01" })).id
    const visits: Array<number> = []
    for (const date of ["2026-11-09", "2026-11-10"]) {
      visits.push(ok(await desk("POST", "/visits", { visit: { person_id: holder, event_occurrence_id: s.yoga(date).id, state: "reserved" } }), 201).json.visits[0].id)
    }
    const punch = (visitId: number) => async () => void ok(await desk("POST", "/punches", { punch: { visit_id: visitId, plan_id: plan } }), 201)
    const result = await counted(punch(visits[0]!), punch(visits[1]!), "insert into punches")
    expect(result.roundTrips, result.statements.join("\n")).toBeLessThanOrEqual(LIMITS.punch.roundTrips)
  })

  const cardInvoice = async () => {
    const created = ok(await desk("POST", "/invoices", { invoice: { payer_id: s.cleo.personId, plan_products: [{ id: pack }] } }), 201)
    return created.json.invoices[0] as { id: number; total_cents: number }
  }
  const payByCard = async (invoice: { id: number; total_cents: number }, amount = invoice.total_cents) =>
    ok(await desk("POST", `/invoices/${invoice.id}/payments`, { payment: { payment_method: "creditcard", amount_cents: amount, form_of_payment_id: card } }), 201)
      .json.payments[0].id as number

  it("POST invoices/:id/payments with a card", async () => {
    const first = await cardInvoice()
    const second = await cardInvoice()
    const result = await counted(async () => void (await payByCard(first)), async () => void (await payByCard(second)), "insert into payments")
    expect(result.roundTrips, result.statements.join("\n")).toBeLessThanOrEqual(LIMITS.cardPayment.roundTrips)
  })

  it("POST a refund of a card payment", async () => {
    const payments: Array<{ invoice: number; payment: number }> = []
    for (let i = 0; i < 2; i++) {
      const invoice = await cardInvoice()
      payments.push({ invoice: invoice.id, payment: await payByCard(invoice) })
    }
    const refund = ({ invoice, payment }: { invoice: number; payment: number }) => async () =>
      void ok(await desk("POST", `/invoices/${invoice}/payments/${payment}/refunds`, { refund: { amount_cents: 1000 } }), 201)
    const result = await counted(refund(payments[0]!), refund(payments[1]!), "insert into refunds")
    expect(result.roundTrips, result.statements.join("\n")).toBeLessThanOrEqual(LIMITS.refund.roundTrips)
  })
})
