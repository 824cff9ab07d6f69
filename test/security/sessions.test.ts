import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { hashClientSecret } from "../../src/access/applications.ts"
import { hashPassword } from "../../src/access/passwords.ts"
import { generateToken, hashToken } from "../../src/access/tokens.ts"
import { createBusiness, createPerson } from "../support/factories.ts"
import { type TestResponse } from "../support/http.ts"
import { trustedProxies } from "../../src/platform/trust-proxy.ts"
import { TEST_BASE_DOMAIN, type TestServer, startTestServer } from "../support/server.ts"

/**
 * Issue 29: sign-out and a password change end every copy of the sign-in session; the CSRF
 * token is the server's, rotated at sign-in, in a `__Host-` cookie on https. Each attack is
 * played with the cookies a browser (or someone who copied them) would send.
 */
const EMAIL = "owner@demo.test"
const PASSWORD = "correct horse battery"
const REDIRECT = "https://reports.example/callback"
const AUTHORIZE = `/oauth/authorize?client_id=reporter&response_type=code&redirect_uri=${encodeURIComponent(REDIRECT)}`
let server: TestServer
let accountId: number

beforeAll(async () => {
  // The https test arrives through a proxy of ours (loopback), which says so in X-Forwarded-Proto.
  server = await startTestServer({ trustProxy: trustedProxies("loopback") })
  const demo = await createBusiness(server.pool, { subdomain: "demo", name: "Demo Studio" })
  await createBusiness(server.pool, { subdomain: "other" })
  accountId = (await createPerson(server.pool, demo.id, { email: EMAIL, role: "owner" })).accountId
  await server.pool.query("update accounts set password_hash = $2 where id = $1", [accountId, await hashPassword(PASSWORD)])
  await server.pool.query(
    `insert into oauth_applications (client_id, client_secret_hash, name, redirect_uri, is_public) values ('reporter', $1, 'Reporter', $2, false)`,
    [hashClientSecret("s3cret"), REDIRECT]
  )
}, 120_000)
afterAll(async () => server?.close())

/** A browser's cookies for one host (or a copy of them in someone else's hands). */
class Jar {
  readonly cookies = new Map<string, string>()
  readonly host: string
  readonly headers: Record<string, string>
  constructor(host = `demo.${TEST_BASE_DOMAIN}`, headers: Record<string, string> = {}) {
    this.host = host
    this.headers = headers
  }

  copy(host = this.host) {
    const jar = new Jar(host, this.headers)
    for (const [name, value] of this.cookies) jar.cookies.set(name, value)
    return jar
  }

  async send(method: string, path: string, form?: Record<string, string>): Promise<TestResponse> {
    const headers: Record<string, string> = { ...this.headers }
    if (this.cookies.size > 0) headers["cookie"] = [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ")
    if (form) headers["content-type"] = "application/x-www-form-urlencoded"
    const response = await server.request(method, path, { host: this.host, headers, ...(form ? { body: new URLSearchParams(form).toString() } : {}) })
    for (const line of setCookies(response)) {
      const [pair, ...attributes] = line.split(";")
      const name = pair!.slice(0, pair!.indexOf("=")).trim()
      const value = pair!.slice(pair!.indexOf("=") + 1).trim()
      if (value === "" || attributes.some((attribute) => /^\s*(max-age=0|expires=thu, 01 jan 1970)/i.test(attribute))) this.cookies.delete(name)
      else this.cookies.set(name, value)
    }
    return response
  }
}

const setCookies = (response: TestResponse): Array<string> => {
  const header = response.headers["set-cookie"]
  return header === undefined ? [] : Array.isArray(header) ? header : [header]
}

const authenticityToken = (html: string) => /name="authenticity_token" type="hidden" value="([^"]*)"/.exec(html)?.[1]

/** The scripted sign-in: the form's token, then the credentials. */
const signIn = async (jar: Jar, password = PASSWORD) => {
  const form = await jar.send("GET", "/accounts/sign_in")
  const formToken = authenticityToken(form.text)!
  const signedIn = await jar.send("POST", "/accounts/sign_in", {
    authenticity_token: formToken,
    "account[email]": EMAIL,
    "account[password]": password
  })
  expect(signedIn.status, signedIn.text).toBe(200)
  return { formToken, signedIn, token: authenticityToken(signedIn.text)! }
}

/** What the authorization request shows this jar: the consent (signed in) or the login page. */
const authorizePage = async (jar: Jar) => {
  const page = await jar.send("GET", AUTHORIZE)
  if (page.text.includes("asks to use your account")) return { signedIn: true, token: authenticityToken(page.text)! }
  expect(page.text).toContain('action="/oauth/login"')
  return { signedIn: false, token: undefined }
}

/** Posts the consent; answers the code it got, if any. */
const consent = async (jar: Jar, token: string) => {
  const response = await jar.send("POST", "/oauth/authorize", {
    authenticity_token: token,
    authorize: "1",
    client_id: "reporter",
    response_type: "code",
    redirect_uri: REDIRECT
  })
  const location = response.headers.location
  return { response, code: location ? new URL(location).searchParams.get("code") : null }
}

