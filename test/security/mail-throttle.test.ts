import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { trustedProxies } from "../../src/platform/trust-proxy.ts"
import { Browser } from "../support/browser-agent.ts"
import { createBusiness, createPerson, createToken } from "../support/factories.ts"
import { TEST_BASE_DOMAIN, type TestServer, startTestServer } from "../support/server.ts"

/**
 * Issue 29, section 3: password-reset and confirmation mails are throttled per address and per
 * IP (ten requests a second used to send ten mails). The loopback peer is a trusted proxy, so
 * `X-Forwarded-For` names each request's client.
 */
let server: TestServer
const accountHost = TEST_BASE_DOMAIN

beforeAll(async () => {
  server = await startTestServer({ trustProxy: trustedProxies("loopback"), mailRequestsPerAddress: 3, mailRequestsPerIp: 10 })
  await createBusiness(server.pool, { subdomain: "demo", name: "Demo Studio" })
})
afterAll(async () => server?.close())

const mailsTo = async (to: string) =>
  Number(
    (await server.pool.query(
      `select count(*) as n from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id
       where t.identifier = 'send_mail' and j.payload->>'to' = $1`,
      [to]
    )).rows[0].n
  )

const askReset = (email: string, ip: string, locale = "en") =>
  server.request("POST", "/api/v2/account/passwords", {
    host: accountHost,
    body: { email },
    headers: { "x-forwarded-for": ip, "x-fd-locale": locale }
  })

describe("password-reset mails", () => {
  it("ten requests for one address send three mails; the rest are refused with a translated 429", async () => {
    const { email } = await createPerson(server.pool, (await createBusiness(server.pool)).id, { email: "ten@example.test" })
    const responses = []
    // From ten addresses: the address's own budget is what stops them.
    for (let i = 0; i < 10; i++) responses.push(await askReset(email, `198.51.100.${i + 1}`, "fr"))
    expect(responses.map((r) => r.status)).toEqual([201, 201, 201, 429, 429, 429, 429, 429, 429, 429])
    expect(responses[3]!.json.errors[0]).toMatch(/^Trop d'e-mails demandés\. Réessayez dans \d+ secondes\.$/)
    expect(await mailsTo(email)).toBe(3)
  })

  it("counts an address without an account alike, so a refusal tells nothing", async () => {
    const statuses = []
    for (let i = 0; i < 4; i++) statuses.push((await askReset("nobody@example.test", `198.51.101.${i + 1}`)).status)
    expect(statuses).toEqual([201, 201, 201, 429])
  })

  it("one IP asking for many addresses is refused past its budget; other clients are not", async () => {
    const statuses = []
    for (let i = 0; i < 12; i++) statuses.push((await askReset(`someone${i}@example.test`, "203.0.113.9")).status)
    expect(statuses).toEqual([201, 201, 201, 201, 201, 201, 201, 201, 201, 201, 429, 429])
    expect((await askReset("someone-else@example.test", "203.0.113.10")).status).toBe(201)
  })

  it("the forgotten-password page refuses on the page, translated", async () => {
    const { email } = await createPerson(server.pool, (await createBusiness(server.pool)).id, { email: "page@example.test" })
    const browser = new Browser()
    const base = `http://demo.${TEST_BASE_DOMAIN}:${server.port}`
    const form = await browser.request(`${base}/oauth/password/new?locale=de`)
    const csrf = Browser.field(form.text, "csrf_token")!
    const statuses = []
    let last
    for (let i = 0; i < 5; i++) {
      last = await browser.request(`${base}/oauth/password?locale=de`, {
        form: { csrf_token: csrf, email, locale: "de" },
        headers: { "x-forwarded-for": `192.0.2.${i + 1}` }
      })
      statuses.push(last.status)
    }
    expect(statuses).toEqual([200, 200, 200, 429, 429])
    expect(last!.text).toContain("Zu viele E-Mails angefordert")
    expect(await mailsTo(email)).toBe(3)
  })
})

describe("confirmation mails", () => {
  it("are throttled per address too", async () => {
    const person = await createPerson(server.pool, (await createBusiness(server.pool)).id, { email: "confirm@example.test" })
    const token = await createToken(server.pool, person.accountId, null)
    const statuses = []
    for (let i = 0; i < 5; i++) {
      const response = await server.request("POST", "/api/v2/account/confirmations", {
        host: accountHost,
        token,
        headers: { "x-forwarded-for": `192.0.2.${100 + i}` }
      })
      statuses.push(response.status)
    }
    expect(statuses).toEqual([201, 201, 201, 429, 429])
    expect(await mailsTo("confirm@example.test")).toBe(3)
  })
})
