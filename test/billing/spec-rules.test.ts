import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { expireBooking } from "../../src/enrollment/bookings/expiry.ts"
import { createPlanProduct } from "../support/billing-factories.ts"
import { makeSettableClock } from "../support/clock.ts"
import { createPerson, createToken } from "../support/factories.ts"
import { NOW, type Studio, setUpStudio, studioCallers, visitStates } from "../support/studio.ts"

/**
 * Issue 30 §4, the spec's rules over HTTP: deleting a person with open invoices, deleting an
 * uncompleted booking with what it created, client-mode on_hold, event attendees, invoice item
 * details, new-client complimentary passes and their skip flags, barcodes in people search.
 */
const clock = makeSettableClock(NOW)
let s: Studio
let pack: number
let managerToken: string

const { desk, front } = studioCallers(() => s)

beforeAll(async () => {
  s = await setUpStudio(clock)
  pack = (await createPlanProduct(s.pool, s.business.id, { kind: "pack", name: "Five classes", count: 5, price_cents: 10000, commitment_length: 30, commitment_unit: "day" })).id
  managerToken = await createToken(s.pool, (await createPerson(s.pool, s.business.id, { role: "manager" })).accountId, s.business.id)
}, 180_000)

afterAll(async () => s?.server.close())

describe("deleting a person with open invoices", () => {
  it("is refused with 422 naming the open and on-hold invoices; a canceled one does not block", async () => {
    const payer = await createPerson(s.pool, s.business.id, { first_name: "Paula", last_name: "Payer" })
    const sell = async () => {
      const created = await desk("POST", "/invoices", { invoice: { payer_id: payer.personId, plan_products: [{ id: pack }] } })
      expect(created.status, created.text).toBe(201)
      return created.json.invoices[0] as { id: number; invoice_number: string }
    }
    const open = await sell()
    const held = await sell()
    expect((await desk("PUT", `/invoices/${open.id}`, { invoice: { state_event: "open" } })).status).toBe(200)
    expect((await desk("PUT", `/invoices/${held.id}`, { invoice: { state_event: "open" } })).status).toBe(200)
    expect((await desk("PUT", `/invoices/${held.id}`, { invoice: { state_event: "on_hold" } })).json.invoices[0].state).toBe("on_hold")

    const refused = await desk("DELETE", `/people/${payer.personId}`, undefined, managerToken)
    expect(refused.status).toBe(422)
    expect(refused.json).toEqual({ errors: [`This person has open invoices (${open.invoice_number}, ${held.invoice_number}); close or cancel them first`] })
    const german = await s.server.request("DELETE", `/api/v2/desk/people/${payer.personId}`, { token: managerToken, headers: { "x-fd-locale": "de" } })
    expect(german.json.errors[0]).toContain("offene Rechnungen")
    expect((await s.pool.query("select deleted_at from people where id = $1", [payer.personId])).rows[0].deleted_at).toBeNull()

    for (const invoice of [open, held]) expect((await desk("PUT", `/invoices/${invoice.id}`, { invoice: { state_event: "canceled" } })).status).toBe(200)
    expect((await desk("DELETE", `/people/${payer.personId}`, undefined, managerToken)).status).toBe(204)
  })
})

