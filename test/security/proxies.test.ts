import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { randomBytes } from "node:crypto"
import { trustedProxies } from "../../src/platform/trust-proxy.ts"
import { createApplication, createBusiness, createLocation, createPerson, createToken } from "../support/factories.ts"
import { TEST_BASE_DOMAIN, type TestServer, startTestServer } from "../support/server.ts"

/**
 * Issue 29, section 4 (and the headers of section 5): forwarded headers are believed only from a
 * peer TRUST_PROXY names; links in mail come from configuration. The test client connects from
 * 127.0.0.1: to `direct` (TRUST_PROXY unset) it is any client on the internet, to `proxied`
 * (TRUST_PROXY=loopback) it is the load balancer.
 */
let direct: TestServer
let proxied: TestServer
let directToken: string
let proxiedToken: string
const IP_LIMIT = 5

const setUp = async (server: TestServer) => {
  const demo = await createBusiness(server.pool, { subdomain: "demo", name: "Demo Studio" })
  await createBusiness(server.pool, { subdomain: "other", name: "Other Studio" })
  await createApplication(server.pool, "test-app")
  for (let i = 0; i < 3; i++) await createLocation(server.pool, demo.id, { name: `Room ${i}` })
  const owner = await createPerson(server.pool, demo.id, { email: "owner@demo.test", role: "owner" })
  return createToken(server.pool, owner.accountId, demo.id)
}

beforeAll(async () => {
  ;[direct, proxied] = await Promise.all([
    startTestServer({ rateLimitPerIp: 60 }),
    startTestServer({ trustProxy: trustedProxies("loopback"), publicUrl: "https://studio.test:8443", rateLimitPerIp: IP_LIMIT })
  ])
  ;[directToken, proxiedToken] = await Promise.all([setUp(direct), setUp(proxied)])
})
afterAll(async () => Promise.all([direct?.close(), proxied?.close()]))

const resetLinkTo = async (server: TestServer, email: string) => {
  const { rows } = await server.pool.query(
    `select j.payload from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id
     where t.identifier = 'send_mail' and j.payload->>'to' = $1 order by j.id desc limit 1`,
    [email]
  )
  return new URL(/(https?:\/\/\S+\/oauth\/password\/edit\?token=\S+)/.exec(rows[0].payload.text)![1]!)
}

describe("the API reference page", () => {
  it("cannot be framed", async () => {
    const response = await direct.request("GET", "/api/docs")
    expect(response.status).toBe(200)
    expect(response.headers["x-frame-options"]).toBe("DENY")
    expect(response.headers["content-security-policy"]).toContain("frame-ancestors 'none'")
    expect(response.headers["x-content-type-options"]).toBe("nosniff")
  })
})