describe("signing out", () => {
  it("ends every copy of the session: a cookie copied before sign-out reaches consent no more", async () => {
    const browser = new Jar()
    const { token } = await signIn(browser)
    const thief = browser.copy()
    const before = await authorizePage(thief)
    expect(before.signedIn).toBe(true)

    const out = await browser.send("POST", "/accounts/sign_out", { authenticity_token: token })
    expect(out.status).toBe(303)
    expect((await authorizePage(browser)).signedIn).toBe(false)

    // The copy: no consent page, and its consent form (fetched before) gives no code.
    expect((await authorizePage(thief.copy())).signedIn).toBe(false)
    const posted = await consent(thief, before.token!)
    expect(posted.code).toBeNull()
    expect([200, 403]).toContain(posted.response.status)
    const rows = await server.pool.query("select count(*)::int as n from account_sessions where account_id = $1", [accountId])
    expect(rows.rows[0].n).toBe(0)
  })

  it("through the consent page's \"not you\" form (/oauth/logout) too", async () => {
    const browser = new Jar()
    await signIn(browser)
    const page = await browser.send("GET", AUTHORIZE)
    const csrf = /name="csrf_token" value="([^"]*)"/.exec(page.text)![1]!
    const thief = browser.copy()
    const out = await browser.send("POST", "/oauth/logout", { csrf_token: csrf, return_to: AUTHORIZE })
    expect(out.status).toBe(303)
    expect((await authorizePage(thief)).signedIn).toBe(false)
  })

  it("keeps a session to its host: the cookie copied to another business's host is not signed in there", async () => {
    const browser = new Jar()
    await signIn(browser)
    expect((await authorizePage(browser.copy(`other.${TEST_BASE_DOMAIN}`))).signedIn).toBe(false)
    expect((await authorizePage(browser)).signedIn).toBe(true)
  })
})

describe("a password change", () => {
  it("ends every session of the account, in every browser", async () => {
    const laptop = new Jar()
    const phone = new Jar()
    await signIn(laptop)
    await signIn(phone)
    const thief = laptop.copy()
    expect((await authorizePage(thief)).signedIn).toBe(true)

    // The reset link's page, as the mailed link opens it.
    const resetToken = generateToken()
    await server.pool.query(
      `insert into account_tokens (token_hash, account_id, purpose, expires_at) values ($1, $2, 'password_reset', now() + interval '1 hour')`,
      [hashToken(resetToken), accountId]
    )
    const mailbox = new Jar()
    const form = await mailbox.send("GET", `/oauth/password/edit?token=${resetToken}`)
    expect(form.status).toBe(200)
    const csrf = /name="csrf_token" value="([^"]*)"/.exec(form.text)![1]!
    const reset = await mailbox.send("POST", "/oauth/password/edit", { csrf_token: csrf, token: resetToken, password: "a brand new password" })
    expect(reset.status, reset.text).toBe(200)

    for (const jar of [laptop, phone, thief]) expect((await authorizePage(jar)).signedIn).toBe(false)
    await server.pool.query("update accounts set password_hash = $2 where id = $1", [accountId, await hashPassword(PASSWORD)])
  })
})

describe("the CSRF token", () => {
  it("is the server's: a token the client made up, echoed in cookie and field alike, is refused", async () => {
    const made = "A".repeat(32)
    for (const name of ["studio_csrf", "studio_xsrf"]) {
      const jar = new Jar()
      jar.cookies.set(name, made)
      const response = await jar.send("POST", "/accounts/sign_in", { authenticity_token: made, "account[email]": EMAIL, "account[password]": PASSWORD })
      expect(response.status).toBe(403)
      expect(response.text).toContain("The form expired")
      expect((await authorizePage(jar)).signedIn).toBe(false)
    }
  })

  it("is rotated at sign-in: the token from before no longer works, even planted back in the cookie", async () => {
    const victim = new Jar()
    const { formToken, signedIn, token } = await signIn(victim)
    expect(token).not.toBe(formToken)
    expect(setCookies(signedIn).some((line) => line.startsWith("studio_xsrf=") && !line.includes(formToken))).toBe(true)
    const page = await authorizePage(victim)
    expect(page.token).toBe(token)

    // Someone who knew the pre-sign-in token (and could set the victim's cookie) posts the consent with it.
    const planted = victim.copy()
    for (const name of [...planted.cookies.keys()]) if (/csrf|xsrf/.test(name)) planted.cookies.set(name, formToken)
    const forged = await consent(planted, formToken)
    expect(forged.response.status).toBe(403)
    expect(forged.code).toBeNull()
    // The new token does work.
    const allowed = await consent(victim, token)
    expect(allowed.code).toMatch(/^[0-9a-f]{64}$/)
  })

  it("on https lives in __Host- cookies, and an http-named cookie there is ignored", async () => {
    const jar = new Jar(`demo.${TEST_BASE_DOMAIN}`, { "x-forwarded-proto": "https" })
    const form = await jar.send("GET", "/accounts/sign_in")
    const csrfCookie = setCookies(form).find((line) => line.startsWith("__Host-studio_xsrf="))
    expect(csrfCookie).toBeDefined()
    expect(csrfCookie).toMatch(/; Path=\/; HttpOnly; Secure; SameSite=Lax$/)
    expect(csrfCookie).not.toMatch(/Domain=/i)
    const { signedIn } = await signIn(jar)
    const sessionCookie = setCookies(signedIn).find((line) => line.startsWith("__Host-studio_sid="))
    expect(sessionCookie).toMatch(/; Path=\/; HttpOnly; Secure; SameSite=Lax$/)
    expect((await authorizePage(jar)).signedIn).toBe(true)

    // A token minted for plain http, planted under the plain name: not the https page's token.
    const plain = new Jar()
    const plainForm = await plain.send("GET", "/accounts/sign_in")
    const plainToken = authenticityToken(plainForm.text)!
    const mixed = new Jar(`demo.${TEST_BASE_DOMAIN}`, { "x-forwarded-proto": "https" })
    mixed.cookies.set("studio_xsrf", plainToken)
    const refused = await mixed.send("POST", "/accounts/sign_in", { authenticity_token: plainToken, "account[email]": EMAIL, "account[password]": PASSWORD })
    expect(refused.status).toBe(403)
  })
})
