import * as oauth from "oauth4webapi"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Option } from "effect"
import { hashPassword } from "../../src/access/passwords.ts"
import { redirectAccepted } from "../../src/identity/oauth/redirect.ts"
import { Browser, loopbackFetch } from "../support/browser-agent.ts"
import { createBusiness, createPerson } from "../support/factories.ts"
import { TEST_BASE_DOMAIN, type TestServer, startTestServer } from "../support/server.ts"

/**
 * The reports playground over HTTP: the page and every file it loads come from this server with
 * their content types, a self-only CSP and cache headers; the first-party public application
 * exists with no secret; its PKCE flow yields a token that queries reports; its redirect URI is
 * the page on the business host of the authorization and nowhere else.
 */
let server: TestServer
const PASSWORD = "playground password"
const base = (subdomain?: string) => `http://${subdomain ? `${subdomain}.` : ""}${TEST_BASE_DOMAIN}:${server.port}`
const options = { [oauth.allowInsecureRequests]: true, [oauth.customFetch]: loopbackFetch }
const client: oauth.Client = { client_id: "reports-playground", token_endpoint_auth_method: "none" }
const authorizationServer = (subdomain: string): oauth.AuthorizationServer => ({
  issuer: base(subdomain),
  authorization_endpoint: `${base(subdomain)}/oauth/authorize`,
  token_endpoint: `${base(subdomain)}/oauth/token`,
  revocation_endpoint: `${base(subdomain)}/oauth/revoke`
})

const get = (path: string, o: { subdomain?: string; headers?: Record<string, string> } = { subdomain: "demo" }) =>
  loopbackFetch(`${base(o.subdomain)}${path}`, { headers: o.headers ?? {} })

beforeAll(async () => {
  server = await startTestServer()
  const demo = await createBusiness(server.pool, { subdomain: "demo", name: "Demo Studio" })
  await createBusiness(server.pool, { subdomain: "other" })
  const owner = await createPerson(server.pool, demo.id, { email: "owner@demo.test", role: "owner" })
  await server.pool.query("update accounts set password_hash = $2 where id = $1", [owner.accountId, await hashPassword(PASSWORD)])
})
afterAll(async () => server?.close())

/** Plays the browser through login and consent; answers the consent POST's redirect. */
const authorize = async (subdomain: string, redirectUri: string, challenge: string) => {
  const browser = new Browser()
  const url = new URL(`${base(subdomain)}/oauth/authorize`)
  for (const [k, v] of Object.entries({ client_id: "reports-playground", response_type: "code", redirect_uri: redirectUri, state: "s-1", code_challenge: challenge, code_challenge_method: "S256" })) {
    url.searchParams.set(k, v)
  }
  const loginPage = await browser.request(url.toString())
  if (loginPage.status !== 200) return { loginPage }
  const loggedIn = await browser.request(`${base(subdomain)}/oauth/login`, {
    form: { csrf_token: Browser.field(loginPage.text, "csrf_token")!, return_to: Browser.field(loginPage.text, "return_to")!, email: "owner@demo.test", password: PASSWORD }
  })
  const consentPage = await browser.request(new URL(loggedIn.location!, base(subdomain)).toString())
  const form: Record<string, string> = { decision: "allow" }
  for (const name of ["csrf_token", "client_id", "response_type", "redirect_uri", "state", "code_challenge", "code_challenge_method"]) {
    const value = Browser.field(consentPage.text, name)
    if (value !== undefined) form[name] = value
  }
  const decided = await browser.request(`${base(subdomain)}/oauth/authorize`, { form })
  return { loginPage, consentPage, decided }
}

/** Every path the page and its modules load, followed from the HTML through static and dynamic imports. */
const loadedFiles = async () => {
  const html = await (await get("/reports")).text()
  const queue = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => new URL(m[1]!, `${base("demo")}/reports`).pathname)
  const seen = new Map<string, Response & { body_: string }>()
  while (queue.length > 0) {
    const path = queue.shift()!
    if (seen.has(path)) continue
    const response = await get(path)
    const text = await response.text()
    seen.set(path, Object.assign(response, { body_: text }))
    if (!path.endsWith(".js")) continue
    for (const m of text.matchAll(/(?:from\s*|import\s*\(\s*)"(\.\/[^"]+)"/g)) queue.push(new URL(m[1]!, `${base("demo")}${path}`).pathname)
  }
  return { html, files: seen }
}

