import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { hashPassword, verifyPassword } from "../../src/access/passwords.ts"
import { Browser } from "../support/browser-agent.ts"
import { createBusiness, createPerson, createToken } from "../support/factories.ts"
import { TEST_BASE_DOMAIN, type TestServer, startTestServer } from "../support/server.ts"

let server: TestServer
let accountToken: string
let businessToken: string
let accountId: number
const accountHost = { host: TEST_BASE_DOMAIN }

beforeAll(async () => {
  server = await startTestServer({ worker: true })
  const demo = await createBusiness(server.pool, { subdomain: "demo", name: "Demo Studio" })
  const yoga = await createBusiness(server.pool, { subdomain: "yoga", name: "Another Yoga" })
  const person = await createPerson(server.pool, demo.id, { email: "ada@example.test", first_name: "Ada", role: "standard" })
  accountId = person.accountId
  await server.pool.query(`insert into people (business_id, account_id, first_name, last_name, email) values ($1, $2, 'Ada', 'L', 'ada@example.test')`, [yoga.id, accountId])
  await server.pool.query("update accounts set password_hash = $2 where id = $1", [accountId, await hashPassword("old password 123")])
  accountToken = await createToken(server.pool, accountId, null)
  businessToken = await createToken(server.pool, accountId, demo.id)
})
afterAll(async () => server?.close())

/** Waits for the worker to deliver a message to `to` (development mailbox). */
const mailTo = async (to: string, template: string, since = 0) => {
  for (let i = 0; i < 100; i++) {
    const { rows } = await server.pool.query(
      "select id, subject, body_text from mail_messages where to_address = $1 and template = $2 and id > $3 order by id desc limit 1",
      [to, template, since]
    )
    if (rows[0]) return rows[0] as { id: number; subject: string; body_text: string }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`no ${template} mail to ${to}`)
}
const lastMailId = async () => Number((await server.pool.query("select coalesce(max(id), 0) as id from mail_messages")).rows[0].id)

describe("GET /api/v2/account", () => {
  it("returns the account of a token granted at the account-level host", async () => {
    const response = await server.request("GET", "/api/v2/account", { ...accountHost, token: accountToken })
    expect(response.status).toBe(200)
    expect(response.json).toEqual({
      accounts: [{ id: accountId, email: "ada@example.test", first_name: "Ada", last_name: "Lovelace", email_confirmed_at: null }]
    })
  })

  it("refuses business-limited tokens, missing tokens and business hosts", async () => {
    expect((await server.request("GET", "/api/v2/account", { ...accountHost, token: businessToken })).json).toEqual({
      error: "Account endpoints need a token granted at the account-level host"
    })
    expect((await server.request("GET", "/api/v2/account", accountHost)).status).toBe(401)
    expect((await server.request("GET", "/api/v2/account", { token: accountToken })).status).toBe(404)
  })

  it("lists the account's businesses by name", async () => {
    const response = await server.request("GET", "/api/v2/account/businesses", { ...accountHost, token: accountToken })
    expect(response.json.businesses.map((b: { name: string }) => b.name)).toEqual(["Another Yoga", "Demo Studio"])
    expect(response.json.total_count).toBe(2)
  })
})

describe("GET /api/v2/account/people", () => {
  it("lists the account's person in each business, with business_id and subdomain", async () => {
    const response = await server.request("GET", "/api/v2/account/people", { ...accountHost, token: accountToken })
    expect(response.status).toBe(200)
    expect(response.json.people.map((p: { subdomain: string }) => p.subdomain)).toEqual(["yoga", "demo"])
    expect(response.json.people[1]).toMatchObject({ first_name: "Ada", email: "ada@example.test", custom_fields: [] })
    expect(typeof response.json.people[0].business_id).toBe("number")
    expect(response.json.people[0]).not.toHaveProperty("is_member")
  })

  it("needs the account-level host and its token", async () => {
    expect((await server.request("GET", "/api/v2/account/people", { token: accountToken })).status).toBe(404)
    expect((await server.request("GET", "/api/v2/account/people", { ...accountHost, token: businessToken })).status).toBe(401)
  })
})

