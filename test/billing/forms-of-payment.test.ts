import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeSettableClock } from "../support/clock.ts"
import { createApplication, createBusiness, createPerson, createToken } from "../support/factories.ts"
import { TEST_BASE_DOMAIN, type TestServer, startTestServer } from "../support/server.ts"
import { createDependent } from "../people/fixtures.ts"

/**
 * Forms of payment over HTTP as a client app does it: step one (POST) gives the sandbox
 * gateway's form_url; step two posts the billing-* fields there (a form post, as a browser or
 * a mobile app sends it) and is redirected; step three (GET the redirect) answers {} and the
 * card is listed, or a 4xx naming the problem. Autobill rules, reach by mode, another business.
 */
const clock = makeSettableClock("2026-11-02T10:00:00Z")
const HOST = `demo.${TEST_BASE_DOMAIN}`
let server: TestServer
let client: { personId: number; token: string }
let other: { personId: number; token: string }
let staffToken: string
let dependentId: number
let foreign: { personId: number; staffToken: string }

const GOOD = {
  "billing-cc-number": "4242 4242 4242 4242",
  "billing-cc-exp": "1230",
  "billing-cvv": "123",
  "billing-first-name": "Paula",
  "billing-last-name": "Payer",
  "billing-postal": "94110",
  "billing-state": "CA",
  "billing-country": "US"
}

const follow = (url: string, method = "GET", body?: string) => {
  const parsed = new URL(url)
  return server.request(method, parsed.pathname + parsed.search, {
    host: parsed.host,
    ...(body === undefined ? {} : { body, headers: { "content-type": "application/x-www-form-urlencoded" } })
  })
}

const path = (mode: "front" | "desk", personId: number, rest = "") => `/api/v2/${mode}/people/${personId}/form_of_payments${rest}`

/** Step one as `token`, for `personId`. */
const start = async (mode: "front" | "desk", personId: number, token: string) => {
  const started = await server.request("POST", path(mode, personId), { token, body: { form_of_payment: { type: "creditcard" } } })
  expect(started.status, started.text).toBe(201)
  return started.json.form_of_payments[0].form_url as string
}

/** Step two: the card form's POST; answers the redirect's location. */
const submit = async (formUrl: string, fields: Record<string, string>) => {
  const posted = await follow(formUrl, "POST", new URLSearchParams(fields).toString())
  expect(posted.status, posted.text).toBe(303)
  return posted.headers.location!
}

/** The three steps; answers step three's response. */
const vault = async (mode: "front" | "desk", personId: number, token: string, fields: Record<string, string> = GOOD) =>
  follow(await submit(await start(mode, personId, token), fields))

const listed = async (personId: number) => {
  const list = await server.request("GET", path("desk", personId), { token: staffToken })
  expect(list.status, list.text).toBe(200)
  return list.json.form_of_payments as Array<Record<string, unknown>>
}

beforeAll(async () => {
  server = await startTestServer({ clock: clock.clock })
  await createApplication(server.pool, "test-app")
  const businessId = (await createBusiness(server.pool, { subdomain: "demo" })).id
  const person = await createPerson(server.pool, businessId, { first_name: "Paula", last_name: "Payer" })
  client = { personId: person.personId, token: await createToken(server.pool, person.accountId, businessId) }
  const someone = await createPerson(server.pool, businessId)
  other = { personId: someone.personId, token: await createToken(server.pool, someone.accountId, businessId) }
  const staff = await createPerson(server.pool, businessId, { role: "owner" })
  staffToken = await createToken(server.pool, staff.accountId, businessId)
  dependentId = await createDependent(server.pool, businessId, client.personId)
  const elsewhere = (await createBusiness(server.pool, { subdomain: "elsewhere" })).id
  const foreignPerson = await createPerson(server.pool, elsewhere)
  const foreignStaff = await createPerson(server.pool, elsewhere, { role: "owner" })
  foreign = { personId: foreignPerson.personId, staffToken: await createToken(server.pool, foreignStaff.accountId, elsewhere) }
}, 120_000)

afterAll(async () => {
  await server?.close()
})

