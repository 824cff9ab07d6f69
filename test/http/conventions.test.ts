import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createApplication, createBusiness, createLocation, createPerson, createToken } from "../support/factories.ts"
import { TEST_BASE_DOMAIN, type TestServer, startTestServer } from "../support/server.ts"
import { trustedProxies } from "../../src/platform/trust-proxy.ts"

/** The conventions every endpoint shares (compatibility notes), seen through real endpoints. */
let server: TestServer
let demo: { id: number; subdomain: string }
let other: { id: number; subdomain: string }
let ownerToken: string
let accountWideToken: string
let clientToken: string
let otherBusinessToken: string
const host = (subdomain: string) => `${subdomain}.${TEST_BASE_DOMAIN}`

beforeAll(async () => {
  // The test client stands for the load balancer: its X-Forwarded-Proto is believed.
  server = await startTestServer({ trustProxy: trustedProxies("loopback") })
  demo = await createBusiness(server.pool, { subdomain: "demo", name: "Demo Studio", default_locale: "en" })
  other = await createBusiness(server.pool, { subdomain: "other", name: "Other Studio", default_locale: "de" })
  for (let i = 0; i < 5; i++) await createLocation(server.pool, demo.id, { name: `Room ${i}`, position: i })
  await createLocation(server.pool, other.id, { name: "Elsewhere" })
  await createApplication(server.pool, "test-app")
  const owner = await createPerson(server.pool, demo.id, { email: "owner@demo.test", role: "owner" })
  ownerToken = await createToken(server.pool, owner.accountId, demo.id)
  accountWideToken = await createToken(server.pool, owner.accountId, null)
  const client = await createPerson(server.pool, demo.id, { email: "client@demo.test" })
  clientToken = await createToken(server.pool, client.accountId, demo.id)
  const stranger = await createPerson(server.pool, other.id, { email: "staff@other.test", role: "owner" })
  otherBusinessToken = await createToken(server.pool, stranger.accountId, other.id)
})
afterAll(async () => server?.close())

describe("responses", () => {
  it("wrap records in the pluralized root key, also for one record", async () => {
    const one = await server.request("GET", "/api/v2/front/business?client_id=test-app")
    expect(one.status).toBe(200)
    expect(one.json.businesses).toHaveLength(1)
    expect(one.json.businesses[0]).toMatchObject({ id: demo.id, subdomain: "demo", name: "Demo Studio" })
  })

  it("treat a .json suffix as the same endpoint", async () => {
    const plain = await server.request("GET", "/api/v2/desk/locations", { token: ownerToken })
    const suffixed = await server.request("GET", "/api/v2/desk/locations.json", { token: ownerToken })
    expect(suffixed.status).toBe(200)
    expect(suffixed.json).toEqual(plain.json)
    const single = await server.request("GET", `/api/v2/desk/locations/${plain.json.locations[0].id}.json`, { token: ownerToken })
    expect(single.json.locations[0].id).toBe(plain.json.locations[0].id)
  })

  it("answer unknown routes with a JSON 404", async () => {
    const response = await server.request("GET", "/api/v2/front/nothing-here?client_id=test-app")
    expect(response.status).toBe(404)
    expect(response.headers["content-type"]).toContain("application/json")
    expect(response.json.errors[0]).toContain("/api/v2/front/nothing-here")
  })

  it("carry a request id, echoing a sane incoming one", async () => {
    const generated = await server.request("GET", "/healthz")
    expect(generated.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/)
    const echoed = await server.request("GET", "/healthz", { headers: { "x-request-id": "abc-123" } })
    expect(echoed.headers["x-request-id"]).toBe("abc-123")
    const replaced = await server.request("GET", "/healthz", { headers: { "x-request-id": "bad id with spaces" } })
    expect(replaced.headers["x-request-id"]).not.toBe("bad id with spaces")
  })
})

describe("tenancy by host", () => {
  it("answers 404 JSON for an unknown subdomain", async () => {
    const response = await server.request("GET", "/api/v2/front/business?client_id=test-app", { host: host("nope") })
    expect(response.status).toBe(404)
    expect(response.json.errors).toEqual([`No business is served at nope.${TEST_BASE_DOMAIN}`])
  })

  it("answers 404 for a host outside the base domain", async () => {
    const response = await server.request("GET", "/api/v2/front/business?client_id=test-app", { host: "example.com" })
    expect(response.status).toBe(404)
    expect(response.json.errors[0]).toContain("example.com")
  })

  it("ignores the port and the case of the host", async () => {
    const response = await server.request("GET", "/api/v2/front/business?client_id=test-app", {
      host: `DEMO.${TEST_BASE_DOMAIN.toUpperCase()}:8080`
    })
    expect(response.status).toBe(200)
    expect(response.json.businesses[0].subdomain).toBe("demo")
  })

  it("refuses business endpoints on the account-level host", async () => {
    const response = await server.request("GET", "/api/v2/desk/business", { host: TEST_BASE_DOMAIN, token: accountWideToken })
    expect(response.status).toBe(404)
    expect(response.json.errors[0]).toContain("business host")
  })

  it("serves each business its own records", async () => {
    const demoLocations = await server.request("GET", "/api/v2/desk/locations", { token: ownerToken })
    const otherLocations = await server.request("GET", "/api/v2/desk/locations", { host: host("other"), token: otherBusinessToken })
    expect(demoLocations.json.locations.map((l: { name: string }) => l.name)).not.toContain("Elsewhere")
    expect(otherLocations.json.locations.map((l: { name: string }) => l.name)).toEqual(["Elsewhere"])
  })

  it("answers health checks on any host", async () => {
    expect((await server.request("GET", "/healthz", { host: "10.0.0.7:3000" })).json).toEqual({ status: "ok" })
    expect((await server.request("GET", "/readyz", { host: "10.0.0.7:3000" })).json).toMatchObject({ status: "ok" })
  })
})