describe("deleting an uncompleted booking", () => {
  const book = async (date: string) => {
    const booking = await desk("POST", "/bookings", { booking: { leases: [{ event_occurrence_id: s.yoga(date).id, person: { id: s.cleo.personId } }] } })
    expect(booking.status, booking.text).toBe(201)
    return booking.json.bookings[0].id as number
  }
  const invoiceFor = async (bookingId: number, productId = pack) => {
    const created = await desk("POST", "/invoices", { invoice: { payer_id: s.cleo.personId, booking_id: bookingId, plan_products: [{ id: productId }] } })
    expect(created.status, created.text).toBe(201)
    return created.json.invoices[0] as { id: number; total_cents: number }
  }

  it("removes the invoices it created, in one transaction with its visits; an invoice with a payment stays, unlinked", async () => {
    clock.set(NOW)
    const bookingId = await book("2026-11-10")
    const cart = await invoiceFor(bookingId)
    const paid = await invoiceFor(bookingId)
    expect((await desk("PUT", `/invoices/${paid.id}`, { invoice: { state_event: "open" } })).status).toBe(200)
    expect((await desk("POST", `/invoices/${paid.id}/payments`, { payment: { payment_method: "cash", amount_cents: 1000 } })).status).toBe(201)
    expect(await visitStates(s.server, s.yoga("2026-11-10").id)).toEqual(["reserved"])

    const deleted = await desk("DELETE", `/bookings/${bookingId}`)
    expect(deleted.status, deleted.text).toBe(204)
    expect((await desk("GET", `/invoices/${cart.id}`)).status).toBe(404)
    expect((await s.pool.query("select count(*)::int as n from invoice_items where invoice_id = $1", [cart.id])).rows[0].n).toBe(0)
    const kept = await desk("GET", `/invoices/${paid.id}`)
    expect(kept.status).toBe(200)
    expect(kept.json.invoices[0]).toMatchObject({ state: "open", booking_id: null })
    expect(await visitStates(s.server, s.yoga("2026-11-10").id)).toEqual([])
  })

  it("removes the plans its invoices sold (an expired booking whose free invoice closed)", async () => {
    clock.set(NOW)
    const free = (await createPlanProduct(s.pool, s.business.id, { kind: "pack", name: "Free pack", count: 2, price_cents: 0 })).id
    const bookingId = await book("2026-11-11")
    const invoice = await invoiceFor(bookingId, free)
    clock.set("2026-11-02T16:30:00Z")
    expect(await s.server.runtime.runPromise(expireBooking(s.business.id, bookingId))).toBe("expired")
    const closed = await desk("PUT", `/invoices/${invoice.id}`, { invoice: { state_event: "closed" } })
    expect(closed.json.invoices[0].state, closed.text).toBe("closed")
    const plans = (await s.pool.query(
      `select r.plan_id::int from invoice_item_recipients r join invoice_items it on it.business_id = r.business_id and it.id = r.invoice_item_id
       where it.invoice_id = $1`, [invoice.id])).rows.map((row: { plan_id: number }) => row.plan_id)
    expect(plans).toHaveLength(1)

    expect((await desk("DELETE", `/bookings/${bookingId}`)).status).toBe(204)
    expect((await desk("GET", `/invoices/${invoice.id}`)).status).toBe(404)
    expect((await desk("GET", `/packs/${plans[0]}`)).status).toBe(404)
    expect((await s.pool.query("select count(*)::int as n from plans where id = $1", [plans[0]])).rows[0].n).toBe(0)
  })

  it("a completed booking goes alone: its invoice and plans stay", async () => {
    clock.set(NOW)
    const bookingId = await book("2026-11-12")
    const invoice = await invoiceFor(bookingId)
    expect((await desk("PUT", `/bookings/${bookingId}`, {})).status).toBe(200)
    expect((await desk("DELETE", `/bookings/${bookingId}`)).status).toBe(204)
    expect((await desk("GET", `/invoices/${invoice.id}`)).json.invoices[0].booking_id).toBeNull()
  })
})

describe("client mode and on_hold", () => {
  it("a client may put their open invoice on hold and open it again, as the spec's client-mode PUT allows", async () => {
    clock.set(NOW)
    const created = await front("POST", "/invoices", { invoice: { plan_products: [{ id: pack }] } })
    expect(created.status, created.text).toBe(201)
    const id = created.json.invoices[0].id
    const opened = await front("PUT", `/invoices/${id}`, { invoice: { state_event: "open" } })
    expect(opened.json.invoices[0]).toMatchObject({ state: "open", state_events: ["on_hold", "canceled"] })
    const held = await front("PUT", `/invoices/${id}`, { invoice: { state_event: "on_hold" } })
    expect(held.status, held.text).toBe(200)
    expect(held.json.invoices[0]).toMatchObject({ state: "on_hold", state_events: ["open", "canceled"] })
    expect((await front("GET", `/invoices/${id}`)).json.invoices[0].state).toBe("on_hold")
    // Not from the cart: the transition is open → on_hold only, in both modes.
    const cart = (await front("POST", "/invoices", { invoice: { plan_products: [{ id: pack }] } })).json.invoices[0].id
    const refused = await front("PUT", `/invoices/${cart}`, { invoice: { state_event: "on_hold" } })
    expect(refused.status).toBe(422)
    expect((await front("PUT", `/invoices/${id}`, { invoice: { state_event: "open" } })).json.invoices[0].state).toBe("open")
  })
})

