import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { hashPassword } from "../../src/access/passwords.ts"
import { trustedProxies } from "../../src/platform/trust-proxy.ts"
import { Browser } from "../support/browser-agent.ts"
import { makeSettableClock } from "../support/clock.ts"
import { createApplication, createBusiness, createPerson } from "../support/factories.ts"
import { TEST_BASE_DOMAIN, type TestServer, startTestServer } from "../support/server.ts"

/**
 * Issue 29, section 3: failed sign-ins are throttled per account and per IP with growing delays.
 * The server trusts the loopback peer as its proxy, so each request says its client's address in
 * `X-Forwarded-For` (an attacker with many addresses); its clock is set by hand, so a delay is
 * waited out by moving it, and the delays are read from `Retry-After`, never timed.
 */
let server: TestServer
let base: string
const clock = makeSettableClock("2031-03-04T10:00:00.000Z")
const PASSWORD = "the right password 1"
const WINDOW_SECONDS = 900

const advance = (seconds: number) => clock.set(new Date(clock.now().getTime() + seconds * 1000))
/** A patient attacker waits out a delay; a lock to the window's end (minutes) is not waited out. */
const waitOut = (response: { status: number; headers: Headers }) => {
  const wait = Number(response.headers.get("retry-after"))
  if (response.status === 429 && wait < 300) advance(wait)
}

beforeAll(async () => {
  server = await startTestServer({
    clock: clock.clock,
    trustProxy: trustedProxies("loopback"),
    signInMaxFailures: 10,
    signInMaxFailuresPerIp: 12,
    signInWindowSeconds: WINDOW_SECONDS
  })
  base = `http://${TEST_BASE_DOMAIN}:${server.port}`
  await createBusiness(server.pool, { subdomain: "demo", name: "Demo Studio" })
  await createApplication(server.pool, "test-app")
})
afterAll(async () => server?.close())

const ownerWithPassword = async (email: string) => {
  const business = await server.pool.query("select id from businesses where subdomain = 'demo'")
  const owner = await createPerson(server.pool, Number(business.rows[0].id), { email, role: "owner" })
  await server.pool.query("update accounts set password_hash = $2 where id = $1", [owner.accountId, await hashPassword(PASSWORD)])
  return owner
}

/** A browser with the sign-in form's authenticity token (its CSRF cookie in the jar). */
const signInForm = async () => {
  const browser = new Browser()
  const page = await browser.request(`${base}/accounts/sign_in`)
  const token = /name="authenticity_token" type="hidden" value="([^"]*)"/.exec(page.text)![1]!
  return {
    browser,
    post: (email: string, password: string, ip: string) =>
      browser.request(`${base}/accounts/sign_in`, {
        form: { authenticity_token: token, "account[email]": email, "account[password]": password },
        headers: { "x-forwarded-for": ip }
      })
  }
}

const signedIn = (response: { headers: Headers }) => response.headers.getSetCookie().some((c) => c.startsWith("studio_sid="))

/**
 * Wrong passwords, each from a new address, waiting out each short delay as a patient attacker
 * would: the statuses, and every Retry-After seen.
 */
const guess = async (form: Awaited<ReturnType<typeof signInForm>>, email: string, count: number, ipOf: (i: number) => string) => {
  const statuses: Array<number> = []
  const waits: Array<number> = []
  for (let i = 0; i < count; i++) {
    const response = await form.post(email, `wrong password ${i}`, ipOf(i))
    statuses.push(response.status)
    if (response.status === 429) waits.push(Number(response.headers.get("retry-after")))
    waitOut(response)
  }
  return { statuses, waits }
}