describe("vaulting in three steps", () => {
  it("vaults a card for oneself: form_url, the form's redirect, 200 {} and the card listed as autobill", async () => {
    const started = await server.request("POST", path("front", client.personId), {
      token: client.token,
      body: { form_of_payment: { type: "creditcard" } }
    })
    expect(started.status, started.text).toBe(201)
    expect(started.json).toEqual({
      form_of_payments: [{ type: "creditcard", form_url: expect.stringMatching(`^http://${HOST}/sandbox/gateway/forms/`), expires_at: "2026-11-02T10:10:00Z" }]
    })
    const formUrl: string = started.json.form_of_payments[0].form_url
    const page = await follow(formUrl)
    expect(page.status).toBe(200)
    expect(page.text).toContain('name="billing-cc-number"')
    const location = await submit(formUrl, GOOD)
    expect(location).toMatch(new RegExp(`^http://${HOST.replace(/\./g, "\\.")}/api/v2/front/people/${client.personId}/form_of_payments/vaulting/[A-Za-z0-9_-]{20,}$`))
    const done = await follow(location)
    expect(done.status, done.text).toBe(200)
    expect(done.json).toEqual({})

    const mine = await server.request("GET", path("front", client.personId), { token: client.token })
    expect(mine.status, mine.text).toBe(200)
    expect(mine.headers["cache-control"]).toBe("private, no-store")
    expect(mine.json).toEqual({
      form_of_payments: [
        {
          id: expect.any(Number),
          type: "creditcard",
          first_name: "Paula",
          last_name: "Payer",
          autobill: true,
          created_at: "2026-11-02T10:00:00Z",
          updated_at: "2026-11-02T10:00:00Z",
          card_type: "visa",
          expire_month: 12,
          expire_year: 2030,
          last_four: "4242"
        }
      ],
      total_count: 1
    })
    const id = mine.json.form_of_payments[0].id
    for (const url of [path("front", client.personId, `/${id}`), `/api/v2/front/people/me/form_of_payments/${id}`]) {
      const one = await server.request("GET", url, { token: client.token })
      expect(one.status, one.text).toBe(200)
      expect(one.json.form_of_payments).toEqual(mine.json.form_of_payments)
    }

    // The same address again: single-use.
    const again = await follow(location)
    expect(again.status).toBe(422)
    expect(again.json).toEqual({ errors: ["This card form session was already used: start again"] })
    // The card form too.
    expect((await follow(formUrl)).status).toBe(410)
    expect((await follow(formUrl, "POST", new URLSearchParams(GOOD).toString())).status).toBe(410)
    expect(await listed(client.personId)).toHaveLength(1)
  })

  it("vaults for anyone in staff mode, with form fields in the body; networks detected; the second card is not autobill", async () => {
    const started = await server.request("POST", path("desk", other.personId), {
      token: staffToken,
      body: "form_of_payment[type]=creditcard",
      headers: { "content-type": "application/x-www-form-urlencoded" }
    })
    expect(started.status, started.text).toBe(201)
    const done = await follow(await submit(started.json.form_of_payments[0].form_url, { ...GOOD, "billing-cc-number": "5555555555554444" }))
    expect(done.status, done.text).toBe(200)
    const amex = await vault("desk", other.personId, staffToken, { ...GOOD, "billing-cc-number": "378282246310005", "billing-cvv": "1234" })
    expect(amex.status, amex.text).toBe(200)
    const discover = await vault("desk", other.personId, staffToken, { ...GOOD, "billing-cc-number": "6011111111111117" })
    expect(discover.status, discover.text).toBe(200)
    const forms = await listed(other.personId)
    expect(forms.map((form) => [form.card_type, form.last_four, form.autobill])).toEqual([
      ["master_card", "4444", true],
      ["american_express", "0005", false],
      ["discover", "1117", false]
    ])
  })

  it("answers 422 naming each bad field, writes no form of payment, and uses the session up", async () => {
    const before = (await listed(dependentId)).length
    const done = await vault("desk", dependentId, staffToken, {
      "billing-cc-number": "4242424242424241",
      "billing-cc-exp": "1325",
      "billing-cvv": "12",
      "billing-first-name": "",
      "billing-state": "California",
      "billing-country": "XX"
    })
    expect(done.status).toBe(422)
    expect(done.json).toEqual({
      errors: [
        "billing-cc-number is invalid",
        "billing-cc-exp is invalid",
        "billing-cvv is invalid",
        "billing-first-name can't be blank",
        "billing-last-name can't be blank",
        "billing-postal can't be blank",
        "billing-state is invalid",
        "billing-country is invalid"
      ]
    })
    expect(await listed(dependentId)).toHaveLength(before)
    const blank = await vault("desk", dependentId, staffToken, { ...GOOD, "billing-cc-number": "", "billing-cvv": "" })
    expect(blank.json.errors).toEqual(["billing-cc-number can't be blank", "billing-cvv can't be blank"])
    const expired = await vault("desk", dependentId, staffToken, { ...GOOD, "billing-cc-exp": "1026" })
    expect(expired.status).toBe(422)
    expect(expired.json.errors).toEqual(["billing-cc-exp: the card has expired"])
    // The current month still works.
    expect((await vault("desk", dependentId, staffToken, { ...GOOD, "billing-cc-exp": "1126" })).status).toBe(200)
  })

  it("answers in the request's locale", async () => {
    const location = await submit(await start("desk", dependentId, staffToken), { ...GOOD, "billing-cc-number": "4000000000000002" })
    const declined = await server.request("GET", new URL(location).pathname, { headers: { "x-fd-locale": "de" } })
    expect(declined.status).toBe(422)
    expect(declined.json).toEqual({ errors: ["Die Karte wurde abgelehnt"] })
  })

  it("declines the documented test number, and nothing is saved", async () => {
    const before = (await listed(other.personId)).length
    const declined = await vault("desk", other.personId, staffToken, { ...GOOD, "billing-cc-number": "4000000000000002" })
    expect(declined.status).toBe(422)
    expect(declined.json).toEqual({ errors: ["The card was declined"] })
    expect(await listed(other.personId)).toHaveLength(before)
  })

  it("refuses an expired session (ten minutes after step one) and one not submitted yet", async () => {
    const formUrl = await start("front", client.personId, client.token)
    const page = await follow(formUrl)
    expect(page.status).toBe(200)
    // Submitted at once, read eleven minutes later: expired.
    const location = await submit(formUrl, GOOD)
    clock.set("2026-11-02T10:11:00Z")
    try {
      const late = await follow(location)
      expect(late.status).toBe(422)
      expect(late.json).toEqual({ errors: ["This card form session has expired: start again"] })
      // The form itself expired too.
      const formUrl2 = await start("front", client.personId, client.token)
      clock.set("2026-11-02T10:22:00Z")
      expect((await follow(formUrl2)).status).toBe(410)
    } finally {
      clock.set("2026-11-02T10:00:00Z")
    }
    // Not submitted: a 422 that says so, and the session stays open for the form's redirect.
    const formUrl3 = await start("front", client.personId, client.token)
    const formId = decodeURIComponent(new URL(formUrl3).pathname.split("/").pop()!)
    const session = await server.pool.query(`select id from form_of_payment_vaultings where gateway_form_id = $1`, [formId])
    const sessionPath = path("front", client.personId, `/vaulting/${session.rows[0].id}`)
    const early = await server.request("GET", sessionPath)
    expect(early.status).toBe(422)
    expect(early.json).toEqual({ errors: ["The card form has not been submitted yet"] })
    const location3 = await submit(formUrl3, GOOD)
    expect(new URL(location3).pathname).toBe(sessionPath)
    const unknown = await follow(location3.replace(/vaulting\/.*$/, `vaulting/${"x".repeat(22)}`))
    expect(unknown.status).toBe(404)
    expect(unknown.json).toEqual({ errors: ["This card form session was not found"] })
    expect((await follow(location3)).status).toBe(200)
  })

  it("keeps a session to its person, mode and business", async () => {
    const location = await submit(await start("front", client.personId, client.token), GOOD)
    const url = new URL(location)
    // Another person's path, the other mode, another business's host: not found.
    for (const [pathname, host] of [
      [url.pathname.replace(`/people/${client.personId}/`, `/people/${other.personId}/`), url.host],
      [url.pathname.replace("/front/", "/desk/"), url.host],
      [url.pathname, `elsewhere.${TEST_BASE_DOMAIN}`]
    ] as const) {
      const response = await server.request("GET", pathname, { host })
      expect(response.status, `${host}${pathname}`).toBe(404)
    }
    expect((await follow(location)).status).toBe(200)
  })
})

