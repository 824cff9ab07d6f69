import { randomBytes } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { hashClientSecret } from "../../src/access/applications.ts"
import { hashToken } from "../../src/access/tokens.ts"
import { createBusiness, createPerson } from "../support/factories.ts"
import { type TestResponse } from "../support/http.ts"
import { type TestServer, startTestServer } from "../support/server.ts"
import { lockWaiters, until } from "../support/waiting.ts"

/**
 * Issue 29: a replayed authorization code revokes every token the code gave, also when the
 * replay races the first exchange. The codes are written straight into the table (as the
 * consent page writes them); the exchanges and the replays are real token requests.
 */
const SECRET = "s3cret-of-the-replay-app"
const REDIRECT = "https://replay.example/callback"
let server: TestServer
let businessId: number
let accountId: number
let applicationId: number

beforeAll(async () => {
  server = await startTestServer()
  businessId = (await createBusiness(server.pool, { subdomain: "demo" })).id
  accountId = (await createPerson(server.pool, businessId, { role: "owner" })).accountId
  const { rows } = await server.pool.query(
    `insert into oauth_applications (client_id, client_secret_hash, name, redirect_uri, is_public)
     values ('replay-app', $1, 'Replay app', $2, false) returning id`,
    [hashClientSecret(SECRET), REDIRECT]
  )
  applicationId = Number(rows[0].id)
}, 120_000)
afterAll(async () => server?.close())

/** A fresh code, as the consent page issues it. */
const newCode = async () => {
  const code = randomBytes(32).toString("hex")
  await server.pool.query(
    `insert into oauth_authorization_codes (code_hash, application_id, account_id, business_id, redirect_uri, expires_at)
     values ($1, $2, $3, $4, $5, now() + interval '10 minutes')`,
    [hashToken(code), applicationId, accountId, businessId, REDIRECT]
  )
  return code
}

const exchange = (code: string) =>
  server.request("POST", "/oauth/token", {
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code,
      redirect_uri: REDIRECT,
      client_id: "replay-app",
      client_secret: SECRET
    }).toString(),
    headers: { "content-type": "application/x-www-form-urlencoded" }
  })

const apiStatus = async (token: string) => (await server.request("GET", "/api/v2/desk/business", { token })).status

/** Exactly one of the two answers carries a token; the other is the replay's invalid_grant. */
const tokenOfPair = (answers: ReadonlyArray<TestResponse>) => {
  const issued = answers.filter((answer) => answer.status === 200)
  const refused = answers.filter((answer) => answer.status === 400)
  expect(issued, answers.map((answer) => answer.text).join("\n")).toHaveLength(1)
  expect(refused).toHaveLength(1)
  expect(refused[0]!.json).toMatchObject({ error: "invalid_grant" })
  return issued[0]!.json.access_token as string
}

describe("a replayed authorization code", () => {
  it("revokes the token of an exchange that is still storing it when the replay arrives", async () => {
    const code = await newCode()
    // Hold the account's row: the first exchange's token insert waits on its foreign-key check,
    // after the code was marked used. This is the window the race hit by chance.
    const holder = await server.pool.connect()
    try {
      await holder.query("begin")
      await holder.query("select id from accounts where id = $1 for update", [accountId])
      const first = exchange(code)
      await until(async () => (await lockWaiters(server.pool, "%insert into access_tokens%")) === 1, "the exchange waiting at its token insert")
      const replay = exchange(code)
      let replayDone = false
      void replay.then(() => (replayDone = true))
      // Either the replay answers at once, or it waits for the first exchange's transaction.
      await until(async () => replayDone || (await lockWaiters(server.pool, "%oauth_authorization_codes%")) === 1, "the replay done or waiting on the code")
      await holder.query("commit")
      const token = tokenOfPair(await Promise.all([first, replay]))
      expect(await apiStatus(token)).toBe(401)
    } finally {
      holder.release()
    }
    const live = await server.pool.query(`select count(*)::int as n from access_tokens where authorization_code_hash = $1 and revoked_at is null`, [
      hashToken(code)
    ])
    expect(live.rows[0].n).toBe(0)
  })

  it("leaves no token alive in repeated concurrent pairs", async () => {
    for (let trial = 0; trial < 6; trial++) {
      const code = await newCode()
      const token = tokenOfPair(await Promise.all([exchange(code), exchange(code)]))
      expect(await apiStatus(token)).toBe(401)
    }
  })

  it("still gives a token to the first exchange of a code used once, and keeps it alive", async () => {
    const code = await newCode()
    const answer = await exchange(code)
    expect(answer.status, answer.text).toBe(200)
    expect(await apiStatus(answer.json.access_token)).toBe(200)
    // A refused first exchange (wrong redirect_uri) uses the code up all the same.
    const other = await newCode()
    const wrong = await server.request("POST", "/oauth/token", {
      body: new URLSearchParams({ grant_type: "authorization_code", code: other, redirect_uri: `${REDIRECT}/x`, client_id: "replay-app", client_secret: SECRET }).toString(),
      headers: { "content-type": "application/x-www-form-urlencoded" }
    })
    expect(wrong.status).toBe(400)
    expect((await exchange(other)).json).toMatchObject({ error: "invalid_grant" })
  })
})
