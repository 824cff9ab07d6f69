import type pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeSettableClock } from "../support/clock.ts"
import { createApplication, createBusiness, createPerson, createToken } from "../support/factories.ts"
import { createPlan, createPlanProduct } from "../support/billing-factories.ts"
import { type TestResponse } from "../support/http.ts"
import { TEST_BASE_DOMAIN, type TestServer, startTestServer, startTestServerOn } from "../support/server.ts"
import { createDependent } from "../people/fixtures.ts"

/**
 * Plan terms over HTTP, as a client app and its browser use them: checkbox terms accepted by
 * `complete`; document terms signed on the sandbox provider's page, which sends the browser
 * back to `complete`. Payer only; another business's ids, unknown ids and an unreachable
 * provider never answer 500.
 */
const clock = makeSettableClock("2026-11-02T10:00:00Z")
const HOST = `demo.${TEST_BASE_DOMAIN}`
let server: TestServer
let businessId: number
let productId: number
let payer: { personId: number; token: string }
let other: { personId: number; token: string }
let staffToken: string
let dependentId: number
let elsewhere: { id: number; planId: number; termsId: number }

/** A plan of the business paid by `payerId`, with its terms row (as the plan's creation writes it). */
const planWithTerms = async (
  pool: pg.Pool,
  business: number,
  product: number,
  payerId: number,
  acceptanceType: "checkbox" | "document",
  terms = "No refunds after the first visit."
) => {
  const plan = await createPlan(pool, business, product, [payerId])
  const { rows } = await pool.query(
    `insert into plan_terms (business_id, plan_id, payer_person_id, acceptance_type, terms) values ($1, $2, $3, $4, $5) returning id`,
    [business, plan.id, payerId, acceptanceType, terms]
  )
  return { planId: plan.id, termsId: Number(rows[0].id) }
}

const termsRow = async (termsId: number) =>
  (await server.pool.query(`select document_id, accepted_at, declined_at from plan_terms where id = $1`, [termsId])).rows[0]

const get = (path: string, token?: string, host = HOST) => server.request("GET", path, { host, ...(token ? { token } : {}) })

/** What a browser does with an absolute URL on our server: the path and query, the host header. */
const follow = (url: string, method = "GET", body?: string) => {
  const parsed = new URL(url)
  return server.request(method, parsed.pathname + parsed.search, {
    host: parsed.host,
    ...(body === undefined ? {} : { body, headers: { "content-type": "application/x-www-form-urlencoded" } })
  })
}

const unescapeHtml = (value: string) =>
  value.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&")

/** The sandbox page's form, submitted with the button `choice` as a browser would. */
const submitChoice = async (signingUrl: string, page: TestResponse, choice: string) => {
  const action = page.text.match(/<form method="post" action="([^"]+)"/)?.[1]
  expect(action, page.text).toBeDefined()
  const fields = new URLSearchParams()
  for (const match of page.text.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    fields.append(match[1]!, unescapeHtml(match[2]!))
  }
  fields.append("choice", choice)
  return follow(new URL(unescapeHtml(action!), signingUrl).href, "POST", fields.toString())
}

/** GET the terms, open the signing page, choose, and follow the redirect back: the browser's whole trip. */
const signingTrip = async (planId: number, choice: "sign" | "decline") => {
  const terms = await get(`/api/v2/front/plans/${planId}/plan_terms`, payer.token)
  expect(terms.status, terms.text).toBe(200)
  const signingUrl: string = terms.json.plan_terms[0].signing_url
  const page = await follow(signingUrl)
  expect(page.status, page.text).toBe(200)
  const chosen = await submitChoice(signingUrl, page, choice)
  expect(chosen.status, chosen.text).toBe(303)
  return { signingUrl, page, chosen, back: await follow(chosen.headers.location!) }
}

