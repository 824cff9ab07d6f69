import * as oauth from "oauth4webapi"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { hashClientSecret } from "../../src/access/applications.ts"
import { hashPassword } from "../../src/access/passwords.ts"
import { Browser, loopbackFetch } from "../support/browser-agent.ts"
import { createBusiness, createPerson } from "../support/factories.ts"
import { TEST_BASE_DOMAIN, type TestServer, startTestServer } from "../support/server.ts"

/**
 * The authorization-code flow end to end, with oauth4webapi as the client over real HTTP and a
 * scripted browser for the login and consent pages.
 */
let server: TestServer
const SECRET = "s3cret-of-the-aggregator-app"
const REDIRECT = "https://aggregator.example/callback"
const PASSWORD = "correct horse battery"
const base = (subdomain?: string) => `http://${subdomain ? `${subdomain}.` : ""}${TEST_BASE_DOMAIN}:${server.port}`
const options = { [oauth.allowInsecureRequests]: true, [oauth.customFetch]: loopbackFetch }

const authorizationServer = (subdomain?: string): oauth.AuthorizationServer => ({
  issuer: base(subdomain),
  authorization_endpoint: `${base(subdomain)}/oauth/authorize`,
  token_endpoint: `${base(subdomain)}/oauth/token`,
  revocation_endpoint: `${base(subdomain)}/oauth/revoke`
})
const confidential: oauth.Client = { client_id: "aggregator" }
const publicClient: oauth.Client = { client_id: "mobile", token_endpoint_auth_method: "none" }

beforeAll(async () => {
  server = await startTestServer()
  const demo = await createBusiness(server.pool, { subdomain: "demo", name: "Demo Studio" })
  await createBusiness(server.pool, { subdomain: "other" })
  const owner = await createPerson(server.pool, demo.id, { email: "owner@demo.test", role: "owner" })
  await server.pool.query("update accounts set password_hash = $2 where id = $1", [owner.accountId, await hashPassword(PASSWORD)])
  await server.pool.query(
    `insert into oauth_applications (client_id, client_secret_hash, name, redirect_uri, is_public) values
       ('aggregator', $1, 'Aggregator', $2, false), ('mobile', null, 'Mobile App', $2, true)`,
    [hashClientSecret(SECRET), REDIRECT]
  )
})
afterAll(async () => server?.close())

interface AuthorizeOptions {
  readonly subdomain?: string
  readonly clientId?: string
  readonly redirectUri?: string
  readonly codeChallenge?: string
  readonly state?: string
  readonly decision?: "allow" | "deny"
  readonly password?: string
}

/** Plays the browser: authorize → login page → log in → consent page → allow → the redirect. */
const authorize = async (o: AuthorizeOptions = {}) => {
  const browser = new Browser()
  const url = new URL(`${base(o.subdomain)}/oauth/authorize`)
  url.searchParams.set("client_id", o.clientId ?? "aggregator")
  url.searchParams.set("response_type", "code")
  url.searchParams.set("redirect_uri", o.redirectUri ?? REDIRECT)
  url.searchParams.set("state", o.state ?? "state-123")
  if (o.codeChallenge) {
    url.searchParams.set("code_challenge", o.codeChallenge)
    url.searchParams.set("code_challenge_method", "S256")
  }
  const loginPage = await browser.request(url.toString())
  if (loginPage.status !== 200) return { browser, loginPage }
  const loggedIn = await browser.request(`${base(o.subdomain)}/oauth/login`, {
    form: {
      csrf_token: Browser.field(loginPage.text, "csrf_token")!,
      return_to: Browser.field(loginPage.text, "return_to")!,
      email: "owner@demo.test",
      password: o.password ?? PASSWORD
    }
  })
  if (loggedIn.status !== 303) return { browser, loginPage, loggedIn }
  const consentPage = await browser.request(new URL(loggedIn.location!, base(o.subdomain)).toString())
  const form: Record<string, string> = { decision: o.decision ?? "allow" }
  for (const name of ["csrf_token", "client_id", "response_type", "redirect_uri", "state", "code_challenge", "code_challenge_method"]) {
    const value = Browser.field(consentPage.text, name)
    if (value !== undefined) form[name] = value
  }
  const decided = await browser.request(`${base(o.subdomain)}/oauth/authorize`, { form })
  return { browser, loginPage, loggedIn, consentPage, decided, callback: decided.location ? new URL(decided.location) : undefined }
}

const exchange = async (callback: URL, o: { subdomain?: string; verifier?: string; auth?: oauth.ClientAuth; client?: oauth.Client; redirectUri?: string } = {}) => {
  const as = authorizationServer(o.subdomain)
  const client = o.client ?? confidential
  const params = oauth.validateAuthResponse(as, client, callback, "state-123")
  const response = await oauth.authorizationCodeGrantRequest(
    as,
    client,
    o.auth ?? oauth.ClientSecretPost(SECRET),
    params,
    o.redirectUri ?? REDIRECT,
    o.verifier ?? oauth.nopkce,
    options
  )
  return response
}

