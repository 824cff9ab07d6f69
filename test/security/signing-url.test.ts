import type pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeSettableClock } from "../support/clock.ts"
import { createBusiness, createPerson, createToken } from "../support/factories.ts"
import { createPlan, createPlanProduct } from "../support/billing-factories.ts"
import { TEST_BASE_DOMAIN, type TestServer, startTestServer } from "../support/server.ts"

/**
 * Issue 29: the plan terms' `signing_url` carries no access token. The provider sends the
 * browser back to `complete` with a one-time completion value: single use, an hour, for those
 * terms only. The sandbox provider's page plays the provider; the browser follows its links.
 */
const clock = makeSettableClock("2026-11-02T10:00:00Z")
const HOST = `demo.${TEST_BASE_DOMAIN}`
let server: TestServer
let businessId: number
let productId: number
let payer: { personId: number; token: string }

const newTerms = async (pool: pg.Pool) => {
  const plan = await createPlan(pool, businessId, productId, [payer.personId])
  const { rows } = await pool.query(
    `insert into plan_terms (business_id, plan_id, payer_person_id, acceptance_type, terms) values ($1, $2, $3, 'document', 'Sign me') returning id`,
    [businessId, plan.id, payer.personId]
  )
  return { planId: plan.id, termsId: Number(rows[0].id) }
}

const accepted = async (termsId: number) =>
  (await server.pool.query(`select accepted_at from plan_terms where id = $1`, [termsId])).rows[0].accepted_at as Date | null

/** A browser: no Authorization header, only the address. */
const browse = (url: string, method = "GET", body?: string) => {
  const parsed = new URL(url)
  return server.request(method, parsed.pathname + parsed.search, {
    host: parsed.host,
    ...(body === undefined ? {} : { body, headers: { "content-type": "application/x-www-form-urlencoded" } })
  })
}

/** The terms as the payer's app sees them: the signing URL and the return address inside it. */
const look = async (planId: number) => {
  const terms = await server.request("GET", `/api/v2/front/plans/${planId}/plan_terms`, { token: payer.token })
  expect(terms.status, terms.text).toBe(200)
  const signingUrl: string = terms.json.plan_terms[0].signing_url
  return { signingUrl, returnTo: new URL(signingUrl).searchParams.get("return_to")! }
}

/** Signs on the sandbox page; answers the address the page sends the browser to. */
const sign = async (signingUrl: string) => {
  const fields = new URL(signingUrl).searchParams
  fields.append("choice", "sign")
  const chosen = await browse(`http://${HOST}${new URL(signingUrl).pathname}`, "POST", fields.toString())
  expect(chosen.status).toBe(303)
  return chosen.headers.location!
}

beforeAll(async () => {
  server = await startTestServer({ clock: clock.clock })
  businessId = (await createBusiness(server.pool, { subdomain: "demo" })).id
  await createBusiness(server.pool, { subdomain: "elsewhere" })
  productId = (await createPlanProduct(server.pool, businessId, { kind: "pack" })).id
  const person = await createPerson(server.pool, businessId, { first_name: "Paula", last_name: "Payer" })
  payer = { personId: person.personId, token: await createToken(server.pool, person.accountId, businessId) }
}, 120_000)
afterAll(async () => server?.close())

describe("the signing URL", () => {
  it("carries no access token, and neither does the signing page", async () => {
    const { planId } = await newTerms(server.pool)
    const { signingUrl, returnTo } = await look(planId)
    expect(signingUrl).not.toContain(payer.token)
    expect(signingUrl).not.toContain(encodeURIComponent(payer.token))
    expect(returnTo).not.toContain("access_token")
    expect(new URL(returnTo).searchParams.get("completion")).toMatch(/^[A-Za-z0-9_-]{43}$/)
    const page = await browse(signingUrl)
    expect(page.status).toBe(200)
    expect(page.text).not.toContain(payer.token)
    const location = await sign(signingUrl)
    expect(location).not.toContain(payer.token)
    const back = await browse(location)
    expect(back.status, back.text).toBe(200)
    expect(back.json.plan_terms[0]).toMatchObject({ accepted: true })
  })
})

describe("the completion value", () => {
  it("is single-use: the return address replayed is refused", async () => {
    const { planId, termsId } = await newTerms(server.pool)
    const { signingUrl } = await look(planId)
    const location = await sign(signingUrl)
    expect((await browse(location)).status).toBe(200)
    const again = await browse(location)
    expect(again.status).toBe(422)
    expect(again.json).toEqual({ errors: ["This signing link has already been used or has expired; open the terms again to get a new one"] })
    const de = await server.request("GET", new URL(location).pathname + new URL(location).search, { headers: { "x-fd-locale": "de" } })
    expect(de.json.errors).toEqual([
      "Dieser Unterschriftslink wurde bereits verwendet oder ist abgelaufen; öffnen Sie die Bedingungen erneut, um einen neuen zu erhalten"
    ])
    expect(await accepted(termsId)).not.toBeNull()
  })

  it("is short-lived: an hour after the look it opens nothing, signed or not", async () => {
    const { planId, termsId } = await newTerms(server.pool)
    const { signingUrl } = await look(planId)
    const location = await sign(signingUrl)
    clock.set("2026-11-02T11:00:01Z")
    try {
      const late = await browse(location)
      expect(late.status).toBe(422)
      expect(late.json.errors).toHaveLength(1)
    } finally {
      clock.set("2026-11-02T10:00:00Z")
    }
    expect(await accepted(termsId)).toBeNull()
  })

  it("is bound to its terms: on other terms or another business's host it opens nothing, and stays good for its own", async () => {
    const first = await newTerms(server.pool)
    const second = await newTerms(server.pool)
    const { signingUrl, returnTo } = await look(first.planId)
    const value = new URL(returnTo).searchParams.get("completion")!
    await sign(signingUrl)
    // The second terms' complete with the first's value.
    const other = await server.request("GET", `/api/v2/front/plans/${second.planId}/plan_terms/${second.termsId}/complete?completion=${value}`)
    expect(other.status).toBe(422)
    expect(await accepted(second.termsId)).toBeNull()
    // The first's own address on another business's host.
    const elsewhere = await server.request("GET", new URL(returnTo).pathname + new URL(returnTo).search, { host: `elsewhere.${TEST_BASE_DOMAIN}` })
    expect([404, 422]).toContain(elsewhere.status)
    expect(elsewhere.json.errors).toHaveLength(1)
    // A made-up value, and no value and no token at all.
    const madeUp = await server.request("GET", `/api/v2/front/plans/${first.planId}/plan_terms/${first.termsId}/complete?completion=${"x".repeat(43)}`)
    expect(madeUp.status).toBe(422)
    expect((await server.request("GET", `/api/v2/front/plans/${first.planId}/plan_terms/${first.termsId}/complete`)).status).toBe(401)
    expect(await accepted(first.termsId)).toBeNull()
    // Its own terms still accept it.
    const own = await browse(returnTo)
    expect(own.status, own.text).toBe(200)
    expect(await accepted(first.termsId)).not.toBeNull()
  })

  it("opens only complete: the terms themselves still need the payer's token", async () => {
    const { planId } = await newTerms(server.pool)
    const { returnTo } = await look(planId)
    const value = new URL(returnTo).searchParams.get("completion")!
    const read = await server.request("GET", `/api/v2/front/plans/${planId}/plan_terms?completion=${value}`)
    expect(read.status).toBe(401)
  })
})