describe("the playground page", () => {
  it("is served on a business host as HTML with a self-only CSP and revalidation", async () => {
    const response = await get("/reports")
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8")
    const csp = response.headers.get("content-security-policy")!
    expect(csp).toContain("default-src 'none'")
    expect(csp).toContain("script-src 'self'")
    expect(csp).toContain("connect-src 'self'")
    expect(csp).toContain("frame-ancestors 'none'")
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|https?:|\*/)
    expect(response.headers.get("cache-control")).toBe("no-cache")
    expect(response.headers.get("x-content-type-options")).toBe("nosniff")
    const etag = response.headers.get("etag")!
    expect(etag).toMatch(/^"[\w-]+"$/)
    const again = await get("/reports", { subdomain: "demo", headers: { "if-none-match": etag } })
    expect(again.status).toBe(304)
  })

  it("loads only files of this server, each with its type and the CSP, and names no other origin", async () => {
    const { html, files } = await loadedFiles()
    expect(html).not.toMatch(/(?:src|href)="(?:https?:)?\/\//)
    expect(html).not.toMatch(/<script>|<style>|style="/)
    const paths = [...files.keys()]
    expect(paths).toEqual(expect.arrayContaining(["/reports/assets/playground.css", "/reports/assets/app.js", "/reports/assets/chart.js", "/reports/assets/echarts.esm.min.mjs"]))
    for (const [path, response] of files) {
      expect(response.status, path).toBe(200)
      expect(response.headers.get("content-type"), path).toBe(path.endsWith(".css") ? "text/css; charset=utf-8" : "text/javascript; charset=utf-8")
      expect(response.headers.get("content-security-policy"), path).toContain("default-src 'none'")
      expect(response.headers.get("cache-control"), path).toMatch(/no-cache|max-age=\d+/)
      // Our own modules name no absolute URL at all; the library imports nothing from elsewhere.
      if (!path.includes("echarts")) expect(response.body_, path).not.toMatch(/https?:\/\/|\/\/[a-z0-9.-]+\.[a-z]{2,}\//i)
      else expect(response.body_).not.toMatch(/(?:import|from)\s*\(?\s*["']https?:/)
    }
  })

  it("serves no file beyond its list, and no page on the account-level host or an unknown business", async () => {
    for (const path of ["/reports/assets/routes.ts", "/reports/assets/..%2Froutes.ts", "/reports/assets/index.html", "/reports/assets/constructor"]) {
      expect((await get(path)).status, path).toBe(404)
    }
    const account = await get("/reports", { subdomain: undefined })
    expect(account.status).toBe(404)
    expect(await account.text()).toContain("Open the playground on your business's address")
    expect((await get("/reports", { subdomain: "nosuchstudio" })).status).toBe(404)
  })
})

describe("the playground's OAuth application", () => {
  it("is registered on first use, public, without a secret, its redirect the page on the business host", async () => {
    const registered = () => server.pool.query("select client_secret_hash, redirect_uri, is_public from oauth_applications where client_id = 'reports-playground'")
    // A fresh database (production's first start too) holds no application at all.
    expect((await registered()).rows).toEqual([])
    const challenge = await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier())
    const { loginPage } = await authorize("demo", `${base("demo")}/reports`, challenge)
    expect(loginPage.status).toBe(200)
    expect(loginPage.text).toContain("Reports playground")
    expect((await registered()).rows).toEqual([{ client_secret_hash: null, redirect_uri: "/reports", is_public: true }])
    await authorize("demo", `${base("demo")}/reports`, challenge)
    expect((await registered()).rows).toHaveLength(1)
  })

  it("gives a token through authorization code with PKCE and no secret, which queries reports", async () => {
    const verifier = oauth.generateRandomCodeVerifier()
    const redirectUri = `${base("demo")}/reports`
    const { consentPage, decided } = await authorize("demo", redirectUri, await oauth.calculatePKCECodeChallenge(verifier))
    expect(consentPage!.text).toContain("Reports playground asks to use your account owner@demo.test at Demo Studio")
    const callback = new URL(decided!.location!)
    expect(callback.origin + callback.pathname).toBe(redirectUri)
    const as = authorizationServer("demo")
    const params = oauth.validateAuthResponse(as, client, callback, "s-1")
    const response = await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, redirectUri, verifier, options)
    const token = (await oauth.processAuthorizationCodeResponse(as, client, response)).access_token
    const catalog = await server.request("GET", "/desk/api/v3/reports", { token })
    expect(catalog.status).toBe(200)
    expect(catalog.json.data.map((r: { id: string }) => r.id)).toContain("invoice_items")
    // Signing out revokes it.
    expect((await oauth.revocationRequest(as, client, oauth.None(), token, options)).status).toBe(200)
    expect((await server.request("GET", "/desk/api/v3/reports", { token })).status).toBe(401)
  })

  it("sends codes to no other page and no other host", async () => {
    const challenge = await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier())
    for (const [subdomain, redirect] of [
      ["demo", "https://attacker.example/reports"],
      ["demo", `${base("other")}/reports`],
      ["demo", `${base("demo")}/reports/elsewhere`],
      ["demo", "/reports"],
      [undefined, `${base()}/reports`]
    ] as const) {
      const { loginPage } = await authorize(subdomain as string, redirect, challenge)
      expect(loginPage.status, redirect).toBe(400)
      expect(loginPage.text).not.toContain('name="password"')
    }
  })
})

describe("a registered path as redirect URI", () => {
  it("is that page on the authorizing business host, or on its PUBLIC_URL address, and nothing else", () => {
    const demo = { origin: "http://demo.studio.test:3000", business: Option.some({ subdomain: "demo" }) }
    const behindProxy = { ...server.config, publicUrl: "https://studio.test" }
    expect(redirectAccepted("/reports", "http://demo.studio.test:3000/reports", demo, server.config)).toBe(true)
    expect(redirectAccepted("/reports", "https://demo.studio.test/reports", demo, behindProxy)).toBe(true)
    expect(redirectAccepted("/reports", "https://demo.studio.test/reports", demo, server.config)).toBe(false)
    expect(redirectAccepted("/reports", "https://other.studio.test/reports", demo, behindProxy)).toBe(false)
    expect(redirectAccepted("/reports", "http://demo.studio.test:3000/reports?x=1", demo, server.config)).toBe(false)
    expect(redirectAccepted("/reports", "http://studio.test:3000/reports", { origin: "http://studio.test:3000", business: Option.none() }, server.config)).toBe(false)
    // Other applications keep exact matching.
    expect(redirectAccepted("https://client.example/cb", "https://client.example/cb", demo, server.config)).toBe(true)
    expect(redirectAccepted("https://client.example/cb", "https://client.example/cb/", demo, server.config)).toBe(false)
  })
})