describe("failed sign-ins per account", () => {
  it("40 wrong passwords (from 40 addresses, delays waited out) then the right one: not signed in until the window ends", async () => {
    const email = "owner@throttle.test"
    await ownerWithPassword(email)
    const form = await signInForm()
    const started = clock.now().getTime()
    const { statuses, waits } = await guess(form, email, 40, (i) => `198.51.100.${i + 1}`)
    // Ten passwords were checked at most; the rest were refused without a check.
    expect(statuses.filter((s) => s === 401)).toHaveLength(10)
    expect(statuses.filter((s) => s !== 401 && s !== 429)).toEqual([])
    // Three free failures, then delays that double, then the lock until the window's end.
    expect(waits.slice(0, 6)).toEqual([1, 2, 4, 8, 16, 32])
    expect(waits[6]).toBeGreaterThan(WINDOW_SECONDS - 100)

    const right = await form.post(email, PASSWORD, "198.51.100.200")
    expect(right.status).toBe(429)
    expect(signedIn(right)).toBe(false)
    const retryAfter = Number(right.headers.get("retry-after"))
    expect(right.text).toContain(`Try again in ${retryAfter} seconds, or reset your password by e-mail`)
    // The lock ends with the window that began at the first failure, not later.
    expect(clock.now().getTime() + retryAfter * 1000).toBe(started + WINDOW_SECONDS * 1000)

    advance(retryAfter)
    const after = await form.post(email, PASSWORD, "198.51.100.200")
    expect(after.status).toBe(200)
    expect(signedIn(after)).toBe(true)
  })

  it("a burst of 40 parallel guesses gets no more checked than a sequence would", async () => {
    const email = "burst@throttle.test"
    await ownerWithPassword(email)
    const form = await signInForm()
    const responses = await Promise.all(Array.from({ length: 40 }, (_, i) => form.post(email, `wrong ${i}`, `192.0.2.${i + 1}`)))
    // The three free failures and the one that set the first delay.
    expect(responses.filter((r) => r.status === 401)).toHaveLength(4)
    expect(responses.filter((r) => r.status === 429)).toHaveLength(36)
    expect((await form.post(email, PASSWORD, "192.0.2.100")).status).toBe(429)
  })

  it("translates the refusal", async () => {
    const email = "translated@throttle.test"
    await ownerWithPassword(email)
    const browser = new Browser()
    const page = await browser.request(`${base}/accounts/sign_in?locale=de`)
    const token = /name="authenticity_token" type="hidden" value="([^"]*)"/.exec(page.text)![1]!
    let last
    for (let i = 0; i < 5; i++) {
      last = await browser.request(`${base}/accounts/sign_in?locale=de`, {
        form: { authenticity_token: token, "account[email]": email, "account[password]": "wrong" },
        headers: { "x-forwarded-for": `203.0.113.${100 + i}` }
      })
    }
    expect(last!.status).toBe(429)
    expect(last!.text).toContain("Zu viele fehlgeschlagene Anmeldungen")
  })

  it("/oauth/login counts against the same budget", async () => {
    const email = "oauth@throttle.test"
    await ownerWithPassword(email)
    const browser = new Browser()
    const authorize = `/oauth/authorize?client_id=test-app&response_type=code&redirect_uri=${encodeURIComponent("http://localhost/callback")}`
    const page = await browser.request(`${base}${authorize}`)
    const csrf = Browser.field(page.text, "csrf_token")!
    const login = (password: string, ip: string) =>
      browser.request(`${base}/oauth/login`, { form: { csrf_token: csrf, return_to: authorize, email, password }, headers: { "x-forwarded-for": ip } })
    const statuses: Array<number> = []
    for (let i = 0; i < 12; i++) {
      const response = await login(`wrong ${i}`, `198.18.0.${i + 1}`)
      statuses.push(response.status)
      waitOut(response)
    }
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(10)
    const right = await login(PASSWORD, "198.18.0.100")
    expect(right.status).toBe(429)
    expect(signedIn(right)).toBe(false)
    // The scripted sign-in shares the count: the account is locked there too.
    expect((await (await signInForm()).post(email, PASSWORD, "198.18.0.101")).status).toBe(429)
  })
})

describe("failed sign-ins per IP", () => {
  it("one address guessing many accounts is refused, for every account, while the accounts stay open elsewhere", async () => {
    const victim = "victim@throttle.test"
    await ownerWithPassword(victim)
    const form = await signInForm()
    const attacker = "203.0.113.7"
    const statuses: Array<number> = []
    for (let i = 0; i < 30; i++) {
      const response = await form.post(`user${i}@throttle.test`, "password123", attacker)
      statuses.push(response.status)
      waitOut(response)
    }
    // The IP's budget (12), each address tried once.
    expect(statuses.filter((s) => s === 401)).toHaveLength(12)
    const fromAttacker = await form.post(victim, PASSWORD, attacker)
    expect(fromAttacker.status).toBe(429)
    expect(signedIn(fromAttacker)).toBe(false)
    const fromOwner = await form.post(victim, PASSWORD, "203.0.113.8")
    expect(fromOwner.status).toBe(200)
    expect(signedIn(fromOwner)).toBe(true)
  })
})

describe("a locked-out owner", () => {
  it("resets the password by the mailed link and signs in at once, before the window ends", async () => {
    const email = "locked@throttle.test"
    await ownerWithPassword(email)
    const form = await signInForm()
    await guess(form, email, 20, (i) => `100.64.0.${i + 1}`)
    expect((await form.post(email, PASSWORD, "100.64.1.1")).status).toBe(429)

    const reset = await server.request("POST", "/api/v2/account/passwords", {
      host: TEST_BASE_DOMAIN,
      body: { email },
      headers: { "x-forwarded-for": "100.64.1.1" }
    })
    expect(reset.status).toBe(201)
    const { rows } = await server.pool.query(
      `select j.payload from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id
       where t.identifier = 'send_mail' and j.payload->>'to' = $1`,
      [email]
    )
    const link = new URL(/(http:\/\/\S+\/oauth\/password\/edit\?token=\S+)/.exec(rows[0].payload.text)![1]!)
    const browser = new Browser()
    const page = await browser.request(`${base}${link.pathname}${link.search}`)
    const fields = { csrf_token: Browser.field(page.text, "csrf_token")!, token: Browser.field(page.text, "token")! }
    const done = await browser.request(`${base}/oauth/password/edit`, { form: { ...fields, password: "a new password 42" } })
    expect(done.status).toBe(200)

    const after = await form.post(email, "a new password 42", "100.64.1.1")
    expect(after.status).toBe(200)
    expect(signedIn(after)).toBe(true)
  })
})