beforeAll(async () => {
  server = await startTestServer({ clock: clock.clock })
  await createApplication(server.pool, "test-app")
  businessId = (await createBusiness(server.pool, { subdomain: "demo" })).id
  productId = (await createPlanProduct(server.pool, businessId, { kind: "pack" })).id
  const person = await createPerson(server.pool, businessId, { first_name: "Paula", last_name: "Payer" })
  payer = { personId: person.personId, token: await createToken(server.pool, person.accountId, businessId) }
  const someone = await createPerson(server.pool, businessId)
  other = { personId: someone.personId, token: await createToken(server.pool, someone.accountId, businessId) }
  const staff = await createPerson(server.pool, businessId, { role: "owner" })
  staffToken = await createToken(server.pool, staff.accountId, businessId)
  dependentId = await createDependent(server.pool, businessId, payer.personId)
  const foreign = (await createBusiness(server.pool, { subdomain: "elsewhere" })).id
  const foreignProduct = (await createPlanProduct(server.pool, foreign, { kind: "pack" })).id
  const foreignPayer = await createPerson(server.pool, foreign)
  elsewhere = { id: foreign, ...(await planWithTerms(server.pool, foreign, foreignProduct, foreignPayer.personId, "checkbox")) }
}, 120_000)

afterAll(async () => {
  await server?.close()
})

describe("checkbox terms", () => {
  it("shows the terms to the payer, and complete accepts them once", async () => {
    const { planId, termsId } = await planWithTerms(server.pool, businessId, productId, payer.personId, "checkbox", "Be kind.")
    for (const path of [`/api/v2/front/plans/${planId}/plan_terms`, `/api/v2/front/plans/${planId}/plan_terms/${termsId}`]) {
      const response = await get(path, payer.token)
      expect(response.status, response.text).toBe(200)
      expect(response.headers["cache-control"]).toBe("private, no-store")
      expect(response.json).toEqual({
        plan_terms: [
          {
            id: termsId,
            plan_id: planId,
            acceptance_type: "checkbox",
            terms: "Be kind.",
            accepted: false,
            accepted_at: null,
            declined_at: null,
            signing_url: null,
            created_at: expect.any(String),
            updated_at: expect.any(String)
          }
        ]
      })
    }
    const completed = await get(`/api/v2/front/plans/${planId}/plan_terms/${termsId}/complete`, payer.token)
    expect(completed.status, completed.text).toBe(200)
    expect(completed.json.plan_terms[0]).toMatchObject({ accepted: true, accepted_at: "2026-11-02T10:00:00Z", updated_at: "2026-11-02T10:00:00Z" })

    // Again later: the first acceptance stands. The query token works as the header does.
    clock.set("2026-11-03T09:00:00Z")
    try {
      const again = await get(`/api/v2/front/plans/${planId}/plan_terms/${termsId}/complete.json?access_token=${payer.token}`)
      expect(again.status, again.text).toBe(200)
      expect(again.json.plan_terms[0]).toMatchObject({ accepted: true, accepted_at: "2026-11-02T10:00:00Z" })
    } finally {
      clock.set("2026-11-02T10:00:00Z")
    }
    expect((await termsRow(termsId)).accepted_at).toEqual(new Date("2026-11-02T10:00:00Z"))
  })
})