describe("access tokens", () => {
  it("are accepted as a Bearer header and as the access_token query parameter", async () => {
    expect((await server.request("GET", "/api/v2/desk/business", { token: ownerToken })).status).toBe(200)
    expect((await server.request("GET", `/api/v2/desk/business?access_token=${ownerToken}`)).status).toBe(200)
  })

  it("are required on desk endpoints", async () => {
    const response = await server.request("GET", "/api/v2/desk/business")
    expect(response.status).toBe(401)
    expect(response.json).toEqual({ error: "An access token is required" })
  })

  it("are refused when unknown", async () => {
    const response = await server.request("GET", "/api/v2/desk/business", { token: "x".repeat(43) })
    expect(response.status).toBe(401)
    expect(response.json.error).toContain("invalid")
  })

  it("granted for one business are refused on another business's host", async () => {
    const response = await server.request("GET", "/api/v2/desk/business", { host: host("other"), token: ownerToken })
    expect(response.status).toBe(401)
    expect(response.json.error).toBe("The access token was granted for another business")
    const front = await server.request("GET", "/api/v2/front/locations", { host: host("other"), token: clientToken })
    expect(front.status).toBe(401)
  })

  it("granted on the account-level host work on every business host of the account", async () => {
    const response = await server.request("GET", "/api/v2/desk/business", { token: accountWideToken })
    expect(response.status).toBe(200)
    expect(response.json.businesses[0].id).toBe(demo.id)
  })

  it("of a client are refused on desk endpoints with 403", async () => {
    const response = await server.request("GET", "/api/v2/desk/locations", { token: clientToken })
    expect(response.status).toBe(403)
    expect(response.json.error).toContain("staff")
  })

  it("stop working once revoked", async () => {
    const person = await createPerson(server.pool, demo.id, { role: "manager" })
    const token = await createToken(server.pool, person.accountId, demo.id)
    expect((await server.request("GET", "/api/v2/desk/business", { token })).status).toBe(200)
    // Revoked behind the service's back: the write's notification empties the cached grant
    // (docs/scaling.md), within a second rather than at the end of the cache's five seconds.
    await server.pool.query("update access_tokens set revoked_at = now() where account_id = $1", [person.accountId])
    const deadline = Date.now() + 1_000
    let status = 200
    while (status !== 401 && Date.now() < deadline) {
      status = (await server.request("GET", "/api/v2/desk/business", { token })).status
      if (status !== 401) await new Promise((resolve) => setTimeout(resolve, 50))
    }
    expect(status).toBe(401)
  })

  it("of demoted staff no longer open staff mode", async () => {
    const person = await createPerson(server.pool, demo.id, { role: "demoted" })
    const token = await createToken(server.pool, person.accountId, demo.id)
    const response = await server.request("GET", "/api/v2/desk/business", { token })
    expect(response.status).toBe(403)
  })
})

describe("unauthenticated client-mode calls", () => {
  it("need client_id, else an error object", async () => {
    const response = await server.request("GET", "/api/v2/front/business")
    expect(response.status).toBe(401)
    expect(response.json).toEqual({
      error: "The application client id (client_id) is required for unauthenticated requests"
    })
  })

  it("refuse an unknown client_id", async () => {
    const response = await server.request("GET", "/api/v2/front/locations?client_id=who-knows")
    expect(response.status).toBe(401)
    expect(response.json).toEqual({ error: "Unknown application client id" })
  })

  it("work with a token and no client_id", async () => {
    expect((await server.request("GET", "/api/v2/front/locations", { token: clientToken })).status).toBe(200)
  })
})