const tokenFrom = async (response: Response, client = confidential, subdomain?: string) =>
  (await oauth.processAuthorizationCodeResponse(authorizationServer(subdomain), client, response)).access_token

describe("the authorization-code flow", () => {
  it("shows a branded login page, then consent, then returns a code with the state", async () => {
    const result = await authorize({ subdomain: "demo" })
    expect(result.loginPage.status).toBe(200)
    expect(result.loginPage.text).toContain("Log in to Demo Studio")
    expect(result.loginPage.text).toContain('<html lang="en">')
    expect(result.consentPage!.text).toContain("Aggregator asks to use your account owner@demo.test at Demo Studio")
    expect(result.decided!.status).toBe(303)
    expect(result.callback!.origin + result.callback!.pathname).toBe(REDIRECT)
    expect(result.callback!.searchParams.get("state")).toBe("state-123")
    expect(result.callback!.searchParams.get("code")).toMatch(/^[0-9a-f]{64}$/)
  })

  it("exchanges the code for a business-limited token (client_secret_post, no PKCE) that works on the API", async () => {
    const { callback } = await authorize({ subdomain: "demo" })
    const response = await exchange(callback!, { subdomain: "demo" })
    expect(response.headers.get("cache-control")).toBe("no-store")
    const token = await tokenFrom(response, confidential, "demo")
    const desk = await server.request("GET", "/api/v2/desk/business", { token })
    expect(desk.status).toBe(200)
    expect(desk.json.businesses[0].subdomain).toBe("demo")
    // Limited to the business where it was granted.
    const elsewhere = await server.request("GET", "/api/v2/desk/business", { token, host: `other.${TEST_BASE_DOMAIN}` })
    expect(elsewhere.status).toBe(401)
    const account = await server.request("GET", "/api/v2/account", { token, host: TEST_BASE_DOMAIN })
    expect(account.status).toBe(401)
  })

  it("answers exactly the token JSON of the spec", async () => {
    const { callback } = await authorize({ subdomain: "demo" })
    const body = (await (await exchange(callback!, { subdomain: "demo" })).json()) as Record<string, unknown>
    expect(Object.keys(body).sort()).toEqual(["access_token", "token_type"])
    expect(body.token_type).toBe("bearer")
  })

  it("works with client_secret_basic and with PKCE", async () => {
    const verifier = oauth.generateRandomCodeVerifier()
    const challenge = await oauth.calculatePKCECodeChallenge(verifier)
    const { callback } = await authorize({ subdomain: "demo", codeChallenge: challenge })
    const token = await tokenFrom(await exchange(callback!, { subdomain: "demo", verifier, auth: oauth.ClientSecretBasic(SECRET) }))
    expect((await server.request("GET", "/api/v2/desk/locations", { token })).status).toBe(200)
  })

  it("gives public clients a token with PKCE and no secret, and refuses them without PKCE", async () => {
    const verifier = oauth.generateRandomCodeVerifier()
    const { callback } = await authorize({ subdomain: "demo", clientId: "mobile", codeChallenge: await oauth.calculatePKCECodeChallenge(verifier) })
    const response = await exchange(callback!, { subdomain: "demo", client: publicClient, auth: oauth.None(), verifier })
    expect(await tokenFrom(response, publicClient, "demo")).toBeTruthy()

    const withoutPkce = await authorize({ subdomain: "demo", clientId: "mobile" })
    expect(withoutPkce.loginPage.status).toBe(302)
    const location = new URL(withoutPkce.loginPage.location!)
    expect(location.searchParams.get("error")).toBe("invalid_request")
    expect(location.searchParams.get("state")).toBe("state-123")
  })

  it("grants an account-wide token on the account-level host", async () => {
    const { loginPage, callback } = await authorize()
    expect(loginPage.text).toContain("Log in to your account")
    const token = await tokenFrom(await exchange(callback!))
    const account = await server.request("GET", "/api/v2/account", { token, host: TEST_BASE_DOMAIN })
    expect(account.status).toBe(200)
    expect(account.json.accounts[0].email).toBe("owner@demo.test")
    const businesses = await server.request("GET", "/api/v2/account/businesses", { token, host: TEST_BASE_DOMAIN })
    expect(businesses.json.businesses.map((b: { subdomain: string }) => b.subdomain)).toEqual(["demo"])
    // Account-wide tokens work on the account's business hosts too.
    expect((await server.request("GET", "/api/v2/desk/business", { token })).status).toBe(200)
  })

  it("revokes a token through /oauth/revoke", async () => {
    const { callback } = await authorize({ subdomain: "demo" })
    const token = await tokenFrom(await exchange(callback!, { subdomain: "demo" }))
    const response = await oauth.revocationRequest(authorizationServer("demo"), confidential, oauth.ClientSecretPost(SECRET), token, options)
    expect(response.status).toBe(200)
    expect((await server.request("GET", "/api/v2/desk/business", { token })).status).toBe(401)
  })
})

