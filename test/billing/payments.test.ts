import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createPlanProduct } from "../support/billing-factories.ts"
import { makeSettableClock } from "../support/clock.ts"
import { apiCaller } from "../support/http.ts"
import { TEST_BASE_DOMAIN } from "../support/server.ts"
import { pendingJobs } from "../people/fixtures.ts"
import { NOW, type Studio, setUpStudio, studioCallers } from "../support/studio.ts"
import { vaultCard } from "../support/vaulting.ts"

/**
 * Payments, refunds, voids and account credit over HTTP (spec: the invoice payments endpoints,
 * Payment method entry): partial payments closing the invoice, cards through the sandbox gateway
 * (declines kept as failed payments), account credit, deletion only in checkout, refunds (card,
 * cash, credit, cancelling items), voids, Idempotency-Key under concurrency, 20 concurrent
 * refunds never exceeding the payment, bad input, wrong mode and another business.
 */
const clock = makeSettableClock(NOW)
let s: Studio
let pack: number
let membership: number

const { desk, front } = studioCallers(() => s)
/** Staff of another business, on its own host, naming this business's ids. */
const foreign = apiCaller("/api/v2/desk", () => ({ request: s.server.request, token: s.foreignToken, host: `elsewhere.${TEST_BASE_DOMAIN}` }))
const count = async (table: string) => Number((await s.pool.query(`select count(*) from ${table} where business_id = $1`, [s.business.id])).rows[0].count)
const counts = async () => ({ payments: await count("payments"), refunds: await count("refunds"), credit: await count("account_credit_entries") })
const charges = async () =>
  Number((await s.pool.query(`select count(*) from sandbox_gateway_transactions where business_id = $1 and kind = 'charge'`, [s.business.id])).rows[0].count)

/** The three vaulting steps in staff mode for `personId`; answers the new form's id. */
const vault = (personId: number, number: string) => vaultCard(s, personId, number)

const newInvoice = async (payer = s.cleo.personId, product = pack) => {
  const created = await desk("POST", "/invoices", { invoice: { payer_id: payer, plan_products: [{ id: product }] } })
  expect(created.status, created.text).toBe(201)
  return created.json.invoices[0] as { id: number; total_cents: number }
}
const invoice = async (id: number) => (await desk("GET", `/invoices/${id}`)).json.invoices[0]

let goodCard: number
let decliningCard: number

beforeAll(async () => {
  s = await setUpStudio(clock)
  pack = (await createPlanProduct(s.pool, s.business.id, { kind: "pack", name: "Five classes", count: 5, price_cents: 10000 })).id
  membership = (await createPlanProduct(s.pool, s.business.id, { kind: "pack", name: "Ten classes", count: 10, price_cents: 18000 })).id
  goodCard = await vault(s.cleo.personId, "4242424242424242")
  decliningCard = await vault(s.cleo.personId, "4000000000000341")
}, 180_000)

afterAll(async () => s?.server.close())