describe("pagination", () => {
  it("gives total_count and absolute next/prev URLs only when they exist", async () => {
    const first = await server.request("GET", "/api/v2/desk/locations?per_page=2", { token: ownerToken })
    expect(first.json.total_count).toBe(5)
    expect(first.json.locations.map((l: { name: string }) => l.name)).toEqual(["Room 0", "Room 1"])
    expect(first.json.prev).toBeUndefined()
    expect(first.json.next).toBe(`http://demo.${TEST_BASE_DOMAIN}/api/v2/desk/locations?per_page=2&page=2`)

    const seen: Array<string> = []
    let url: string | undefined = "/api/v2/desk/locations?per_page=2"
    while (url) {
      const page = await server.request("GET", url.replace(/^https?:\/\/[^/]+/, ""), { token: ownerToken })
      seen.push(...page.json.locations.map((l: { name: string }) => l.name))
      url = page.json.next
    }
    expect(seen).toEqual(["Room 0", "Room 1", "Room 2", "Room 3", "Room 4"])

    const last = await server.request("GET", "/api/v2/desk/locations?per_page=2&page=3", { token: ownerToken })
    expect(last.json.next).toBeUndefined()
    expect(last.json.prev).toBe(`http://demo.${TEST_BASE_DOMAIN}/api/v2/desk/locations?per_page=2&page=2`)
  })

  it("uses the scheme a trusted proxy reports", async () => {
    const response = await server.request("GET", "/api/v2/desk/locations?per_page=1", {
      token: ownerToken,
      headers: { "x-forwarded-proto": "https" }
    })
    expect(response.json.next).toMatch(/^https:\/\//)
  })

  it("keeps total_count past the last page", async () => {
    const response = await server.request("GET", "/api/v2/desk/locations?per_page=2&page=9", { token: ownerToken })
    expect(response.json.locations).toEqual([])
    expect(response.json.total_count).toBe(5)
    expect(response.json.next).toBeUndefined()
    expect(response.json.prev).toContain("page=3")
  })

  it("clamps per_page to 100", async () => {
    const response = await server.request("GET", "/api/v2/desk/locations?per_page=500", { token: ownerToken })
    expect(response.status).toBe(200)
    expect(response.json.locations).toHaveLength(5)
  })

  it("refuses a page or per_page that is not a positive integer", async () => {
    for (const query of ["page=0", "page=-1", "page=abc", "per_page=0", "per_page=1.5"]) {
      const response = await server.request("GET", `/api/v2/desk/locations?${query}`, { token: ownerToken })
      expect(response.status, query).toBe(400)
      expect(response.json.errors[0], query).toMatch(/^(page|per_page) must be a positive integer$/)
    }
  })
})

describe("locale", () => {
  it("translates messages per X-FD-Locale", async () => {
    const response = await server.request("GET", "/api/v2/desk/locations/999999", {
      token: ownerToken,
      headers: { "x-fd-locale": "de" }
    })
    expect(response.status).toBe(404)
    expect(response.json.errors).toEqual(["Standort 999999 nicht gefunden"])
  })

  it("falls back to the business default locale, then to en", async () => {
    const german = await server.request("GET", "/api/v2/desk/locations/abc", { host: host("other"), token: otherBusinessToken })
    expect(german.json.errors[0]).not.toContain("must be")
    const unsupported = await server.request("GET", "/api/v2/desk/locations/abc", {
      token: ownerToken,
      headers: { "x-fd-locale": "xx-YY" }
    })
    expect(unsupported.json.errors).toEqual(["id must be a positive integer"])
  })

  it("applies to every one of the 12 locales", async () => {
    const messages = new Set<string>()
    for (const locale of ["de", "en", "en-GB", "es-ES", "sv", "ru-RU", "fr", "pt-BR", "nl-NL", "lt-LT", "zh-CN", "zh-TW"]) {
      const response = await server.request("GET", "/api/v2/front/nothing", {
        token: clientToken,
        headers: { "x-fd-locale": locale }
      })
      expect(response.status).toBe(404)
      messages.add(response.json.errors[0])
    }
    expect(messages.size).toBeGreaterThanOrEqual(11)
  })
})

describe("bad input", () => {
  it("names the parameter of the wrong type", async () => {
    const response = await server.request("GET", "/api/v2/front/locations/12x?client_id=test-app")
    expect(response.status).toBe(400)
    expect(response.json).toEqual({ errors: ["id must be a positive integer"] })
  })

  it("treats another business's id as not found", async () => {
    const elsewhere = await server.pool.query("select id from locations where business_id = $1", [other.id])
    const response = await server.request("GET", `/api/v2/desk/locations/${elsewhere.rows[0].id}`, { token: ownerToken })
    expect(response.status).toBe(404)
  })
})

describe("bodies of an unsupported content type", () => {
  it("answer 415 with the error model, translated", async () => {
    const body = "first_name=Ada"
    const response = await server.request("POST", "/api/v2/desk/people", {
      token: ownerToken,
      body,
      headers: { "content-type": "text/plain" }
    })
    expect(response.status).toBe(415)
    expect(response.headers["content-type"]).toContain("application/json")
    expect(response.json).toEqual({
      errors: [
        "The request body's content type text/plain is not supported; send application/json or application/x-www-form-urlencoded"
      ]
    })
    const german = await server.request("POST", "/api/v2/desk/people", {
      token: ownerToken,
      body,
      headers: { "content-type": "text/plain; charset=utf-8", "x-fd-locale": "de" }
    })
    expect(german.status).toBe(415)
    expect(german.json.errors).toEqual([
      "Der Inhaltstyp text/plain des Anfragetexts wird nicht unterstützt; senden Sie application/json oder application/x-www-form-urlencoded"
    ])
  })
})