describe("reach", () => {
  it("client mode: only one's own person; dependents, others and staff paths are not found", async () => {
    const id = (await listed(other.personId))[0]!.id
    for (const [method, url] of [
      ["GET", path("front", other.personId)],
      ["GET", path("front", other.personId, `/${id}`)],
      ["GET", `/api/v2/front/people/me/form_of_payments/${id}`],
      ["GET", path("front", dependentId)],
      ["POST", path("front", dependentId)],
      ["PUT", path("front", other.personId, `/${id}`)]
    ] as const) {
      const response = await server.request(method, url, { token: client.token, body: { form_of_payment: { type: "creditcard", autobill: true } } })
      expect(response.status, `${method} ${url}`).toBe(404)
    }
    // Staff mode needs staff.
    expect((await server.request("GET", path("desk", client.personId), { token: client.token })).status).toBe(403)
    // No token: 401.
    expect((await server.request("GET", path("front", client.personId) + "?client_id=test-app")).status).toBe(401)
  })

  it("another business's person and forms are not found, and nothing is written there", async () => {
    const id = (await listed(other.personId))[0]!.id
    const host = `elsewhere.${TEST_BASE_DOMAIN}`
    expect((await server.request("GET", path("desk", other.personId), { host, token: foreign.staffToken })).status).toBe(404)
    expect((await server.request("GET", path("desk", foreign.personId, `/${id}`), { host, token: foreign.staffToken })).status).toBe(404)
    expect((await server.request("GET", path("desk", foreign.personId, `/${id}`), { token: staffToken })).status).toBe(404)
    const post = await server.request("POST", path("desk", foreign.personId), { token: staffToken, body: { form_of_payment: { type: "creditcard" } } })
    expect(post.status).toBe(404)
    const count = await server.pool.query(`select count(*)::int as n from form_of_payment_vaultings where person_id = $1`, [foreign.personId])
    expect(count.rows[0].n).toBe(0)
  })
})