describe("paying an invoice", () => {
  it("takes cash in part, then the card for the rest, and closes the invoice, creating its plan", async () => {
    const { id, total_cents } = await newInvoice()
    expect(total_cents).toBe(10000)
    const cash = await desk("POST", `/invoices/${id}/payments`, { payment: { payment_method: "cash", amount_cents: 4000 } })
    expect(cash.status, cash.text).toBe(201)
    expect(cash.json.payments[0]).toMatchObject({ state: "settled", amount_cents: 4000, amount: "$40.00", maximum_refund_cents: 4000, description: "Cash", refunds: [], payer: { id: s.cleo.personId } })
    expect(await invoice(id)).toMatchObject({ state: "cart", outstanding_amount_cents: 6000, outstanding_amount: "$60.00" })

    // The spec's unwrapped fields, with the card defaulting to the autobill form (the first vaulted).
    const card = await desk("POST", `/invoices/${id}/payments`, { payment_method: "creditcard", amount_cents: 6000 })
    expect(card.status, card.text).toBe(201)
    expect(card.json.payments[0]).toMatchObject({ state: "settled", amount_cents: 6000, description: "visa ending in 4242" })
    const closed = await invoice(id)
    expect(closed).toMatchObject({ state: "closed", outstanding_amount_cents: 0 })
    expect(closed.payments.map((p: { amount_cents: number }) => p.amount_cents)).toEqual([4000, 6000])
    const plans = await s.pool.query(`select p.id from plans p join plan_people pp on pp.plan_id = p.id where p.business_id = $1 and p.plan_product_id = $2 and pp.person_id = $3`, [s.business.id, pack, s.cleo.personId])
    expect(plans.rowCount).toBeGreaterThan(0)
  })

  it("records a declined card as a failed payment and answers 422 naming it; the invoice stays unpaid", async () => {
    const { id } = await newInvoice()
    const before = await charges()
    const declined = await front("POST", `/invoices/${id}/payments`, { payment: { payment_method: "creditcard", amount_cents: 10000, form_of_payment_id: decliningCard } })
    expect(declined.status, declined.text).toBe(422)
    expect(declined.json.errors[0]).toMatch(/declined/)
    const after = await invoice(id)
    expect(after).toMatchObject({ state: "cart", outstanding_amount_cents: 10000 })
    expect(after.payments).toEqual([expect.objectContaining({ state: "failed", error_message: expect.any(String), maximum_refund_cents: 0 })])
    expect(await charges()).toBe(before)
  })

  it("lists the payer's payment methods with account credit and its balance; client mode only the owner", async () => {
    const { id } = await newInvoice()
    const methods = await front("GET", `/invoices/${id}/payment_methods`)
    expect(methods.status, methods.text).toBe(200)
    const keys = methods.json.payment_methods.map((m: { key: string }) => m.key)
    expect(keys).toEqual(["creditcard", "creditcard", "credit"])
    expect(methods.json.payment_methods[0]).toMatchObject({ payment_type_id: 1, form_of_payment_id: goodCard, autobill: true, payer: { id: s.cleo.personId }, details: { last_four: "4242" } })
    expect(methods.json.payment_methods[2]).toMatchObject({ payment_type_id: 5, details: { balance_cents: expect.any(Number) } })
    const staff = await desk("GET", `/invoices/${id}/payment_methods`)
    expect(staff.json.payment_methods.map((m: { key: string }) => m.key)).toEqual(expect.arrayContaining(["cash", "check"]))
    expect((await front("GET", `/invoices/${id}/payment_methods`, undefined, s.otto.token)).status).toBe(404)
    expect((await foreign("GET", `/invoices/${id}/payment_methods`)).status).toBe(404)
  })

  it("refuses bad input with 4xx naming the field and writes nothing", async () => {
    const { id } = await newInvoice()
    const before = await counts()
    const cases: Array<[unknown, RegExp]> = [
      [{ payment: { amount_cents: 100 } }, /payment_method can't be blank/],
      [{ payment: { payment_method: "bitcoin", amount_cents: 100 } }, /payment_method must be one of/],
      [{ payment: { payment_method: "cash" } }, /amount_cents can't be blank/],
      [{ payment: { payment_method: "cash", amount_cents: -5 } }, /amount_cents/],
      [{ payment: { payment_method: "cash", amount_cents: 0 } }, /amount_cents/],
      [{ payment: { payment_method: "cash", amount_cents: 10001 } }, /outstanding/i],
      [{ payment: { payment_method: "cash", amount_cents: 999999999999 } }, /outstanding/i],
      [{ payment: { payment_method: "creditcard", amount_cents: 100, form_of_payment_id: 999999 } }, /form_of_payment_id 999999/],
      [{ payment: { payment_method: "credit", amount_cents: 100 } }, /credit/i]
    ]
    for (const [body, message] of cases) {
      const response = await desk("POST", `/invoices/${id}/payments`, body)
      expect(response.status, `${JSON.stringify(body)} ${response.text}`).toBe(422)
      expect(response.json.errors.join(" "), JSON.stringify(body)).toMatch(message)
    }
    const wrongType = await desk("POST", `/invoices/${id}/payments`, { payment: { payment_method: "cash", amount_cents: "lots" } })
    expect(wrongType.status).toBeGreaterThanOrEqual(400)
    expect(wrongType.status).toBeLessThan(500)
    // A client pays only by card or credit, only their own invoice; another business sees nothing.
    expect((await front("POST", `/invoices/${id}/payments`, { payment: { payment_method: "cash", amount_cents: 100 } })).status).toBe(422)
    expect((await front("POST", `/invoices/${id}/payments`, { payment: { payment_method: "creditcard", amount_cents: 100 } }, s.otto.token)).status).toBe(404)
    expect((await foreign("POST", `/invoices/${id}/payments`, { payment: { payment_method: "cash", amount_cents: 100 } })).status).toBe(404)
    expect((await desk("POST", `/invoices/999999/payments`, { payment: { payment_method: "cash", amount_cents: 100 } })).status).toBe(404)
    // Localized.
    const german = await desk("POST", `/invoices/${id}/payments`, { payment: { payment_method: "cash", amount_cents: 10001 } }, { headers: { "x-fd-locale": "de" } })
    expect(german.json.errors[0]).toMatch(/offene Betrag/)
    expect(await counts()).toEqual(before)
    expect((await invoice(id)).payments).toEqual([])
  })

  it("accepts form bodies", async () => {
    const { id } = await newInvoice()
    const response = await s.server.request("POST", `/api/v2/desk/invoices/${id}/payments`, {
      token: s.owner.token,
      body: "payment[payment_method]=check&payment[amount_cents]=2500",
      headers: { "content-type": "application/x-www-form-urlencoded" }
    })
    expect(response.status, response.text).toBe(201)
    expect(response.json.payments[0]).toMatchObject({ amount_cents: 2500, description: "Check" })
  })

  it("deletes a payment only while the invoice is in checkout", async () => {
    const { id } = await newInvoice()
    const paid = await front("POST", `/invoices/${id}/payments`, { payment: { payment_method: "creditcard", amount_cents: 3000 } })
    expect(paid.status, paid.text).toBe(201)
    const paymentId = paid.json.payments[0].id
    const deleted = await front("DELETE", `/invoices/${id}/payments/${paymentId}`)
    expect(deleted.status, deleted.text).toBe(200)
    expect(deleted.json.payments[0]).toMatchObject({ state: "voided", voided_at: expect.any(String) })
    expect(await invoice(id)).toMatchObject({ outstanding_amount_cents: 10000 })
    expect((await front("DELETE", `/invoices/${id}/payments/${paymentId}`)).status).toBe(422)

    const again = await desk("POST", `/invoices/${id}/payments`, { payment: { payment_method: "cash", amount_cents: 1000 } })
    expect((await desk("PUT", `/invoices/${id}`, { invoice: { state_event: "open" } })).status).toBe(200)
    const refused = await desk("DELETE", `/invoices/${id}/payments/${again.json.payments[0].id}`)
    expect(refused.status, refused.text).toBe(422)
    expect(refused.json.errors[0]).toMatch(/checkout/)
    expect((await desk("DELETE", `/invoices/${id}/payments/999999`)).status).toBe(404)
  })
})

describe("Idempotency-Key on payments", () => {
  it("20 concurrent requests with the same key charge once and make one payment", async () => {
    const { id } = await newInvoice()
    const before = await charges()
    const body = { payment: { payment_method: "creditcard", amount_cents: 10000, form_of_payment_id: goodCard } }
    const responses = await Promise.all(Array.from({ length: 20 }, () => desk("POST", `/invoices/${id}/payments`, body, { headers: { "idempotency-key": `pay-${id}` } })))
    for (const response of responses) expect(response.status, response.text).toBe(201)
    expect(new Set(responses.map((r) => r.json.payments[0].id)).size).toBe(1)
    expect(await charges()).toBe(before + 1)
    const after = await invoice(id)
    expect(after.payments).toHaveLength(1)
    expect(after.state).toBe("closed")
    // The same key with another body is refused.
    const other = await desk("POST", `/invoices/${id}/payments`, { payment: { ...body.payment, amount_cents: 5 } }, { headers: { "idempotency-key": `pay-${id}` } })
    expect(other.status).toBe(422)
  })

  it("without a key, payments at once never take more than is outstanding, a card's included", async () => {
    const { id } = await newInvoice()
    const cash = await Promise.all(
      Array.from({ length: 10 }, () => desk("POST", `/invoices/${id}/payments`, { payment: { payment_method: "cash", amount_cents: 4000 } }))
    )
    for (const response of cash) expect([201, 422], response.text).toContain(response.status)
    expect(cash.filter((response) => response.status === 201)).toHaveLength(2)
    expect(await invoice(id)).toMatchObject({ state: "cart", outstanding_amount_cents: 2000 })

    // 60.00 on a card, ten times at once, on 100.00: one fits, one charge.
    const second = await newInvoice()
    const before = await charges()
    const body = { payment: { payment_method: "creditcard", amount_cents: 6000, form_of_payment_id: goodCard } }
    const cards = await Promise.all(Array.from({ length: 10 }, () => desk("POST", `/invoices/${second.id}/payments`, body)))
    for (const response of cards) expect([201, 422], response.text).toContain(response.status)
    expect(cards.filter((response) => response.status === 201)).toHaveLength(1)
    expect(await charges()).toBe(before + 1)
    expect(await invoice(second.id)).toMatchObject({ state: "cart", outstanding_amount_cents: 4000 })
  })
})

describe("refunds and voids", () => {
  const paidInvoice = async (method = "creditcard", amount = 10000) => {
    const { id } = await newInvoice()
    const paid = await desk("POST", `/invoices/${id}/payments`, { payment: { payment_method: method, amount_cents: amount } })
    expect(paid.status, paid.text).toBe(201)
    return { id, paymentId: paid.json.payments[0].id as number }
  }

  it("sends a receipt in the request's locale when asked, and none for a refused refund", async () => {
    const { id, paymentId } = await paidInvoice("cash", 3000)
    const mails = async () =>
      ((await pendingJobs(s.pool, "send_mail")) as Array<{ to: string; template: string; subject: string; text: string }>).filter((m) => m.template === "refund_receipt")
    const refused = await desk("POST", `/invoices/${id}/payments/${paymentId}/refunds`, { refund: { amount_cents: 3001, send_receipt: true, receipt_email: "cleo@example.com" } })
    expect(refused.status).toBe(422)
    expect(await mails()).toEqual([])
    const sent = await desk("POST", `/invoices/${id}/payments/${paymentId}/refunds`, { refund: { amount_cents: 1250, send_receipt: "true", receipt_email: "cleo@example.com" } }, { headers: { "x-fd-locale": "de" } })
    expect(sent.status, sent.text).toBe(201)
    const [mail] = await mails()
    expect(mail).toMatchObject({ to: "cleo@example.com", subject: expect.stringContaining("Rückerstattung") })
    expect(mail!.text).toContain("12,50")
  })

  it("refunds a card payment to the card, then to account credit which pays another invoice; ledger never negative", async () => {
    const { id, paymentId } = await paidInvoice()
    const card = await desk("POST", `/invoices/${id}/payments/${paymentId}/refunds`, { refund: { amount_cents: 2500 } })
    expect(card.status, card.text).toBe(201)
    expect(card.json.refunds[0]).toMatchObject({ amount_cents: 2500, state: "settled", payment_id: paymentId, payment_type_id: 1 })
    const refunds = await s.pool.query(`select count(*)::int as n from sandbox_gateway_transactions where business_id = $1 and kind = 'refund'`, [s.business.id])
    expect(refunds.rows[0].n).toBeGreaterThan(0)

    const balanceBefore = (await front("GET", `/invoices/${id}/payment_methods`)).json.payment_methods.find((m: { key: string }) => m.key === "credit").details.balance_cents
    const credit = await desk("POST", `/invoices/${id}/payments/${paymentId}/refunds`, { refund: { amount_cents: 3000, payment_type_id: 5 } })
    expect(credit.status, credit.text).toBe(201)
    const paid = (await invoice(id)).payments[0]
    expect(paid).toMatchObject({ maximum_refund_cents: 4500, maximum_refund: "$45.00" })
    expect(paid.refunds).toHaveLength(2)
    // The closed invoice does not reopen.
    expect(await invoice(id)).toMatchObject({ state: "closed", outstanding_amount_cents: 0 })

    // The staff people list shows the ledger's balance on request, and nothing without it.
    const people = await desk("GET", "/people?include_balances=true&per_page=100")
    expect(people.status, people.text).toBe(200)
    const cleo = people.json.people.find((p: { id: number }) => p.id === s.cleo.personId)
    expect(cleo).toMatchObject({ account_balance_cents: balanceBefore + 3000, account_balance: expect.stringMatching(/^\$/) })
    expect(people.json.people.find((p: { id: number }) => p.id === s.otto.personId)).toMatchObject({ account_balance_cents: 0, account_balance: "$0.00" })
    expect((await desk("GET", "/people?per_page=100")).json.people[0]).not.toHaveProperty("account_balance_cents")

    const next = await newInvoice()
    const methods = await front("GET", `/invoices/${next.id}/payment_methods`)
    expect(methods.json.payment_methods.find((m: { key: string }) => m.key === "credit").details.balance_cents).toBe(balanceBefore + 3000)
    const spent = await front("POST", `/invoices/${next.id}/payments`, { payment: { payment_method: "credit", amount_cents: balanceBefore + 3000 } })
    expect(spent.status, spent.text).toBe(201)
    const overspent = await front("POST", `/invoices/${next.id}/payments`, { payment: { payment_method: "credit", amount_cents: 1 } })
    expect(overspent.status).toBe(422)
    const balance = await s.pool.query(`select coalesce(sum(amount_cents), 0)::int as b from account_credit_entries where business_id = $1 and person_id = $2`, [s.business.id, s.cleo.personId])
    expect(balance.rows[0].b).toBe(0)
  })

  it("20 concurrent refunds of one payment never exceed what was paid", async () => {
    const { id, paymentId } = await paidInvoice("cash")
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => desk("POST", `/invoices/${id}/payments/${paymentId}/refunds`, { refund: { amount_cents: 700, payment_type_id: 2 } }))
    )
    const ok = responses.filter((r) => r.status === 201).length
    for (const r of responses) expect([201, 422], r.text).toContain(r.status)
    expect(ok).toBe(14)
    const sum = await s.pool.query(`select sum(amount_cents)::int as s from refunds where business_id = $1 and payment_id = $2 and state = 'settled'`, [s.business.id, paymentId])
    expect(sum.rows[0].s).toBe(9800)
    expect((await invoice(id)).payments[0].maximum_refund_cents).toBe(200)
  })

  it("refuses bad refunds and writes nothing", async () => {
    const { id, paymentId } = await paidInvoice("cash", 5000)
    const before = await counts()
    const cases: Array<[unknown, RegExp]> = [
      [{ refund: {} }, /amount_cents can't be blank/],
      [{ refund: { amount_cents: 0 } }, /amount_cents/],
      [{ refund: { amount_cents: -1 } }, /amount_cents/],
      [{ refund: { amount_cents: 5001 } }, /maximum refund/i],
      [{ refund: { amount_cents: 100, payment_type_id: 1 } }, /payment_type_id/],
      [{ refund: { amount_cents: 100, send_receipt: true } }, /receipt_email/],
      [{ refund: { amount_cents: 100, invoice_item_ids_to_cancel: [999999] } }, /999999/]
    ]
    for (const [body, message] of cases) {
      const response = await desk("POST", `/invoices/${id}/payments/${paymentId}/refunds`, body)
      expect(response.status, `${JSON.stringify(body)} ${response.text}`).toBe(422)
      expect(response.json.errors.join(" ")).toMatch(message)
    }
    expect((await desk("POST", `/invoices/${id}/payments/999999/refunds`, { refund: { amount_cents: 1 } })).status).toBe(404)
    expect((await foreign("POST", `/invoices/${id}/payments/${paymentId}/refunds`, { refund: { amount_cents: 1 } })).status).toBe(404)
    expect((await front("POST", `/invoices/${id}/payments/${paymentId}/refunds`, { refund: { amount_cents: 1 } })).status).toBe(404)
    expect(await counts()).toEqual(before)
  })

  it("a refund cancelling items ends the plans they created", async () => {
    const { id, paymentId } = await paidInvoice("cash")
    const item = (await invoice(id)).invoice_items[0].id
    const refund = await desk("POST", `/invoices/${id}/payments/${paymentId}/refunds`, { refund: { amount_cents: 10000, payment_type_id: 2, invoice_item_ids_to_cancel: [item] } })
    expect(refund.status, refund.text).toBe(201)
    const plans = await s.pool.query(`select p.canceled_at from plans p join invoice_item_recipients r on r.plan_id = p.id and r.business_id = p.business_id where r.invoice_item_id = $1`, [item])
    expect(plans.rows.length).toBe(1)
    expect(plans.rows[0].canceled_at).not.toBeNull()
  })

  it("voids a card payment at the gateway and a cash refund; a refunded payment cannot be voided", async () => {
    const { id } = await newInvoice()
    const paid = await desk("POST", `/invoices/${id}/payments`, { payment: { payment_method: "creditcard", amount_cents: 1000 } })
    const voided = await desk("POST", `/payments/${paid.json.payments[0].id}/voids`, { void: {} })
    expect(voided.status, voided.text).toBe(201)
    expect(voided.json.payments[0]).toMatchObject({ state: "voided", maximum_refund_cents: 0 })
    const status = await s.pool.query(
      `select t.status from sandbox_gateway_transactions t join payments p on p.gateway_transaction_id = t.id where p.business_id = $1 and p.id = $2`,
      [s.business.id, paid.json.payments[0].id]
    )
    expect(status.rows[0].status).toBe("voided")
    expect((await desk("POST", `/payments/${paid.json.payments[0].id}/voids`, { void: {} })).status).toBe(422)
    expect((await desk("POST", `/payments/999999/voids`, { void: {} })).status).toBe(404)
    expect((await foreign("POST", `/payments/${paid.json.payments[0].id}/voids`, { void: {} })).status).toBe(404)

    const cash = await desk("POST", `/invoices/${id}/payments`, { payment: { payment_method: "cash", amount_cents: 2000 } })
    const refund = await desk("POST", `/invoices/${id}/payments/${cash.json.payments[0].id}/refunds`, { refund: { amount_cents: 500 } })
    expect((await desk("POST", `/payments/${cash.json.payments[0].id}/voids`, { void: {} })).status).toBe(422)
    const refundVoid = await desk("POST", `/refunds/${refund.json.refunds[0].id}/voids`)
    expect(refundVoid.status, refundVoid.text).toBe(201)
    expect(refundVoid.json.refunds[0]).toMatchObject({ state: "voided" })
    expect((await invoice(id)).payments.find((p: { id: number }) => p.id === cash.json.payments[0].id).maximum_refund_cents).toBe(2000)
    expect((await desk("POST", `/refunds/999999/voids`)).status).toBe(404)
  })
})

describe("voidable invoices and card refund voids", () => {
  it("is_voidable follows the payments, can_adjust_tip the state; a card refund is voided at the gateway", async () => {
    const { id } = await newInvoice()
    const fresh = await invoice(id)
    expect(fresh).toMatchObject({ state: "cart", is_voidable: false, can_adjust_tip: true })
    const paid = await desk("POST", `/invoices/${id}/payments`, { payment: { payment_method: "creditcard", amount_cents: 3000, form_of_payment_id: goodCard } })
    expect(paid.status, paid.text).toBe(201)
    const paymentId = paid.json.payments[0].id
    expect(await invoice(id)).toMatchObject({ is_voidable: true, can_adjust_tip: true })

    // A card refund: the payment is no longer voidable while it stands.
    const refund = await desk("POST", `/invoices/${id}/payments/${paymentId}/refunds`, { refund: { amount_cents: 1200 } })
    expect(refund.status, refund.text).toBe(201)
    const refundId = refund.json.refunds[0].id
    expect((await invoice(id)).is_voidable).toBe(false)
    const gatewayStatus = async () =>
      (await s.pool.query(`select t.status from sandbox_gateway_transactions t join refunds r on r.gateway_transaction_id = t.id where r.business_id = $1 and r.id = $2`, [
        s.business.id,
        refundId
      ])).rows[0].status
    expect(await gatewayStatus()).toBe("succeeded")

    const voided = await desk("POST", `/refunds/${refundId}/voids`)
    expect(voided.status, voided.text).toBe(201)
    expect(voided.json.refunds[0]).toMatchObject({ id: refundId, state: "voided" })
    expect(await gatewayStatus()).toBe("voided")
    const after = await invoice(id)
    expect(after.payments.find((p: { id: number }) => p.id === paymentId).maximum_refund_cents).toBe(3000)
    expect(after.is_voidable).toBe(true)
    const again = await desk("POST", `/refunds/${refundId}/voids`)
    expect(again.status).toBe(422)
    expect(again.json).toEqual({ errors: [`Refund ${refundId} is voided and cannot be voided`] })

    // Voiding the payment leaves nothing voidable; a canceled invoice's tip cannot change.
    expect((await desk("POST", `/payments/${paymentId}/voids`, { void: {} })).status).toBe(201)
    expect((await invoice(id)).is_voidable).toBe(false)
    expect((await desk("PUT", `/invoices/${id}`, { invoice: { state_event: "canceled" } })).status).toBe(200)
    expect((await invoice(id)).can_adjust_tip).toBe(false)
  })
})

describe("account credit under concurrency, replays and wrong states", () => {
  it("10 concurrent credit payments of 30.00 from a 100.00 balance spend at most the balance", async () => {
    const payer = s.otto.personId
    const invoices = await Promise.all(Array.from({ length: 10 }, () => newInvoice(payer)))
    const source = await newInvoice(payer)
    const cash = await desk("POST", `/invoices/${source.id}/payments`, { payment: { payment_method: "cash", amount_cents: 10000 } })
    const refund = await desk("POST", `/invoices/${source.id}/payments/${cash.json.payments[0].id}/refunds`, { refund: { amount_cents: 10000, payment_type_id: 5 } })
    expect(refund.status, refund.text).toBe(201)
    const responses = await Promise.all(
      invoices.map((inv) => desk("POST", `/invoices/${inv.id}/payments`, { payment: { payment_method: "credit", amount_cents: 3000 } }))
    )
    for (const r of responses) expect([201, 422], r.text).toContain(r.status)
    expect(responses.filter((r) => r.status === 201)).toHaveLength(3)
    const balance = await s.pool.query(`select sum(amount_cents)::int as b from account_credit_entries where business_id = $1 and person_id = $2`, [s.business.id, payer])
    expect(balance.rows[0].b).toBe(1000)
  })

  it("replays a refund with the same Idempotency-Key and refuses the key with another body", async () => {
    const { id } = await newInvoice()
    const cash = await desk("POST", `/invoices/${id}/payments`, { payment: { payment_method: "cash", amount_cents: 5000 } })
    const url = `/invoices/${id}/payments/${cash.json.payments[0].id}/refunds`
    const first = await desk("POST", url, { refund: { amount_cents: 1000, payment_type_id: 2 } }, { headers: { "idempotency-key": `refund-${id}` } })
    const again = await desk("POST", url, { refund: { amount_cents: 1000, payment_type_id: 2 } }, { headers: { "idempotency-key": `refund-${id}` } })
    expect(first.status, first.text).toBe(201)
    expect(again.status).toBe(201)
    expect(again.json).toEqual(first.json)
    expect((await desk("POST", url, { refund: { amount_cents: 999, payment_type_id: 2 } }, { headers: { "idempotency-key": `refund-${id}` } })).status).toBe(422)
    expect((await invoice(id)).payments[0].refunds).toHaveLength(1)
  })

  it("refuses payments on a canceled or closed invoice", async () => {
    const { id } = await newInvoice()
    expect((await desk("PUT", `/invoices/${id}`, { invoice: { state_event: "canceled" } })).status).toBe(200)
    const refused = await desk("POST", `/invoices/${id}/payments`, { payment: { payment_method: "cash", amount_cents: 100 } })
    expect(refused.status).toBe(422)
    expect(refused.json.errors[0]).toMatch(/canceled/)
  })
})

describe("payment configuration and item cancellation on voids", () => {
  it("takes the business's external methods and refuses types it does not accept", async () => {
    await s.pool.query(
      `insert into payment_configurations (business_id, accepted_types, external_methods, accepted_card_types, cvv_required, address_required, postal_required)
       values ($1, '{creditcard,cash}', '{paypal}', '{visa}', true, false, true)`,
      [s.business.id]
    )
    try {
      const { id } = await newInvoice()
      const methods = await desk("GET", `/invoices/${id}/payment_methods`)
      expect(methods.json.payment_methods).toEqual(expect.arrayContaining([expect.objectContaining({ key: "paypal", payment_type_id: 100 })]))
      const check = await desk("POST", `/invoices/${id}/payments`, { payment: { payment_method: "check", amount_cents: 100 } })
      expect(check.status).toBe(422)
      const paypal = await desk("POST", `/invoices/${id}/payments`, { payment: { payment_method: "paypal", amount_cents: 100 } })
      expect(paypal.status, paypal.text).toBe(201)
      expect(paypal.json.payments[0]).toMatchObject({ payment_method: "paypal", payment_type_id: 100, state: "settled" })
    } finally {
      await s.pool.query(`delete from payment_configurations where business_id = $1`, [s.business.id])
    }
  })

  it("voiding a payment cancels the items asked for; failed and voided payments cannot be refunded", async () => {
    const { id } = await newInvoice()
    const paid = await desk("POST", `/invoices/${id}/payments`, { payment: { payment_method: "cash", amount_cents: 10000 } })
    const item = (await invoice(id)).invoice_items[0].id
    const bad = await desk("POST", `/payments/${paid.json.payments[0].id}/voids`, { void: { invoice_item_ids_to_cancel: [999999] } })
    expect(bad.status).toBe(422)
    expect((await invoice(id)).payments[0].state).toBe("settled")
    const voided = await desk("POST", `/payments/${paid.json.payments[0].id}/voids`, { void: { invoice_item_ids_to_cancel: [item] } })
    expect(voided.status, voided.text).toBe(201)
    const plans = await s.pool.query(`select p.canceled_at from plans p join invoice_item_recipients r on r.plan_id = p.id and r.business_id = p.business_id where r.invoice_item_id = $1`, [item])
    expect(plans.rows[0].canceled_at).not.toBeNull()
    const refund = await desk("POST", `/invoices/${id}/payments/${paid.json.payments[0].id}/refunds`, { refund: { amount_cents: 1 } })
    expect(refund.status).toBe(422)
    expect(refund.json.errors[0]).toMatch(/voided/)
  })
})
