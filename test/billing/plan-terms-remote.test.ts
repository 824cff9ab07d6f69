import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeSettableClock } from "../support/clock.ts"
import { createBusiness, createPerson, createToken } from "../support/factories.ts"
import { createPlan, createPlanProduct } from "../support/billing-factories.ts"
import { type TestServer, startTestServer } from "../support/server.ts"

/**
 * Document terms with a remote signing provider (SIGNING_PROVIDER=remote): its JSON protocol
 * against a stand-in provider, and the provider out of reach (an empty signing_url, a 422 on
 * complete, never a 500 and nothing written).
 */
const clock = makeSettableClock("2026-11-02T10:00:00Z")

/** A stand-in provider: records the calls, answers envelopes from `statuses`, or fails on demand. */
interface Call {
  readonly method: string
  readonly path: string
  readonly authorization: string | undefined
  readonly body: any
}
const calls: Array<Call> = []
const statuses = new Map<string, string>()
let failing: "none" | "http" | "garbage" = "none"
let provider: http.Server
let providerUrl: string
let deadUrl: string

const startProvider = () =>
  new Promise<void>((resolve) => {
    provider = http.createServer((request, response) => {
      const chunks: Array<Buffer> = []
      request.on("data", (chunk: Buffer) => chunks.push(chunk))
      request.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8")
        calls.push({ method: request.method!, path: request.url!, authorization: request.headers.authorization, body: text ? JSON.parse(text) : undefined })
        const json = (status: number, body: unknown) => {
          response.writeHead(status, { "content-type": "application/json" })
          response.end(JSON.stringify(body))
        }
        if (failing === "http") return json(503, { error: "down" })
        if (failing === "garbage") return json(200, { something: "else" })
        let match: RegExpMatchArray | null
        if (request.method === "POST" && request.url === "/v1/envelopes") {
          const id = `env-${statuses.size + 1}`
          statuses.set(id, "pending")
          return json(201, { id })
        }
        if (request.method === "POST" && (match = request.url!.match(/^\/v1\/envelopes\/([^/]+)\/signing_sessions$/))) {
          return json(201, { url: `https://signing.example/s/${match[1]}?session=1` })
        }
        if (request.method === "GET" && (match = request.url!.match(/^\/v1\/envelopes\/([^/]+)$/))) {
          const status = statuses.get(decodeURIComponent(match[1]!))
          return status ? json(200, { status }) : json(404, { error: "no such envelope" })
        }
        json(404, { error: "no route" })
      })
    })
    provider.listen(0, "127.0.0.1", () => {
      providerUrl = `http://127.0.0.1:${(provider.address() as AddressInfo).port}/v1/`
      resolve()
    })
  })

/** An address where nothing listens: a port that was free a moment ago. */
const closedPortUrl = () =>
  new Promise<string>((resolve) => {
    const probe = http.createServer()
    probe.listen(0, "127.0.0.1", () => {
      const port = (probe.address() as AddressInfo).port
      probe.close(() => resolve(`http://127.0.0.1:${port}`))
    })
  })

const setUp = async (server: TestServer) => {
  const businessId = (await createBusiness(server.pool, { subdomain: "demo" })).id
  const productId = (await createPlanProduct(server.pool, businessId, { kind: "pack" })).id
  const person = await createPerson(server.pool, businessId, { first_name: "Paula", last_name: "Payer", email: "paula@example.test" })
  const token = await createToken(server.pool, person.accountId, businessId)
  const newTerms = async () => {
    const plan = await createPlan(server.pool, businessId, productId, [person.personId])
    const { rows } = await server.pool.query(
      `insert into plan_terms (business_id, plan_id, payer_person_id, acceptance_type, terms) values ($1, $2, $3, 'document', 'Sign me') returning id`,
      [businessId, plan.id, person.personId]
    )
    return { planId: plan.id, termsId: Number(rows[0].id) }
  }
  return { token, newTerms }
}

beforeAll(async () => {
  await startProvider()
  deadUrl = await closedPortUrl()
})

afterAll(async () => {
  await new Promise((resolve) => provider?.close(resolve))
})