describe("step one's input", () => {
  it("requires type creditcard (422 naming it) and writes nothing", async () => {
    const before = await server.pool.query(`select count(*)::int as n from form_of_payment_vaultings`)
    for (const [body, error] of [
      [{ form_of_payment: { type: "ach" } }, "Type ach is not supported: the only value is creditcard"],
      [{ form_of_payment: {} }, "Type can't be blank"]
    ] as const) {
      const response = await server.request("POST", path("desk", other.personId), { token: staffToken, body })
      expect(response.status, response.text).toBe(422)
      expect(response.json).toEqual({ errors: [error] })
    }
    const missing = await server.request("POST", path("desk", other.personId), { token: staffToken, body: { type: "creditcard" } })
    expect(missing.status).toBe(400)
    const after = await server.pool.query(`select count(*)::int as n from form_of_payment_vaultings`)
    expect(after.rows[0].n).toBe(before.rows[0].n)
  })
})

describe("autobill", () => {
  it("true makes a form the default and turns the others off; turning the default off is a 422", async () => {
    const forms = await listed(other.personId)
    const [first, second] = forms
    expect(first!.autobill).toBe(true)
    const off = await server.request("PUT", path("desk", other.personId, `/${first!.id}`), {
      token: staffToken,
      body: { form_of_payment: { autobill: false } }
    })
    expect(off.status).toBe(422)
    expect(off.json).toEqual({ errors: ["One form of payment must stay the autobill default: turn another one on instead"] })
    clock.set("2026-11-02T11:00:00Z")
    try {
      const on = await server.request("PUT", path("desk", other.personId, `/${second!.id}`), {
        token: staffToken,
        body: "form_of_payment[id]=" + second!.id + "&form_of_payment[autobill]=true",
        headers: { "content-type": "application/x-www-form-urlencoded" }
      })
      expect(on.status, on.text).toBe(200)
      expect(on.json.form_of_payments[0]).toMatchObject({ id: second!.id, autobill: true, updated_at: "2026-11-02T11:00:00Z" })
    } finally {
      clock.set("2026-11-02T10:00:00Z")
    }
    const after = await listed(other.personId)
    expect(after.filter((form) => form.autobill).map((form) => form.id)).toEqual([second!.id])
    expect(after.find((form) => form.id === first!.id)).toMatchObject({ autobill: false, updated_at: "2026-11-02T11:00:00Z" })
    // false on a form that is not the default changes nothing; a wrong id or a bad boolean is refused.
    const noop = await server.request("PUT", path("desk", other.personId, `/${first!.id}`), { token: staffToken, body: { form_of_payment: { autobill: false } } })
    expect(noop.status).toBe(200)
    const mismatch = await server.request("PUT", path("desk", other.personId, `/${first!.id}`), {
      token: staffToken,
      body: { form_of_payment: { id: second!.id, autobill: true } }
    })
    expect(mismatch.status).toBe(422)
    const bad = await server.request("PUT", path("desk", other.personId, `/${first!.id}`), { token: staffToken, body: { form_of_payment: { autobill: "maybe" } } })
    expect(bad.status).toBe(400)
    expect((await listed(other.personId)).filter((form) => form.autobill).map((form) => form.id)).toEqual([second!.id])
  })

  it("the client switches its own default", async () => {
    expect((await vault("front", client.personId, client.token)).status).toBe(200)
    const mine = (await server.request("GET", path("front", client.personId), { token: client.token })).json.form_of_payments
    const notDefault = mine.find((form: { autobill: boolean }) => !form.autobill)
    const on = await server.request("PUT", path("front", client.personId, `/${notDefault.id}`), { token: client.token, body: { form_of_payment: { autobill: true } } })
    expect(on.status, on.text).toBe(200)
    expect(on.json.form_of_payments[0].autobill).toBe(true)
  })
})
