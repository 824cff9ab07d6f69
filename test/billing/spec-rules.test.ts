import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createPlanProduct } from "../support/billing-factories.ts"
import { makeSettableClock } from "../support/clock.ts"
import { createPerson, createToken } from "../support/factories.ts"
import { NOW, type Studio, setUpStudio } from "../enrollment/bookings-fixtures.ts"

/**
 * Issue 30 §4, the spec's billing rules over HTTP: deleting a person with open invoices,
 * deleting an uncompleted booking with what it created, client-mode on_hold, invoice item
 * details, is_voidable / can_adjust_tip and refund voids.
 */
const clock = makeSettableClock(NOW)
let s: Studio
let pack: number
let managerToken: string

const desk = (method: string, path: string, body?: unknown, token = s.owner.token) =>
  s.server.request(method, `/api/v2/desk${path}`, { token, ...(body === undefined ? {} : { body }) })
const front = (method: string, path: string, body?: unknown, token = s.cleo.token) =>
  s.server.request(method, `/api/v2/front${path}`, { token, ...(body === undefined ? {} : { body }) })

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