describe("event attendees", () => {
  it("staff see everyone with a visit on the event; a client the caller and dependents; nobody without a token", async () => {
    clock.set(NOW)
    const visit = async (date: string, personId: number) =>
      expect((await desk("POST", "/visits", { visit: { person_id: personId, event_occurrence_id: s.yoga(date).id } })).status).toBe(201)
    await visit("2026-11-20", s.otto.personId)
    await visit("2026-11-20", s.kid)
    await visit("2026-11-21", s.cleo.personId)
    await visit("2026-11-22", s.otto.personId)
    const ref = (id: number) => expect.objectContaining({ id, name: expect.any(String) })

    const staff = await desk("GET", `/events/${s.events.yoga}`)
    // Cleo also holds the visit of a completed booking above: three people, each once.
    expect(staff.json.events[0].attendees).toEqual(expect.arrayContaining([ref(s.otto.personId), ref(s.kid), ref(s.cleo.personId)]))
    expect(staff.json.events[0].attendees).toHaveLength(3)
    const staffList = await desk("GET", `/events?ids=${s.events.yoga},${s.events.course}`)
    const byId = Object.fromEntries(staffList.json.events.map((e: { id: number; attendees: unknown }) => [e.id, e.attendees]))
    expect(byId[s.events.yoga]).toHaveLength(3)
    expect(byId[s.events.course]).toEqual([])

    const client = await front("GET", `/events/${s.events.yoga}`)
    const ids = (list: Array<{ id: number }>) => list.map((a) => a.id).sort((a, b) => a - b)
    const family = [s.cleo.personId, s.kid].sort((a, b) => a - b)
    expect(ids(client.json.events[0].attendees)).toEqual(family)
    const clientList = await front("GET", "/events")
    expect(ids(clientList.json.events.find((e: { id: number }) => e.id === s.events.yoga).attendees)).toEqual(family)
    const anonymous = await s.server.request("GET", `/api/v2/front/events/${s.events.yoga}?client_id=test-app`)
    expect(anonymous.status, anonymous.text).toBe(200)
    expect(anonymous.json.events[0].attendees).toEqual([])
  })
})

describe("invoice item details", () => {
  it("carry product_id and the plan's descriptions, localized; a prorate's first-period count; a signup fee none", async () => {
    clock.set(NOW)
    const limited = (await createPlanProduct(s.pool, s.business.id, { kind: "membership", name: "Eight a month", price_cents: 8000, count: 8, limit_period: "month", commitment_length: 6, commitment_unit: "month" })).id
    await s.pool.query("update plan_products set signup_fee_cents = 1000 where id = $1", [limited])
    const unlimited = (await createPlanProduct(s.pool, s.business.id, { kind: "membership", name: "Unlimited", price_cents: 12000, commitment_length: null, commitment_unit: null })).id
    const created = await desk("POST", "/invoices", { invoice: { payer_id: s.cleo.personId, plan_products: [{ id: pack }, { id: limited }, { id: unlimited }] } })
    expect(created.status, created.text).toBe(201)
    const invoice = created.json.invoices[0]
    const [packItem, limitedItem, feeItem, unlimitedItem] = invoice.invoice_items
    expect(packItem.detail).toEqual({
      id: packItem.id,
      type: "Pack",
      start_date: null,
      count_description: "Visits: 5",
      extended_description: ["Visits: 5", "Valid for (days): 30"],
      has_terms: false,
      plan_product_id: pack,
      product_id: pack
    })
    expect(limitedItem.detail).toMatchObject({
      type: "Membership",
      count_description: "Visits per month: 8",
      extended_description: ["Visits per month: 8", "Billed every (months): 1", "Commitment (months): 6"],
      product_id: limited
    })
    expect(limitedItem.detail.initial_punchcard_count_description).toBeUndefined()
    expect(feeItem.detail).toEqual({ id: feeItem.id, type: "SignupFee", start_date: null, has_terms: false, plan_product_id: limited, product_id: limited })
    expect(unlimitedItem.detail).toMatchObject({ count_description: "Unlimited visits", extended_description: ["Unlimited visits", "Billed every (months): 1"] })
    expect(unlimitedItem.detail.retail_product_id).toBeUndefined()

    const prorated = await desk("POST", `/invoices/${invoice.id}/invoice_items/${limitedItem.id}/prorates`, { prorate: { amount_cents: 3000, initial_punchcard_count: 4 } })
    expect(prorated.status, prorated.text).toBe(201)
    const line = prorated.json.invoices[0].invoice_items.find((item: { id: number }) => item.id === limitedItem.id)
    expect(line.detail.initial_punchcard_count_description).toBe("Visits in the first period: 4")
    const tooMany = await desk("POST", `/invoices/${invoice.id}/invoice_items/${limitedItem.id}/prorates`, { prorate: { initial_punchcard_count: 2147483648 } })
    expect(tooMany.status, tooMany.text).toBe(422)
    expect(tooMany.json.errors).toEqual(["initial_punchcard_count must be less than or equal to 2147483647"])

    // In the client's language, in client mode too.
    const french = await s.server.request("GET", `/api/v2/front/invoices/${invoice.id}`, { token: s.cleo.token, headers: { "x-fd-locale": "fr" } })
    expect(french.status, french.text).toBe(200)
    expect(french.json.invoices[0].invoice_items[0].detail).toMatchObject({ count_description: "Visites : 5", extended_description: ["Visites : 5", "Valable (jours) : 30"] })
  })
})