describe("refusals", () => {
  const tokenError = async (response: Response) => ({ status: response.status, body: (await response.json()) as unknown })

  it("shows an error page, without redirecting, for a wrong redirect_uri or an unknown client", async () => {
    const wrongRedirect = await authorize({ subdomain: "demo", redirectUri: "https://evil.example/callback" })
    expect(wrongRedirect.loginPage.status).toBe(400)
    expect(wrongRedirect.loginPage.location).toBeNull()
    expect(wrongRedirect.loginPage.text).toContain("return address it has not registered")
    const unknown = await authorize({ subdomain: "demo", clientId: "nobody" })
    expect(unknown.loginPage.status).toBe(400)
  })

  it("refuses a redirect_uri at the token endpoint other than the authorization request's", async () => {
    const { callback } = await authorize({ subdomain: "demo" })
    const response = await exchange(callback!, { subdomain: "demo", redirectUri: "https://aggregator.example/other" })
    expect(await tokenError(response)).toMatchObject({ status: 400, body: { error: "invalid_grant" } })
  })

  it("refuses a reused code and revokes the token it produced", async () => {
    const { callback } = await authorize({ subdomain: "demo" })
    const token = await tokenFrom(await exchange(callback!, { subdomain: "demo" }))
    expect((await server.request("GET", "/api/v2/desk/business", { token })).status).toBe(200)
    const replay = await exchange(callback!, { subdomain: "demo" })
    expect(await tokenError(replay)).toMatchObject({ status: 400, body: { error: "invalid_grant" } })
    expect((await server.request("GET", "/api/v2/desk/business", { token })).status).toBe(401)
  })

  it("refuses an expired code", async () => {
    const { callback } = await authorize({ subdomain: "demo" })
    await server.pool.query("update oauth_authorization_codes set expires_at = now() - interval '1 second' where used_at is null")
    const response = await exchange(callback!, { subdomain: "demo" })
    expect(await tokenError(response)).toMatchObject({ status: 400, body: { error: "invalid_grant" } })
  })

  it("refuses a wrong client secret with 401 invalid_client", async () => {
    const { callback } = await authorize({ subdomain: "demo" })
    const post = await exchange(callback!, { subdomain: "demo", auth: oauth.ClientSecretPost("wrong") })
    expect(await tokenError(post)).toMatchObject({ status: 401, body: { error: "invalid_client" } })
    const basic = await exchange(callback!, { subdomain: "demo", auth: oauth.ClientSecretBasic("wrong") })
    expect(basic.status).toBe(401)
    expect(basic.headers.get("www-authenticate")).toContain("Basic")
  })

  it("refuses a wrong PKCE verifier", async () => {
    const verifier = oauth.generateRandomCodeVerifier()
    const { callback } = await authorize({ subdomain: "demo", codeChallenge: await oauth.calculatePKCECodeChallenge(verifier) })
    const response = await exchange(callback!, { subdomain: "demo", verifier: oauth.generateRandomCodeVerifier() })
    expect(await tokenError(response)).toMatchObject({ status: 400, body: { error: "invalid_grant" } })
  })

  it("returns access_denied when the user denies", async () => {
    const { decided } = await authorize({ subdomain: "demo", decision: "deny" })
    const location = new URL(decided!.location!)
    expect(location.searchParams.get("error")).toBe("access_denied")
    expect(location.searchParams.get("code")).toBeNull()
  })

  it("keeps the login page with a helpful error for a wrong password", async () => {
    const { loggedIn } = await authorize({ subdomain: "demo", password: "not it" })
    expect(loggedIn!.status).toBe(401)
    expect(loggedIn!.text).toContain('role="alert"')
    expect(loggedIn!.text).toContain("The e-mail address or the password is not right")
    expect(loggedIn!.text).toContain('value="owner@demo.test"')
  })

  it("refuses a login form without its CSRF token", async () => {
    const browser = new Browser()
    const response = await browser.request(`${base("demo")}/oauth/login`, {
      form: { email: "owner@demo.test", password: PASSWORD, return_to: "/oauth/authorize?client_id=aggregator" }
    })
    expect(response.status).toBe(403)
  })

  it("answers RFC 6749 errors for a bad grant_type and a missing code", async () => {
    const body = (form: Record<string, string>) =>
      loopbackFetch(`${base("demo")}/oauth/token`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(form).toString() })
    const unsupported = await body({ grant_type: "password", client_id: "aggregator", client_secret: SECRET })
    expect(await tokenError(unsupported)).toMatchObject({ status: 400, body: { error: "unsupported_grant_type" } })
    const missing = await body({ grant_type: "authorization_code", client_id: "aggregator", client_secret: SECRET, redirect_uri: REDIRECT })
    expect(await tokenError(missing)).toMatchObject({ status: 400, body: { error: "invalid_request" } })
    const noClient = await body({ grant_type: "authorization_code", code: "x", redirect_uri: REDIRECT })
    expect(noClient.status).toBe(401)
  })
})
