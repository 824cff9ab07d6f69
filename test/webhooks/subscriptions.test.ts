import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createBusiness, createPerson, createToken } from "../support/factories.ts"
import { TEST_BASE_DOMAIN, type TestServer, startTestServer } from "../support/server.ts"

/** The subscription endpoints (JSON:API 1.0, owners, business host) and the removal rules. */

let server: TestServer
let business: { id: number; subdomain: string }
let owner: Awaited<ReturnType<typeof createPerson>>
let ownerToken: string
let managerToken: string
let clientToken: string
let foreignWebhookId: number
let noFeatureToken: string

const JSON_API = "application/vnd.api+json"
const TARGET = "http://127.0.0.1:9/hooks"

const document = (attributes: Record<string, unknown>) => ({ data: { type: "webhooks", attributes } })
const post = (body: unknown, token = ownerToken, contentType = JSON_API) =>
  server.request("POST", "/api/v3/webhooks", { token, body: JSON.stringify(body), headers: { "content-type": contentType } })
const subscribe = async (attributes: Record<string, unknown> = {}, token = ownerToken) => {
  const response = await post(document({ target: TARGET, topic: "person.created", ...attributes }), token)
  expect(response.status, response.text).toBe(201)
  return response.json.data as { id: string; attributes: Record<string, unknown>; links: { self: string } }
}
const exists = async (id: string | number) =>
  (await server.pool.query("select 1 from webhook_subscriptions where id = $1", [id])).rowCount === 1

beforeAll(async () => {
  server = await startTestServer()
  business = await createBusiness(server.pool, { subdomain: "demo", name: "Demo Studio" })
  await server.pool.query("update businesses set webhooks_enabled = true where id = $1", [business.id])
  owner = await createPerson(server.pool, business.id, { role: "owner" })
  ownerToken = await createToken(server.pool, owner.accountId, business.id)
  managerToken = await createToken(server.pool, (await createPerson(server.pool, business.id, { role: "manager" })).accountId, business.id)
  clientToken = await createToken(server.pool, (await createPerson(server.pool, business.id)).accountId, business.id)

  const elsewhere = await createBusiness(server.pool, { subdomain: "elsewhere" })
  await server.pool.query("update businesses set webhooks_enabled = true where id = $1", [elsewhere.id])
  const foreignOwner = await createPerson(server.pool, elsewhere.id, { role: "owner" })
  const foreignToken = await createToken(server.pool, foreignOwner.accountId, elsewhere.id)
  const foreign = await server.request("POST", "/api/v3/webhooks", {
    host: `elsewhere.${TEST_BASE_DOMAIN}`,
    token: foreignToken,
    body: document({ target: TARGET, topic: "person.updated" })
  })
  expect(foreign.status, foreign.text).toBe(201)
  foreignWebhookId = Number(foreign.json.data.id)

  const plain = await createBusiness(server.pool, { subdomain: "plain" })
  noFeatureToken = await createToken(server.pool, (await createPerson(server.pool, plain.id, { role: "primary_owner" })).accountId, plain.id)
})
afterAll(async () => server?.close())