describe("document terms and the sandbox provider", () => {
  it("signs: the terms give a signing URL, the page signs, the redirect lands on complete with 200", async () => {
    const { planId, termsId } = await planWithTerms(server.pool, businessId, productId, payer.personId, "document", "Waiver <b>&</b> terms")
    const { signingUrl, page, chosen, back } = await signingTrip(planId, "sign")
    expect(signingUrl.startsWith(`http://${HOST}/sandbox/signing/`)).toBe(true)
    // The page shows the document escaped, to the signer named on the envelope, and leaks no referrer.
    expect(page.headers["content-type"]).toContain("text/html")
    expect(page.headers["referrer-policy"]).toBe("no-referrer")
    expect(page.text).toContain("Waiver &lt;b&gt;&amp;&lt;/b&gt; terms")
    expect(page.text).not.toContain("<b>&</b>")
    expect(page.text).toContain("Paula Payer")
    // Back to complete with a one-time completion value, never the payer's token.
    expect(chosen.headers.location).toMatch(
      new RegExp(`^http://${HOST.replace(/\./g, "\\.")}/api/v2/front/plans/${planId}/plan_terms/${termsId}/complete\\?completion=[A-Za-z0-9_-]{43}$`)
    )
    expect(back.status, back.text).toBe(200)
    expect(back.json.plan_terms[0]).toMatchObject({ id: termsId, acceptance_type: "document", accepted: true, accepted_at: "2026-11-02T10:00:00Z", declined_at: null, signing_url: "" })

    // Signed is final: the page says so, and a late "decline" changes nothing.
    const after = await follow(signingUrl)
    expect(after.status).toBe(200)
    expect(after.text).toContain("<h1>Signed</h1>")
    expect(after.text).not.toContain("<form")
    const hidden = new URL(signingUrl).searchParams
    hidden.append("choice", "decline")
    expect((await follow(`http://${HOST}${new URL(signingUrl).pathname}`, "POST", hidden.toString())).status).toBe(303)
    const row = await termsRow(termsId)
    expect(row.declined_at).toBeNull()
    expect((await server.pool.query(`select status from signing_envelopes where id = $1`, [row.document_id])).rows[0].status).toBe("signed")
  })

  it("declines: complete answers 422, and declining is final", async () => {
    const { planId, termsId } = await planWithTerms(server.pool, businessId, productId, payer.personId, "document")
    const { back } = await signingTrip(planId, "decline")
    expect(back.status, back.text).toBe(422)
    expect(back.json).toEqual({ errors: ["The terms were declined"] })
    const row = await termsRow(termsId)
    expect(row.declined_at).toEqual(new Date("2026-11-02T10:00:00Z"))
    expect(row.accepted_at).toBeNull()
    const terms = await get(`/api/v2/front/plans/${planId}/plan_terms`, payer.token)
    expect(terms.json.plan_terms[0]).toMatchObject({ accepted: false, declined_at: "2026-11-02T10:00:00Z", signing_url: "" })
    const again = await get(`/api/v2/front/plans/${planId}/plan_terms/${termsId}/complete`, payer.token, HOST)
    expect(again.status).toBe(422)
    expect(again.json.errors).toEqual(["The terms were declined"])
  })

  it("answers 422 while the document is unsigned, and writes nothing", async () => {
    const { planId, termsId } = await planWithTerms(server.pool, businessId, productId, payer.personId, "document")
    const complete = `/api/v2/front/plans/${planId}/plan_terms/${termsId}/complete`
    // Never opened: no envelope yet.
    const early = await get(complete, payer.token)
    expect(early.status).toBe(422)
    expect(early.json.errors).toEqual(["The terms document has not been signed yet"])
    // Opened, not signed; the envelope is filed once and kept across looks.
    const first = await get(`/api/v2/front/plans/${planId}/plan_terms`, payer.token)
    const documentId = (await termsRow(termsId)).document_id
    expect(documentId).toEqual(expect.any(String))
    const second = await get(`/api/v2/front/plans/${planId}/plan_terms/${termsId}`, payer.token)
    expect(new URL(second.json.plan_terms[0].signing_url).pathname).toBe(new URL(first.json.plan_terms[0].signing_url).pathname)
    expect((await termsRow(termsId)).document_id).toBe(documentId)
    const pending = await get(complete, payer.token, HOST)
    expect(pending.status).toBe(422)
    expect(pending.json.errors).toEqual(["The terms document has not been signed yet"])
    const de = await server.request("GET", complete, { token: payer.token, headers: { "x-fd-locale": "de" } })
    expect(de.json.errors).toEqual(["Das Dokument mit den Bedingungen wurde noch nicht unterschrieben"])
    const row = await termsRow(termsId)
    expect(row.accepted_at).toBeNull()
    expect(row.declined_at).toBeNull()
  })

  it("files one envelope when several first looks race", async () => {
    const { planId, termsId } = await planWithTerms(server.pool, businessId, productId, payer.personId, "document")
    const looks = await Promise.all(Array.from({ length: 6 }, () => get(`/api/v2/front/plans/${planId}/plan_terms`, payer.token)))
    const documentId = (await termsRow(termsId)).document_id
    for (const look of looks) {
      expect(look.status, look.text).toBe(200)
      expect(new URL(look.json.plan_terms[0].signing_url).pathname).toBe(`/sandbox/signing/${documentId}`)
    }
  })

  it("refuses a signing link that was tampered with, has expired, or names another document", async () => {
    const { planId, termsId } = await planWithTerms(server.pool, businessId, productId, payer.personId, "document")
    const terms = await get(`/api/v2/front/plans/${planId}/plan_terms`, payer.token)
    const signingUrl = new URL(terms.json.plan_terms[0].signing_url)

    // Another return address (an open redirect, or someone else's token): refused.
    const tampered = new URL(signingUrl)
    tampered.searchParams.set("return_to", "https://evil.example/steal")
    expect((await follow(tampered.href)).status).toBe(403)
    const form = new URLSearchParams(tampered.searchParams)
    form.append("choice", "sign")
    const post = await follow(`http://${HOST}${tampered.pathname}`, "POST", form.toString())
    expect(post.status).toBe(403)
    expect(post.headers.location).toBeUndefined()
    // Unknown document, another host's business, a bad choice.
    expect((await follow(`http://${HOST}/sandbox/signing/nosuchdocumentatall${signingUrl.search}`)).status).toBe(404)
    expect((await follow(`http://elsewhere.${TEST_BASE_DOMAIN}${signingUrl.pathname}${signingUrl.search}`)).status).toBe(404)
    const badChoice = new URLSearchParams(signingUrl.searchParams)
    badChoice.append("choice", "maybe")
    expect((await follow(`http://${HOST}${signingUrl.pathname}`, "POST", badChoice.toString())).status).toBe(400)
    // An hour later the link is closed; a fresh look at the terms opens a new one.
    clock.set("2026-11-02T11:00:01Z")
    try {
      expect((await follow(signingUrl.href)).status).toBe(403)
      const fresh = await get(`/api/v2/front/plans/${planId}/plan_terms`, payer.token)
      expect((await follow(fresh.json.plan_terms[0].signing_url)).status).toBe(200)
    } finally {
      clock.set("2026-11-02T10:00:00Z")
    }
    const row = await termsRow(termsId)
    expect(row.accepted_at).toBeNull()
    expect((await server.pool.query(`select status from signing_envelopes where id = $1`, [row.document_id])).rows[0].status).toBe("pending")
  })

  it("keeps the sandbox's state in the database: another API process completes what this one signed", async () => {
    const { planId, termsId } = await planWithTerms(server.pool, businessId, productId, payer.personId, "document")
    const terms = await get(`/api/v2/front/plans/${planId}/plan_terms`, payer.token)
    const signingUrl: string = terms.json.plan_terms[0].signing_url
    const second = await startTestServerOn(server.databaseUrl, { clock: clock.clock })
    try {
      const onSecond = (url: string, method = "GET", body?: string) => {
        const parsed = new URL(url)
        return second.request(method, parsed.pathname + parsed.search, {
          host: parsed.host,
          ...(body === undefined ? {} : { body, headers: { "content-type": "application/x-www-form-urlencoded" } })
        })
      }
      const page = await onSecond(signingUrl)
      expect(page.status).toBe(200)
      const fields = new URL(signingUrl).searchParams
      fields.append("choice", "sign")
      const chosen = await onSecond(`http://${HOST}${new URL(signingUrl).pathname}`, "POST", fields.toString())
      expect(chosen.status).toBe(303)
      const back = await follow(chosen.headers.location!)
      expect(back.status, back.text).toBe(200)
      expect(back.json.plan_terms[0]).toMatchObject({ id: termsId, accepted: true })
    } finally {
      await second.close()
    }
  })
})