describe("from a peer that is not a trusted proxy (TRUST_PROXY unset)", () => {
  it("ignores X-Forwarded-Host for tenancy and links", async () => {
    const response = await direct.request("GET", "/api/v2/desk/locations?per_page=1", {
      token: directToken,
      headers: { "x-forwarded-host": `other.${TEST_BASE_DOMAIN}` }
    })
    expect(response.status).toBe(200)
    expect(response.json.locations).toHaveLength(1)
    expect(response.json.next).toMatch(new RegExp(`^http://demo\\.${TEST_BASE_DOMAIN.replace(".", "\\.")}/`))
  })

  it("ignores X-Forwarded-Proto: no https links, no Strict-Transport-Security, but nosniff", async () => {
    const response = await direct.request("GET", "/api/v2/desk/locations?per_page=1", {
      token: directToken,
      headers: { "x-forwarded-proto": "https" }
    })
    expect(response.json.next).toMatch(/^http:\/\//)
    expect(response.headers["strict-transport-security"]).toBeUndefined()
    expect(response.headers["x-content-type-options"]).toBe("nosniff")
  })

  it("builds a reset link from configuration, not from the requester's X-Forwarded-Host or Host", async () => {
    await createPerson(direct.pool, (await createBusiness(direct.pool)).id, { email: "ada@example.test" })
    const attempts: Array<Record<string, string>> = [{ "x-forwarded-host": `${TEST_BASE_DOMAIN}:4444` }, {}]
    for (const headers of attempts) {
      const response = await direct.request("POST", "/api/v2/account/passwords", {
        host: Object.keys(headers).length === 0 ? `${TEST_BASE_DOMAIN}:4444` : TEST_BASE_DOMAIN,
        headers,
        body: { email: "ada@example.test" }
      })
      expect(response.status).toBe(201)
      const link = await resetLinkTo(direct, "ada@example.test")
      expect(link.origin).toBe(`http://${TEST_BASE_DOMAIN}`)
    }
  })

  it("keys the per-IP budget on the socket, whatever X-Forwarded-For says", async () => {
    const statuses: Array<number> = []
    for (let i = 0; i < 70 && !statuses.includes(429); i++) {
      const response = await direct.request("GET", "/healthz", { headers: { "x-forwarded-for": `198.51.100.${i + 1}` } })
      statuses.push(response.status)
    }
    expect(statuses).toContain(429)
    expect(statuses.length).toBeLessThanOrEqual(61)
  })
})

describe("from a trusted proxy (TRUST_PROXY=loopback)", () => {
  it("keys the per-IP budget on the right-most untrusted X-Forwarded-For address", async () => {
    const as = (client: string, forwardedFor = client) =>
      proxied.request("GET", "/healthz", { headers: { "x-forwarded-for": forwardedFor } })
    const statuses: Array<number> = []
    for (let i = 0; i < IP_LIMIT + 1; i++) statuses.push((await as("203.0.113.1")).status)
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429])
    // Another client behind the same load balancer has a budget of its own.
    expect((await as("203.0.113.2")).status).toBe(200)
    // Addresses the client writes to the left, or loopback hops (trusted) to the right, change nothing.
    expect((await as("203.0.113.1", "10.9.8.7, 203.0.113.1")).status).toBe(429)
    expect((await as("203.0.113.1", "203.0.113.1, 127.0.0.2")).status).toBe(429)
  })

  it("writes no rate-limit row for random bearer tokens from a refused address", async () => {
    const client = "203.0.113.50"
    for (let i = 0; i < IP_LIMIT; i++) await proxied.request("GET", "/healthz", { headers: { "x-forwarded-for": client } })
    const count = async () => Number((await proxied.pool.query("select count(*) as n from rate_limit_budgets")).rows[0].n)
    const before = await count()
    for (let i = 0; i < 20; i++) {
      const response = await proxied.request("GET", "/api/v2/desk/locations", {
        token: randomBytes(24).toString("hex"),
        headers: { "x-forwarded-for": client }
      })
      expect(response.status).toBe(429)
    }
    expect(await count()).toBe(before)
  })

  it("honours X-Forwarded-Host and X-Forwarded-Proto: https links and Strict-Transport-Security", async () => {
    const response = await proxied.request("GET", "/api/v2/desk/locations?per_page=1", {
      host: "internal-lb:3000",
      token: proxiedToken,
      headers: { "x-forwarded-host": `demo.${TEST_BASE_DOMAIN}`, "x-forwarded-proto": "https", "x-forwarded-for": "203.0.113.60" }
    })
    expect(response.status).toBe(200)
    expect(response.json.next).toMatch(new RegExp(`^https://demo\\.${TEST_BASE_DOMAIN.replace(".", "\\.")}/`))
    expect(response.headers["strict-transport-security"]).toBe("max-age=31536000")
    expect(response.headers["x-content-type-options"]).toBe("nosniff")
  })

  it("still builds mail links from configuration (PUBLIC_URL and the business's subdomain)", async () => {
    await createPerson(proxied.pool, (await createBusiness(proxied.pool)).id, { email: "bob@example.test" })
    const response = await proxied.request("POST", "/api/v2/account/passwords", {
      host: TEST_BASE_DOMAIN,
      headers: { "x-forwarded-host": `${TEST_BASE_DOMAIN}:4444`, "x-forwarded-for": "203.0.113.61" },
      body: { email: "bob@example.test" }
    })
    expect(response.status).toBe(201)
    expect((await resetLinkTo(proxied, "bob@example.test")).origin).toBe(`https://${TEST_BASE_DOMAIN}:8443`)

    const invite = await proxied.request("POST", "/api/v2/desk/people", {
      token: proxiedToken,
      headers: { "x-forwarded-host": `demo.${TEST_BASE_DOMAIN}:4444`, "x-forwarded-for": "203.0.113.62" },
      body: { person: { first_name: "Ivy", last_name: "Invited", email: "ivy@example.test", send_invite: true } }
    })
    expect(invite.status).toBe(201)
    expect((await resetLinkTo(proxied, "ivy@example.test")).origin).toBe(`https://demo.${TEST_BASE_DOMAIN}:8443`)
  })
})