describe("POST /api/v3/webhooks", () => {
  it("subscribes a target to a topic (201, JSON:API) and hands out a whsec_ secret once", async () => {
    const response = await post(document({ target: "http://127.0.0.1:9/hooks?from=studio", topic: "person.created", name: "CRM sync" }))
    expect(response.status, response.text).toBe(201)
    expect(response.headers["content-type"]).toContain(JSON_API)
    const data = response.json.data
    expect(data).toEqual({
      id: expect.stringMatching(/^\d+$/),
      type: "webhooks",
      links: { self: `http://demo.${TEST_BASE_DOMAIN}/api/v3/webhooks/${data.id}` },
      attributes: {
        account_id: owner.accountId,
        business_id: business.id,
        topic: "person.created",
        target: "http://127.0.0.1:9/hooks?from=studio",
        name: "CRM sync",
        description: null,
        enabled: true,
        disabled_at: null,
        disabled_reason: null,
        created_at: expect.stringMatching(/Z$/),
        updated_at: expect.stringMatching(/Z$/),
        secret: expect.stringMatching(/^whsec_/)
      }
    })
    expect(Buffer.from(data.attributes.secret.slice("whsec_".length), "base64")).toHaveLength(32)

    const again = await server.request("GET", `/api/v3/webhooks/${data.id}`, { token: ownerToken })
    expect(again.status).toBe(200)
    expect(again.json.data.attributes).not.toHaveProperty("secret")
    // Not in plain text at rest either.
    const { rows } = await server.pool.query("select secret_encrypted from webhook_subscriptions where id = $1", [data.id])
    expect(rows[0].secret_encrypted.toString("latin1")).not.toContain(data.attributes.secret.slice(6, 20))
  })

  it("accepts application/json too, and normalizes the target URL", async () => {
    const response = await post(document({ target: "HTTP://127.0.0.1:9", topic: "person.deleted" }), ownerToken, "application/json")
    expect(response.status, response.text).toBe(201)
    expect(response.json.data.attributes.target).toBe("http://127.0.0.1:9/")
  })

  it("refuses bad documents: 400 for shape and types, 422 for the rules", async () => {
    const unknownTopic = await post(document({ target: TARGET, topic: "person.exploded" }))
    expect(unknownTopic.status).toBe(400)
    expect(unknownTopic.json.errors.join()).toContain("topic")
    expect((await post({ data: { type: "people", attributes: { target: TARGET, topic: "person.created" } } })).status).toBe(400)
    expect((await post({ target: TARGET, topic: "person.created" })).status).toBe(400)

    const scheme = await post(document({ target: "ftp://example.test/hooks", topic: "person.created" }))
    expect(scheme.status).toBe(422)
    expect(scheme.json).toEqual({ errors: ["target must be an http or https URL"] })
    const credentials = await post(document({ target: "https://user:pw@example.test/hooks", topic: "person.created" }))
    expect(credentials.json).toEqual({ errors: ["target must not contain a user name or password"] })
    const relative = await post(document({ target: "/hooks", topic: "person.created", name: "x".repeat(201) }))
    expect(relative.status).toBe(422)
    expect(relative.json.errors).toEqual([
      "target must be an absolute http or https URL of at most 2048 characters",
      "name is too long (maximum is 200 characters)"
    ])
    const unresolvable = await post(document({ target: "https://no-such-host.invalid/hooks", topic: "person.created" }))
    expect(unresolvable.json).toEqual({ errors: ["The host of target, no-such-host.invalid, could not be resolved"] })
  })

  it("is for owners of a business with the webhooks feature", async () => {
    const manager = await post(document({ target: TARGET, topic: "person.created" }), managerToken)
    expect(manager.status).toBe(403)
    expect(manager.json).toEqual({ errors: ["Only an owner of the business may do this"] })
    const client = await post(document({ target: TARGET, topic: "person.created" }), clientToken)
    expect(client.status).toBe(403)
    expect(client.json.error).toBeDefined()
    expect((await server.request("GET", "/api/v3/webhooks")).status).toBe(401)

    const noFeature = await server.request("POST", "/api/v3/webhooks", {
      host: `plain.${TEST_BASE_DOMAIN}`,
      token: noFeatureToken,
      body: document({ target: TARGET, topic: "person.created" })
    })
    expect(noFeature.status).toBe(403)
    expect(noFeature.json).toEqual({ errors: ["Webhooks are not enabled for this business"] })
    const translated = await server.request("POST", "/api/v3/webhooks", {
      host: `plain.${TEST_BASE_DOMAIN}`,
      token: noFeatureToken,
      headers: { "x-fd-locale": "de" },
      body: document({ target: TARGET, topic: "person.created" })
    })
    expect(translated.json.errors[0]).toContain("nicht aktiviert")

    const accountHost = await server.request("GET", "/api/v3/webhooks", { host: TEST_BASE_DOMAIN, token: ownerToken })
    expect(accountHost.status).toBe(404)
  })
})

