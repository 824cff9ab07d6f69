import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeSettableClock } from "../support/clock.ts"
import { createBusiness, createPerson, createToken } from "../support/factories.ts"
import { TEST_BASE_DOMAIN, type TestServer, startTestServer } from "../support/server.ts"

/**
 * processor_connect with the sandbox processor: a setup intent's client secret (new), the
 * sandbox's page confirming it with a test card (the processor's library's part), the
 * processor's data (GET) and saving it as a form of payment (POST).
 */
const clock = makeSettableClock("2026-11-02T10:00:00Z")
let server: TestServer
let client: { personId: number; token: string }
let other: { personId: number; token: string }
let staffToken: string
let foreignStaffToken: string

const follow = (url: string, method = "GET", body?: string) => {
  const parsed = new URL(url)
  return server.request(method, parsed.pathname + parsed.search, {
    host: parsed.host,
    ...(body === undefined ? {} : { body, headers: { "content-type": "application/x-www-form-urlencoded" } })
  })
}

const CARD = {
  "billing-cc-number": "5555555555554444",
  "billing-cc-exp": "0328",
  "billing-cvv": "321",
  "billing-first-name": "Connie",
  "billing-last-name": "Nect"
}

/** new, then the sandbox's confirmation page: answers the payment method id. */
const confirmed = async (mode: "front" | "desk", token: string, card: Record<string, string> = CARD) => {
  const created = await server.request("GET", `/api/v2/${mode}/processor_connect/payment_methods/new`, { token })
  expect(created.status, created.text).toBe(200)
  const intent = created.json.setup_intents[0]
  expect(intent.client_secret).toMatch(new RegExp(`^${intent.id}_secret_`))
  const confirmUrl = `${intent.confirm_url}?client_secret=${encodeURIComponent(intent.client_secret)}`
  expect((await follow(confirmUrl)).status).toBe(200)
  const done = await follow(confirmUrl, "POST", new URLSearchParams(card).toString())
  return { id: intent.id as string, done, confirmUrl }
}

beforeAll(async () => {
  server = await startTestServer({ clock: clock.clock })
  const businessId = (await createBusiness(server.pool, { subdomain: "demo" })).id
  const person = await createPerson(server.pool, businessId)
  client = { personId: person.personId, token: await createToken(server.pool, person.accountId, businessId) }
  const someone = await createPerson(server.pool, businessId)
  other = { personId: someone.personId, token: await createToken(server.pool, someone.accountId, businessId) }
  const staff = await createPerson(server.pool, businessId, { role: "owner" })
  staffToken = await createToken(server.pool, staff.accountId, businessId)
  const elsewhere = (await createBusiness(server.pool, { subdomain: "elsewhere" })).id
  const foreignStaff = await createPerson(server.pool, elsewhere, { role: "owner" })
  foreignStaffToken = await createToken(server.pool, foreignStaff.accountId, elsewhere)
}, 120_000)

afterAll(async () => {
  await server?.close()
})

describe("processor_connect", () => {
  it("a client: new, confirm, the processor's data, save; saving again answers the same form", async () => {
    const { id, done } = await confirmed("front", client.token)
    expect(done.status, done.text).toBe(200)
    const data = await server.request("GET", `/api/v2/front/processor_connect/payment_methods?payment_method_id=${id}`, { token: client.token })
    expect(data.status, data.text).toBe(200)
    const method = { id, type: "card", card: { brand: "master_card", last4: "4444", exp_month: 3, exp_year: 2028 }, billing_details: { name: "Connie Nect" } }
    expect(data.json).toEqual({ payment_methods: [method] })

    const saved = await server.request("POST", "/api/v2/front/processor_connect/payment_methods", {
      token: client.token,
      body: { payment_method: { payment_method_id: id } }
    })
    expect(saved.status, saved.text).toBe(201)
    expect(saved.json).toEqual({ payment_methods: [{ ...method, form_of_payment_id: expect.any(Number) }] })
    const formId = saved.json.payment_methods[0].form_of_payment_id
    const again = await server.request("POST", "/api/v2/front/processor_connect/payment_methods", {
      token: client.token,
      body: { payment_method: { payment_method_id: id } }
    })
    expect(again.json.payment_methods[0].form_of_payment_id).toBe(formId)
    const forms = await server.request("GET", `/api/v2/front/people/${client.personId}/form_of_payments`, { token: client.token })
    expect(forms.json.form_of_payments).toEqual([
      expect.objectContaining({ id: formId, type: "creditcard", card_type: "master_card", last_four: "4444", autobill: true })
    ])
  })

  it("staff save for anyone (person_id required); another client's intent, another business, unconfirmed intents are refused", async () => {
    const { id } = await confirmed("desk", staffToken)
    const missing = await server.request("POST", "/api/v2/desk/processor_connect/payment_methods", {
      token: staffToken,
      body: { payment_method: { payment_method_id: id } }
    })
    expect(missing.status).toBe(422)
    expect(missing.json).toEqual({ errors: ["Person id can't be blank"] })
    const saved = await server.request("POST", "/api/v2/desk/processor_connect/payment_methods", {
      token: staffToken,
      body: "payment_method[payment_method_id]=" + id + "&payment_method[person_id]=" + other.personId,
      headers: { "content-type": "application/x-www-form-urlencoded" }
    })
    expect(saved.status, saved.text).toBe(201)

    // A client cannot read or save a staff member's or another client's intent.
    const mine = await confirmed("front", client.token)
    for (const [token, pmId] of [
      [other.token, mine.id],
      [client.token, id]
    ] as const) {
      const read = await server.request("GET", `/api/v2/front/processor_connect/payment_methods?payment_method_id=${pmId}`, { token })
      expect(read.status).toBe(404)
      const save = await server.request("POST", "/api/v2/front/processor_connect/payment_methods", { token, body: { payment_method: { payment_method_id: pmId } } })
      expect(save.status).toBe(404)
    }
    // Nor save for someone else.
    const forOther = await server.request("POST", "/api/v2/front/processor_connect/payment_methods", {
      token: client.token,
      body: { payment_method: { payment_method_id: mine.id, person_id: other.personId } }
    })
    expect(forOther.status).toBe(404)
    // Another business's staff: not found on their host.
    const foreign = await server.request("GET", `/api/v2/desk/processor_connect/payment_methods?payment_method_id=${id}`, {
      host: `elsewhere.${TEST_BASE_DOMAIN}`,
      token: foreignStaffToken
    })
    expect(foreign.status).toBe(404)

    const created = await server.request("GET", "/api/v2/desk/processor_connect/payment_methods/new", { token: staffToken })
    const unconfirmed = await server.request("GET", `/api/v2/desk/processor_connect/payment_methods?payment_method_id=${created.json.setup_intents[0].id}`, {
      token: staffToken
    })
    expect(unconfirmed.status).toBe(422)
    expect((await server.request("GET", "/api/v2/desk/processor_connect/payment_methods", { token: staffToken })).status).toBe(400)
  })

  it("the sandbox page refuses a bad card and a wrong secret", async () => {
    const { done, confirmUrl } = await confirmed("front", client.token, { ...CARD, "billing-cc-number": "1234" })
    expect(done.status).toBe(422)
    expect(done.text).toContain("billing-cc-number: invalid")
    expect(done.text).not.toContain("1234")
    expect((await follow(confirmUrl.replace(/client_secret=[^&]+/, "client_secret=nope"))).status).toBe(404)
  })
})
