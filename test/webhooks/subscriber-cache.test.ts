import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createBusiness, createPerson, createToken } from "../support/factories.ts"
import { type TestServer, startTestServer } from "../support/server.ts"

/**
 * Whether a business listens to a topic is kept per process: the writing process forgets it with
 * its own write, the others hear of it from the commit's notice (channel `studio_cache`).
 */

let server: TestServer
let business: { id: number; subdomain: string }
let ownerToken: string

const JSON_API = "application/vnd.api+json"

const webhooks = (method: "POST" | "PATCH" | "DELETE", path: string, body?: unknown) =>
  server.request(method, `/api/v3/webhooks${path}`, {
    token: ownerToken,
    ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { "content-type": JSON_API } })
  })
const events = async () =>
  (await server.pool.query("select count(*)::int as n from webhook_events where business_id = $1 and topic = 'person.created'", [business.id]))
    .rows[0].n as number
let n = 0
const createPersonOverHttp = async () => {
  const response = await server.request("POST", "/api/v2/desk/people", { token: ownerToken, body: { person: { first_name: `C${n++}`, last_name: "Cache" } } })
  expect(response.status, response.text).toBe(201)
}

beforeAll(async () => {
  server = await startTestServer()
  business = await createBusiness(server.pool, { subdomain: "demo" })
  await server.pool.query("update businesses set webhooks_enabled = true where id = $1", [business.id])
  ownerToken = await createToken(server.pool, (await createPerson(server.pool, business.id, { role: "owner" })).accountId, business.id)
})
afterAll(async () => server?.close())

describe("the kept answer to 'does anyone listen'", () => {
  it("follows each subscription write through the API at once: created, paused, resumed, deleted", async () => {
    await createPersonOverHttp() // nobody listens, and the process keeps that answer
    await createPersonOverHttp()
    expect(await events()).toBe(0)

    const created = await webhooks("POST", "", { data: { type: "webhooks", attributes: { target: "http://127.0.0.1:9/hooks", topic: "person.created" } } })
    expect(created.status, created.text).toBe(201)
    const id = created.json.data.id as string
    await createPersonOverHttp()
    expect(await events()).toBe(1)

    const patch = (enabled: boolean) => webhooks("PATCH", `/${id}`, { data: { type: "webhooks", id, attributes: { enabled } } })
    expect((await patch(false)).status).toBe(200)
    await createPersonOverHttp()
    expect(await events()).toBe(1)
    expect((await patch(true)).status).toBe(200)
    await createPersonOverHttp()
    expect(await events()).toBe(2)

    expect((await webhooks("DELETE", `/${id}`)).status).toBe(204)
    await createPersonOverHttp()
    expect(await events()).toBe(2)
  })

  it("is dropped in every other process by the notice each subscription write sends at its commit", async () => {
    const listener = new pg.Client({ connectionString: server.databaseUrl })
    await listener.connect()
    const heard: Array<string> = []
    listener.on("notification", (message) => heard.push(message.payload ?? ""))
    await listener.query("listen studio_cache")
    try {
      const owner = await createPerson(server.pool, business.id, { role: "owner" })
      const client = await server.pool.connect()
      try {
        await client.query("begin")
        const { rows } = await client.query(
          `insert into webhook_subscriptions (business_id, created_by_staff_member_id, created_by_account_id, topic, target, secret_encrypted)
           values ($1, $2, $3, 'person.created', 'http://127.0.0.1:9/', '\\x00') returning id`,
          [business.id, owner.staffMemberId, owner.accountId]
        )
        await client.query("update webhook_subscriptions set enabled = false, disabled_at = now(), disabled_reason = 'manual' where id = $1", [rows[0].id])
        // Nothing is announced before the commit: another process could reload the old answer.
        await listener.query("select 1")
        expect(heard.filter((payload) => payload.startsWith("webhook_subscriptions:"))).toEqual([])
        await client.query("commit")
        await client.query("delete from webhook_subscriptions where id = $1", [rows[0].id])
      } finally {
        client.release()
      }
      for (let i = 0; i < 50 && heard.filter((payload) => payload.startsWith("webhook_subscriptions:")).length < 2; i++) {
        await listener.query("select 1")
      }
      // PostgreSQL folds identical notices of one transaction into one: insert and update send one, the delete another.
      expect(heard.filter((payload) => payload.startsWith("webhook_subscriptions:"))).toEqual([
        `webhook_subscriptions:${business.id}`,
        `webhook_subscriptions:${business.id}`
      ])
    } finally {
      await listener.end()
    }
  })
})