describe("GET, PATCH, DELETE /api/v3/webhooks/:id", () => {
  it("lists the business's webhooks, never another business's", async () => {
    const created = await subscribe({ topic: "visit.created" })
    const list = await server.request("GET", "/api/v3/webhooks", { token: ownerToken })
    expect(list.status).toBe(200)
    expect(list.headers["content-type"]).toContain(JSON_API)
    const ids = list.json.data.map((w: { id: string }) => w.id)
    expect(ids).toContain(created.id)
    expect(ids).not.toContain(String(foreignWebhookId))
    expect(list.json.meta.total_count).toBe(ids.length)
    expect(list.json.links.self).toBe(`http://demo.${TEST_BASE_DOMAIN}/api/v3/webhooks`)
    expect(list.json.data.every((w: { attributes: object }) => !("secret" in w.attributes))).toBe(true)

    const foreign = await server.request("GET", `/api/v3/webhooks/${foreignWebhookId}`, { token: ownerToken })
    expect(foreign.status).toBe(404)
    expect(foreign.json).toEqual({ errors: [`Webhook ${foreignWebhookId} not found`] })
    expect((await server.request("DELETE", `/api/v3/webhooks/${foreignWebhookId}`, { token: ownerToken })).status).toBe(404)
    expect(await exists(foreignWebhookId)).toBe(true)
    expect((await server.request("GET", "/api/v3/webhooks/abc", { token: ownerToken })).status).toBe(400)
    expect((await server.request("GET", "/api/v3/webhooks", { token: managerToken })).status).toBe(403)
  })

  it("updates the target, name and enabled flag", async () => {
    const created = await subscribe()
    const patch = (body: unknown) =>
      server.request("PATCH", `/api/v3/webhooks/${created.id}`, { token: ownerToken, body: JSON.stringify(body), headers: { "content-type": JSON_API } })
    const paused = await patch({ data: { type: "webhooks", id: created.id, attributes: { enabled: false, name: "Paused", target: "http://127.0.0.1:10/new" } } })
    expect(paused.status, paused.text).toBe(200)
    expect(paused.json.data.attributes).toMatchObject({
      enabled: false,
      disabled_reason: "manual",
      disabled_at: expect.stringMatching(/Z$/),
      name: "Paused",
      target: "http://127.0.0.1:10/new"
    })
    const resumed = await patch({ data: { type: "webhooks", attributes: { enabled: true, name: null } } })
    expect(resumed.json.data.attributes).toMatchObject({ enabled: true, disabled_reason: null, disabled_at: null, name: null })
    const mismatch = await patch({ data: { type: "webhooks", id: "999", attributes: { target: "gopher://x" } } })
    expect(mismatch.status).toBe(422)
    expect(mismatch.json.errors).toEqual(["data.id must be the id of the webhook in the path", "target must be an http or https URL"])
  })

  it("rotates the secret: a new one, shown once", async () => {
    const created = await subscribe()
    const rotated = await server.request("POST", `/api/v3/webhooks/${created.id}/rotate_secret`, { token: ownerToken })
    expect(rotated.status).toBe(200)
    expect(rotated.json.data.attributes.secret).toMatch(/^whsec_/)
    expect(rotated.json.data.attributes.secret).not.toBe(created.attributes.secret)
    const { rows } = await server.pool.query("select previous_secret_expires_at from webhook_subscriptions where id = $1", [created.id])
    expect(rows[0].previous_secret_expires_at.getTime()).toBeGreaterThan(Date.now())
  })

  it("deletes (204), then it is not found", async () => {
    const created = await subscribe()
    const deleted = await server.request("DELETE", `/api/v3/webhooks/${created.id}`, { token: ownerToken })
    expect(deleted.status).toBe(204)
    expect((await server.request("GET", `/api/v3/webhooks/${created.id}`, { token: ownerToken })).status).toBe(404)
    expect((await server.request("DELETE", `/api/v3/webhooks/${created.id}`, { token: ownerToken })).status).toBe(404)
  })

  it("has an empty delivery log at first, and no event to replay", async () => {
    const created = await subscribe()
    const log = await server.request("GET", `/api/v3/webhooks/${created.id}/deliveries`, { token: ownerToken })
    expect(log.status, log.text).toBe(200)
    expect(log.json).toEqual({ data: [], links: { self: `http://demo.${TEST_BASE_DOMAIN}/api/v3/webhooks/${created.id}/deliveries` } })
    const badFilter = await server.request("GET", `/api/v3/webhooks/${created.id}/deliveries?filter[status]=lost`, { token: ownerToken })
    expect(badFilter.status).toBe(400)
    const replay = await server.request("POST", `/api/v3/webhooks/${created.id}/events/msg_nope/replay`, { token: ownerToken })
    expect(replay.status).toBe(404)
    expect(replay.json).toEqual({ errors: [`Event msg_nope was not sent to webhook ${created.id}`] })
  })

  it("caps the number of webhooks of a business", async () => {
    const { rows } = await server.pool.query("select count(*)::int as n from webhook_subscriptions where business_id = $1", [business.id])
    await server.pool.query(
      `insert into webhook_subscriptions (business_id, created_by_staff_member_id, created_by_account_id, topic, target, secret_encrypted)
       select $1, $2, $3, 'person.created', 'http://127.0.0.1:9/', '\\x00' from generate_series(1, $4)`,
      [business.id, owner.staffMemberId, owner.accountId, 100 - rows[0].n]
    )
    const refused = await post(document({ target: TARGET, topic: "person.created" }))
    expect(refused.status).toBe(422)
    expect(refused.json).toEqual({ errors: ["A business can have at most 100 webhooks"] })
    await server.pool.query("delete from webhook_subscriptions where business_id = $1 and secret_encrypted = '\\x00'", [business.id])
  })
})