describe("a reachable remote provider", () => {
  let server: TestServer
  let demo: Awaited<ReturnType<typeof setUp>>
  beforeAll(async () => {
    server = await startTestServer({ clock: clock.clock, signingProvider: "remote", signingProviderUrl: providerUrl, signingProviderKey: "k3y" })
    demo = await setUp(server)
  }, 120_000)
  afterAll(async () => {
    await server?.close()
  })

  it("files one envelope for the payer, opens a session per look, and completes on the provider's word", async () => {
    failing = "none"
    calls.length = 0
    const { planId, termsId } = await demo.newTerms()
    const first = await server.request("GET", `/api/v2/front/plans/${planId}/plan_terms`, { token: demo.token })
    expect(first.status, first.text).toBe(200)
    expect(first.json.plan_terms[0].signing_url).toBe("https://signing.example/s/env-1?session=1")
    const returnUrl = expect.stringMatching(
      new RegExp(`^http://demo\\.studio\\.test/api/v2/front/plans/${planId}/plan_terms/${termsId}/complete\\?completion=[A-Za-z0-9_-]{43}$`)
    )
    expect(calls).toEqual([
      {
        method: "POST",
        path: "/v1/envelopes",
        authorization: "Bearer k3y",
        body: { business_id: expect.any(Number), reference: `plan_terms:${termsId}`, signer_name: "Paula Payer", signer_email: "paula@example.test", document_text: "Sign me" }
      },
      { method: "POST", path: "/v1/envelopes/env-1/signing_sessions", authorization: "Bearer k3y", body: { return_url: returnUrl } }
    ])
    await server.request("GET", `/api/v2/front/plans/${planId}/plan_terms/${termsId}`, { token: demo.token })
    expect(calls.filter((call) => call.path === "/v1/envelopes")).toHaveLength(1)

    const complete = `/api/v2/front/plans/${planId}/plan_terms/${termsId}/complete`
    const pending = await server.request("GET", complete, { token: demo.token })
    expect(pending.status).toBe(422)
    expect(pending.json.errors).toEqual(["The terms document has not been signed yet"])
    statuses.set("env-1", "signed")
    const signed = await server.request("GET", complete, { token: demo.token })
    expect(signed.status, signed.text).toBe(200)
    expect(signed.json.plan_terms[0]).toMatchObject({ accepted: true, accepted_at: "2026-11-02T10:00:00Z", signing_url: "" })
  })

  it("degrades when the provider errs or answers nonsense: empty signing_url, 422 on complete, nothing written", async () => {
    for (const mode of ["http", "garbage"] as const) {
      failing = mode
      const { planId, termsId } = await demo.newTerms()
      const terms = await server.request("GET", `/api/v2/front/plans/${planId}/plan_terms`, { token: demo.token })
      expect(terms.status, terms.text).toBe(200)
      expect(terms.json.plan_terms[0]).toMatchObject({ acceptance_type: "document", signing_url: "", accepted: false })
      const row = (await server.pool.query(`select document_id, accepted_at, declined_at from plan_terms where id = $1`, [termsId])).rows[0]
      expect(row).toEqual({ document_id: null, accepted_at: null, declined_at: null })
    }
    // An envelope filed while the provider was up, whose status cannot be read now.
    failing = "none"
    const { planId, termsId } = await demo.newTerms()
    await server.request("GET", `/api/v2/front/plans/${planId}/plan_terms`, { token: demo.token })
    failing = "http"
    const complete = await server.request("GET", `/api/v2/front/plans/${planId}/plan_terms/${termsId}/complete`, { token: demo.token })
    expect(complete.status).toBe(422)
    expect(complete.json.errors).toEqual(["Document signing is unavailable right now; please try again later"])
    failing = "none"
  })
})

describe("an unreachable provider", () => {
  let server: TestServer
  let demo: Awaited<ReturnType<typeof setUp>>
  beforeAll(async () => {
    server = await startTestServer({ clock: clock.clock, signingProvider: "remote", signingProviderUrl: deadUrl })
    demo = await setUp(server)
  }, 120_000)
  afterAll(async () => {
    await server?.close()
  })

  it("gives an empty signing_url and a 422 on complete, never a 500", async () => {
    const { planId, termsId } = await demo.newTerms()
    const terms = await server.request("GET", `/api/v2/front/plans/${planId}/plan_terms`, { token: demo.token })
    expect(terms.status, terms.text).toBe(200)
    expect(terms.json.plan_terms[0]).toMatchObject({ id: termsId, acceptance_type: "document", terms: "Sign me", accepted: false, signing_url: "" })
    // Pretend an envelope was filed before the provider went away.
    await server.pool.query(`update plan_terms set document_id = 'env-gone' where id = $1`, [termsId])
    const complete = await server.request("GET", `/api/v2/front/plans/${planId}/plan_terms/${termsId}/complete`, { token: demo.token })
    expect(complete.status).toBe(422)
    expect(complete.json.errors).toEqual(["Document signing is unavailable right now; please try again later"])
    const row = (await server.pool.query(`select accepted_at, declined_at from plan_terms where id = $1`, [termsId])).rows[0]
    expect(row).toEqual({ accepted_at: null, declined_at: null })
  })

  it("keeps checkbox terms working: they need no provider", async () => {
    const { planId, termsId } = await demo.newTerms()
    await server.pool.query(`update plan_terms set acceptance_type = 'checkbox' where id = $1`, [termsId])
    const complete = await server.request("GET", `/api/v2/front/plans/${planId}/plan_terms/${termsId}/complete`, { token: demo.token })
    expect(complete.status, complete.text).toBe(200)
    expect(complete.json.plan_terms[0]).toMatchObject({ accepted: true, signing_url: null })
  })
})
