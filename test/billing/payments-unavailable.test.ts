import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type UnreachableGatewayServer, startUnreachableGateway } from "./unreachable-gateway.ts"
import { createPlanProduct } from "../support/billing-factories.ts"
import { createBusiness, createPerson, createToken } from "../support/factories.ts"
import { type TestServer, startTestServer } from "../support/server.ts"

/**
 * Paying, refunding and voiding by card while the gateway cannot be reached: 422 asking to try
 * later, never a 500, and nothing written (no payment, no refund, no void, the invoice unpaid).
 */

let server: TestServer
let down: UnreachableGatewayServer
let businessId: number
let personId: number
let staffToken: string
let product: number

beforeAll(async () => {
  server = await startTestServer()
  down = await startUnreachableGateway(server)
  businessId = (await createBusiness(server.pool, { subdomain: "demo" })).id
  personId = (await createPerson(server.pool, businessId)).personId
  const staff = await createPerson(server.pool, businessId, { role: "owner" })
  staffToken = await createToken(server.pool, staff.accountId, businessId)
  product = (await createPlanProduct(server.pool, businessId, { kind: "pack", name: "Five", count: 5, price_cents: 5000 })).id
  // A card vaulted earlier (only its token: the gateway holds the card).
  await server.pool.query(
    `insert into forms_of_payment (business_id, person_id, type, autobill, gateway_token, card_type, last_four, expire_month, expire_year)
     values ($1, $2, 'creditcard', true, 'tok_earlier', 'visa', '4242', 12, 2030)`,
    [businessId, personId]
  )
}, 120_000)

afterAll(async () => {
  await down?.runtime.dispose()
  await server?.close()
})

describe("an unreachable gateway", () => {
  it("answers 422 asking to try later for card payments, refunds and voids, and writes nothing", async () => {
    const expected = { errors: ["The payment gateway is unavailable right now; please try again later"] }
    const created = await down.request("POST", "/api/v2/desk/invoices", { token: staffToken, body: { invoice: { payer_id: personId, plan_products: [{ id: product }] } } })
    expect(created.status, created.text).toBe(201)
    const invoiceId = created.json.invoices[0].id
    const paid = await down.request("POST", `/api/v2/desk/invoices/${invoiceId}/payments`, {
      token: staffToken,
      headers: { "idempotency-key": "try-1" },
      body: { payment: { payment_method: "creditcard", amount_cents: 5000 } }
    })
    expect(paid.status, paid.text).toBe(422)
    expect(paid.json).toEqual(expected)
    const n = async (table: string) => (await server.pool.query(`select count(*)::int as n from ${table} where business_id = $1`, [businessId])).rows[0].n
    expect(await n("payments")).toBe(0)
    expect(await n("idempotency_keys")).toBe(0)

    // A card payment taken before the outage (recorded as the gateway answered it then).
    const payment = await server.pool.query(
      `insert into payments (business_id, invoice_id, person_id, payment_method, payment_type_id, state, amount_cents, description, gateway_transaction_id, created_at, updated_at)
       values ($1, $2, $3, 'creditcard', 1, 'settled', 1000, 'visa ending in 4242', 'ch_earlier', now(), now()) returning id`,
      [businessId, invoiceId, personId]
    )
    const paymentId = payment.rows[0].id
    const refund = await down.request("POST", `/api/v2/desk/invoices/${invoiceId}/payments/${paymentId}/refunds`, { token: staffToken, body: { refund: { amount_cents: 500 } } })
    expect(refund.status, refund.text).toBe(422)
    expect(refund.json).toEqual(expected)
    const voided = await down.request("POST", `/api/v2/desk/payments/${paymentId}/voids`, { token: staffToken, body: { void: {} } })
    expect(voided.status, voided.text).toBe(422)
    expect(await n("refunds")).toBe(0)
    expect((await server.pool.query(`select state from payments where id = $1`, [paymentId])).rows[0].state).toBe("settled")
  })
})