describe("new-client complimentary passes", () => {
  it("a new person gets the business's passes unless skip_complimentary_passes; a staff booking's new person with skip_new_client_passes, as the spec words it", async () => {
    clock.set(NOW)
    const pass = (await createPlanProduct(s.pool, s.business.id, { kind: "single_visit_pass", name: "First class free", price_cents: 2000, commitment_length: 30, commitment_unit: "day" })).id
    await s.pool.query("update plan_products set new_client_pass = true where id = $1", [pass])
    const passesOf = async (personId: number) =>
      (await s.pool.query(
        `select p.plan_product_id::int as product, p.price_cents, p.is_complimentary, p.start_date::text as start, p.end_date::text as end, p.count
           from plans p join plan_people pp on pp.business_id = p.business_id and pp.plan_id = p.id
          where pp.person_id = $1 order by p.id`,
        [personId]
      )).rows

    const given = await desk("POST", "/people", { person: { first_name: "Nina", last_name: "New", dependents: [{ first_name: "Tiny", last_name: "New" }] } })
    expect(given.status, given.text).toBe(201)
    const nina = given.json.people[0].id
    const expected = [{ product: pass, price_cents: 0, is_complimentary: true, start: "2026-11-02", end: "2026-12-02", count: 1 }]
    expect(await passesOf(nina)).toEqual(expected)
    const tiny = (await s.pool.query("select dependent_id::int as id from person_relationships where provider_id = $1", [nina])).rows[0].id
    expect(await passesOf(tiny)).toEqual(expected)
    // Shown as any plan: a pack of one visit, free.
    const plans = await desk("GET", `/people/${nina}/plans`)
    expect(plans.json.plans).toEqual([expect.objectContaining({ plan_product_id: pass, price_cents: 0, count: 1 })])

    const skipped = await s.server.request("POST", "/api/v2/desk/people", {
      token: s.owner.token,
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "person[first_name]=Sam&person[last_name]=Skip&person[skip_complimentary_passes]=true"
    })
    expect(skipped.status, skipped.text).toBe(201)
    expect(await passesOf(skipped.json.people[0].id)).toEqual([])

    const lease = (email: string, extra: Record<string, unknown>) =>
      desk("POST", "/bookings", { booking: { leases: [{ event_occurrence_id: s.yoga("2026-11-25").id, person: { email, first_name: "Walk", last_name: "In", ...extra } }] } })
    const withPass = await lease("walkin-pass@example.test", { skip_new_client_passes: true })
    expect(withPass.status, withPass.text).toBe(201)
    const withPassId = Number((await s.pool.query("select id from people where email = 'walkin-pass@example.test'")).rows[0].id)
    expect(await passesOf(withPassId)).toEqual(expected)
    const without = await lease("walkin-none@example.test", {})
    expect(without.status, without.text).toBe(201)
    const withoutId = Number((await s.pool.query("select id from people where email = 'walkin-none@example.test'")).rows[0].id)
    expect(await passesOf(withoutId)).toEqual([])
  })
})

describe("people search by barcode", () => {
  it("finds a person by a whole barcode, case-insensitively, set on create and replaced on update", async () => {
    const created = await desk("POST", "/people", { person: { first_name: "Bart", last_name: "Code", barcodes: ["CARD-0042", " tag-7 "], skip_complimentary_passes: true } })
    expect(created.status, created.text).toBe(201)
    const id = created.json.people[0].id
    const search = async (q: string, fields?: string) =>
      (await desk("GET", `/people/search?q=${encodeURIComponent(q)}${fields ? `&fields=${fields}` : ""}`)).json as { results: Array<{ score: number; person: { id: number } }>; total_count: number }
    const found = await search("card-0042", "barcodes")
    expect(found.total_count).toBe(1)
    expect(found.results[0]).toMatchObject({ score: 2, person: { id } })
    expect((await search("TAG-7")).results.map((r) => r.person.id)).toContain(id)
    expect((await search("card-00", "barcodes")).total_count).toBe(0)
    expect((await desk("PUT", `/people/${id}`, { person: { barcodes: ["NEW-1"] } })).status).toBe(200)
    expect((await search("card-0042", "barcodes")).total_count).toBe(0)
    expect((await search("new-1", "barcodes")).results[0]?.person.id).toBe(id)
    const tooLong = await desk("POST", "/people", { person: { first_name: "Long", last_name: "Code", barcodes: ["x".repeat(101)] } })
    expect(tooLong.status).toBe(422)
    expect(tooLong.json.errors).toEqual(["barcodes is too long (maximum is 100 characters)"])
  })
})