describe("removal rules (spec, Events)", () => {
  const ownerWithWebhook = async () => {
    const person = await createPerson(server.pool, business.id, { role: "owner" })
    const token = await createToken(server.pool, person.accountId, business.id)
    const created = await subscribe({}, token)
    return { person, created }
  }

  it("a webhook goes when its creator stops being an owner", async () => {
    const { person, created } = await ownerWithWebhook()
    const kept = await subscribe()
    await server.pool.query("update staff_members set role = 'primary_owner' where id = $1", [person.staffMemberId])
    expect(await exists(created.id)).toBe(true)
    await server.pool.query("update staff_members set role = 'manager' where id = $1", [person.staffMemberId])
    expect(await exists(created.id)).toBe(false)
    expect(await exists(kept.id)).toBe(true)
  })

  it("a webhook goes when its creator leaves the business (staff record removed, or person deleted)", async () => {
    const first = await ownerWithWebhook()
    await server.pool.query("delete from staff_members where id = $1", [first.person.staffMemberId])
    expect(await exists(first.created.id)).toBe(false)

    const second = await ownerWithWebhook()
    await server.pool.query("update people set deleted_at = now() where id = $1", [second.person.personId])
    expect(await exists(second.created.id)).toBe(false)
  })

  it("turning the webhooks feature off deletes every webhook of the business, and nothing elsewhere", async () => {
    const other = await createBusiness(server.pool, { subdomain: "switch" })
    await server.pool.query("update businesses set webhooks_enabled = true where id = $1", [other.id])
    const otherOwner = await createPerson(server.pool, other.id, { role: "owner" })
    const token = await createToken(server.pool, otherOwner.accountId, other.id)
    const created = await server.request("POST", "/api/v3/webhooks", {
      host: `switch.${TEST_BASE_DOMAIN}`,
      token,
      body: document({ target: TARGET, topic: "person.created" })
    })
    expect(created.status).toBe(201)
    await server.pool.query("update businesses set webhooks_enabled = false where id = $1", [other.id])
    expect(await exists(created.json.data.id)).toBe(false)
    expect(await exists(foreignWebhookId)).toBe(true)
    const list = await server.request("GET", "/api/v3/webhooks", { host: `switch.${TEST_BASE_DOMAIN}`, token })
    expect(list.json.data).toEqual([])
  })
})