describe("who may see and accept the terms", () => {
  let planId: number
  let termsId: number
  beforeAll(async () => {
    ;({ planId, termsId } = await planWithTerms(server.pool, businessId, productId, payer.personId, "checkbox"))
  })

  it("is the payer only: other clients, staff in client mode and guardians get 404, and nothing is written", async () => {
    const paths = [
      `/api/v2/front/plans/${planId}/plan_terms`,
      `/api/v2/front/plans/${planId}/plan_terms/${termsId}`,
      `/api/v2/front/plans/${planId}/plan_terms/${termsId}/complete`
    ]
    for (const path of paths) {
      for (const token of [other.token, staffToken]) {
        const response = await get(path, token)
        expect(response.status, path).toBe(404)
        expect(response.json.errors).toHaveLength(1)
      }
    }
    // The dependent's terms are the dependent's, not the guardian's.
    const ofDependent = await planWithTerms(server.pool, businessId, productId, dependentId, "checkbox")
    expect((await get(`/api/v2/front/plans/${ofDependent.planId}/plan_terms`, payer.token)).status).toBe(404)
    expect((await get(`/api/v2/front/plans/${ofDependent.planId}/plan_terms/${ofDependent.termsId}/complete`, payer.token)).status).toBe(404)
    expect((await termsRow(termsId)).accepted_at).toBeNull()
    expect((await termsRow(ofDependent.termsId)).accepted_at).toBeNull()
  })

  it("needs a person's token: 401 without one, and no staff-mode route", async () => {
    const anonymous = await get(`/api/v2/front/plans/${planId}/plan_terms?client_id=test-app`)
    expect(anonymous.status).toBe(401)
    expect((await get(`/api/v2/front/plans/${planId}/plan_terms`)).status).toBe(401)
    expect((await get(`/api/v2/desk/plans/${planId}/plan_terms`, staffToken)).status).toBe(404)
  })

  it("is not found for unknown ids, mismatched ids, plans without terms and another business's plans", async () => {
    const withoutTerms = await createPlan(server.pool, businessId, productId, [payer.personId])
    const cases: Array<[string, string]> = [
      [`/api/v2/front/plans/999999/plan_terms`, "No terms found for plan 999999"],
      [`/api/v2/front/plans/${withoutTerms.id}/plan_terms`, `No terms found for plan ${withoutTerms.id}`],
      [`/api/v2/front/plans/${planId}/plan_terms/999999`, "Plan terms 999999 not found"],
      [`/api/v2/front/plans/${planId}/plan_terms/999999/complete`, "Plan terms 999999 not found"],
      [`/api/v2/front/plans/${elsewhere.planId}/plan_terms`, `No terms found for plan ${elsewhere.planId}`],
      [`/api/v2/front/plans/${elsewhere.planId}/plan_terms/${elsewhere.termsId}/complete`, `Plan terms ${elsewhere.termsId} not found`],
      // The right terms id under another plan.
      [`/api/v2/front/plans/${withoutTerms.id}/plan_terms/${termsId}/complete`, `Plan terms ${termsId} not found`]
    ]
    for (const [path, message] of cases) {
      const response = await get(path, payer.token)
      expect(response.status, path).toBe(404)
      expect(response.json).toEqual({ errors: [message] })
    }
    expect((await get(`/api/v2/front/plans/abc/plan_terms`, payer.token)).status).toBe(400)
    expect((await termsRow(termsId)).accepted_at).toBeNull()
    expect((await termsRow(elsewhere.termsId)).accepted_at).toBeNull()
    // The payer's token is for this business only.
    expect((await get(`/api/v2/front/plans/${elsewhere.planId}/plan_terms`, payer.token, `elsewhere.${TEST_BASE_DOMAIN}`)).status).toBe(401)
  })
})
