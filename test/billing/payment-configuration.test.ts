import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeSettableClock } from "../support/clock.ts"
import { createApplication, createBusiness, createPerson, createToken } from "../support/factories.ts"
import { TEST_BASE_DOMAIN, type TestServer, startTestServer } from "../support/server.ts"

/**
 * GET {front,desk}/payments/configuration: the defaults for a business without settings of its
 * own, a business's own settings (external methods by name), and the card form obeying them
 * (CVV optional, card types, credit cards not accepted at all).
 */
const clock = makeSettableClock("2026-11-02T10:00:00Z")
const OWN = `own.${TEST_BASE_DOMAIN}`
let server: TestServer
let defaults: { clientToken: string; staffToken: string; personId: number }
let own: { clientToken: string; staffToken: string; personId: number; id: number }

const setUp = async (subdomain: string) => {
  const id = (await createBusiness(server.pool, { subdomain })).id
  const client = await createPerson(server.pool, id)
  const staff = await createPerson(server.pool, id, { role: "manager" })
  return {
    id,
    personId: client.personId,
    clientToken: await createToken(server.pool, client.accountId, id),
    staffToken: await createToken(server.pool, staff.accountId, id)
  }
}

const follow = (url: string, method = "GET", body?: string) => {
  const parsed = new URL(url)
  return server.request(method, parsed.pathname + parsed.search, {
    host: parsed.host,
    ...(body === undefined ? {} : { body, headers: { "content-type": "application/x-www-form-urlencoded" } })
  })
}

beforeAll(async () => {
  server = await startTestServer({ clock: clock.clock })
  await createApplication(server.pool, "test-app")
  defaults = await setUp("demo")
  own = await setUp("own")
  await server.pool.query(
    `insert into payment_configurations (business_id, accepted_types, external_methods, accepted_card_types, cvv_required, address_required, postal_required)
     values ($1, '{creditcard,ach}', '{Gift voucher}', '{visa}', false, true, false)`,
    [own.id]
  )
}, 120_000)

afterAll(async () => {
  await server?.close()
})

describe("payment configuration", () => {
  it("answers the defaults in both modes (client mode with client_id alone), under payment_configuration", async () => {
    const expected = {
      payment_configuration: {
        accepted_types: ["creditcard", "cash", "check"],
        creditcard: {
          accepted_card_types: ["visa", "master_card", "american_express", "discover"],
          required_fields: { cvv: true, address: false, postal: true, first_name: true, last_name: true }
        }
      }
    }
    for (const [path, options] of [
      ["/api/v2/front/payments/configuration", { token: defaults.clientToken }],
      ["/api/v2/front/payments/configuration.json?client_id=test-app", {}],
      ["/api/v2/desk/payments/configuration", { token: defaults.staffToken }]
    ] as const) {
      const response = await server.request("GET", path, options)
      expect(response.status, `${path}: ${response.text}`).toBe(200)
      expect(response.json).toEqual(expected)
    }
  })

  it("answers a business's own settings, external methods by name", async () => {
    const response = await server.request("GET", "/api/v2/desk/payments/configuration", { host: OWN, token: own.staffToken })
    expect(response.status, response.text).toBe(200)
    expect(response.json).toEqual({
      payment_configuration: {
        accepted_types: ["creditcard", "ach", "Gift voucher"],
        creditcard: { accepted_card_types: ["visa"], required_fields: { cvv: false, address: true, postal: false, first_name: true, last_name: true } }
      }
    })
  })

  it("refuses the wrong mode, no credentials and another business's token", async () => {
    expect((await server.request("GET", "/api/v2/desk/payments/configuration", { token: defaults.clientToken })).status).toBe(403)
    expect((await server.request("GET", "/api/v2/front/payments/configuration")).status).toBe(401)
    expect((await server.request("GET", "/api/v2/desk/payments/configuration", { host: OWN, token: defaults.staffToken })).status).toBe(401)
  })

  it("the card form obeys it: CVV optional, address required, only visa", async () => {
    const start = async () => {
      const started = await server.request("POST", `/api/v2/desk/people/${own.personId}/form_of_payments`, {
        host: OWN,
        token: own.staffToken,
        body: { form_of_payment: { type: "creditcard" } }
      })
      expect(started.status, started.text).toBe(201)
      return started.json.form_of_payments[0].form_url as string
    }
    const vault = async (fields: Record<string, string>) => {
      const posted = await follow(await start(), "POST", new URLSearchParams(fields).toString())
      expect(posted.status).toBe(303)
      return follow(posted.headers.location!)
    }
    const card = { "billing-cc-exp": "0130", "billing-first-name": "Ada", "billing-last-name": "Lovelace" }
    const master = await vault({ ...card, "billing-cc-number": "5555555555554444", "billing-address1": "1 Main St", "billing-city": "Springfield" })
    expect(master.status).toBe(422)
    expect(master.json.errors).toEqual(["billing-cc-number: this card type is not accepted"])
    const noAddress = await vault({ ...card, "billing-cc-number": "4242424242424242" })
    expect(noAddress.json.errors).toEqual(["billing-address1 can't be blank", "billing-city can't be blank"])
    const ok = await vault({ ...card, "billing-cc-number": "4242424242424242", "billing-address1": "1 Main St", "billing-city": "Springfield" })
    expect(ok.status, ok.text).toBe(200)
  })

  it("step one is a 422 when the business does not accept credit cards", async () => {
    await server.pool.query(`update payment_configurations set accepted_types = '{cash}' where business_id = $1`, [own.id])
    try {
      const started = await server.request("POST", `/api/v2/desk/people/${own.personId}/form_of_payments`, {
        host: OWN,
        token: own.staffToken,
        body: { form_of_payment: { type: "creditcard" } }
      })
      expect(started.status).toBe(422)
      expect(started.json).toEqual({ errors: ["This business does not accept credit cards"] })
    } finally {
      await server.pool.query(`update payment_configurations set accepted_types = '{creditcard,ach}' where business_id = $1`, [own.id])
    }
  })
})