describe("POST /api/v2/account/passwords", () => {
  it("always answers 201, mails a reset link only to an existing account, and the link sets a new password once", async () => {
    const before = await lastMailId()
    const unknown = await server.request("POST", "/api/v2/account/passwords", { ...accountHost, body: { email: "nobody@example.test" } })
    expect(unknown.status).toBe(201)
    expect(unknown.json).toEqual({})

    const known = await server.request("POST", "/api/v2/account/passwords", {
      ...accountHost,
      body: "email=ada%40example.test",
      headers: { "content-type": "application/x-www-form-urlencoded", "x-fd-locale": "de" }
    })
    expect(known.status).toBe(201)
    const mail = await mailTo("ada@example.test", "password_reset", before)
    expect(mail.subject).not.toBe("Reset your password") // translated per X-FD-Locale (de)
    const link = /(http:\/\/\S+\/oauth\/password\/edit\?token=\S+)/.exec(mail.body_text)![1]!
    expect(new URL(link).host).toBe(TEST_BASE_DOMAIN)
    expect(await server.pool.query("select 1 from mail_messages where to_address = 'nobody@example.test'")).toHaveProperty("rowCount", 0)

    const browser = new Browser()
    const url = new URL(link)
    const base = `http://${TEST_BASE_DOMAIN}:${server.port}`
    const form = await browser.request(`${base}${url.pathname}${url.search}`)
    expect(form.status).toBe(200)
    const fields = { csrf_token: Browser.field(form.text, "csrf_token")!, token: Browser.field(form.text, "token")! }
    const tooShort = await browser.request(`${base}/oauth/password/edit`, { form: { ...fields, password: "short" } })
    expect(tooShort.status).toBe(422)
    expect(tooShort.text).toContain("at least 10")
    const done = await browser.request(`${base}/oauth/password/edit`, { form: { ...fields, password: "a brand new password" } })
    expect(done.status).toBe(200)
    const { rows } = await server.pool.query("select password_hash, email_confirmed_at from accounts where id = $1", [accountId])
    expect(await verifyPassword("a brand new password", rows[0].password_hash)).toBe(true)
    expect(rows[0].email_confirmed_at).not.toBeNull()

    const again = await browser.request(`${base}/oauth/password/edit`, { form: { ...fields, password: "another new password" } })
    expect(again.status).toBe(404)
  })

  it("answers only on the account-level host", async () => {
    const response = await server.request("POST", "/api/v2/account/passwords", { body: { email: "ada@example.test" } })
    expect(response.status).toBe(404)
  })
})

describe("POST /api/v2/account/confirmations", () => {
  it("mails a confirmation link to an unconfirmed account, nothing to a confirmed one, 201 either way", async () => {
    const person = await createPerson(server.pool, (await createBusiness(server.pool)).id, { email: "new@example.test" })
    const token = await createToken(server.pool, person.accountId, null)
    const before = await lastMailId()
    const response = await server.request("POST", "/api/v2/account/confirmations", { ...accountHost, token })
    expect(response.status).toBe(201)
    const mail = await mailTo("new@example.test", "email_confirmation", before)
    const link = new URL(/(http:\/\/\S+\/oauth\/confirmation\?token=\S+)/.exec(mail.body_text)![1]!)
    const confirmed = await new Browser().request(`http://${TEST_BASE_DOMAIN}:${server.port}${link.pathname}${link.search}`)
    expect(confirmed.status).toBe(200)
    expect((await server.pool.query("select email_confirmed_at from accounts where id = $1", [person.accountId])).rows[0].email_confirmed_at).not.toBeNull()

    const afterConfirm = await lastMailId()
    expect((await server.request("POST", "/api/v2/account/confirmations", { ...accountHost, token })).status).toBe(201)
    await new Promise((resolve) => setTimeout(resolve, 600))
    expect(await lastMailId()).toBe(afterConfirm)
  })

  it("needs a token granted at the account-level host", async () => {
    expect((await server.request("POST", "/api/v2/account/confirmations", accountHost)).status).toBe(401)
    expect((await server.request("POST", "/api/v2/account/confirmations", { ...accountHost, token: businessToken })).status).toBe(401)
  })
})
