import { Webhook } from "standardwebhooks"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createBusiness, createPerson, createToken } from "../support/factories.ts"
import { TEST_BASE_DOMAIN, type TestServer, startTestServer } from "../support/server.ts"
import { type Answer, type Receiver, type Received, startReceiver } from "./receiver.ts"

/**
 * Delivery end to end: the real service with its graphile-worker runner, a real HTTP receiver
 * on loopback, and every notification verified with the `standardwebhooks` package, the
 * verifier consumers use. Retries are not waited for: the test moves the next attempt's job
 * to now, as time passing would.
 */

let server: TestServer
let business: { id: number; subdomain: string }
let ownerToken: string
let receiver: Receiver
/** Per path: how the receiver answers the n-th request on it. */
const scripts = new Map<string, (n: number) => Answer>()
const counts = new Map<string, number>()

const JSON_API = "application/vnd.api+json"

const subscribe = async (topic: string, path: string) => {
  const response = await server.request("POST", "/api/v3/webhooks", {
    token: ownerToken,
    headers: { "content-type": JSON_API },
    body: JSON.stringify({ data: { type: "webhooks", attributes: { target: receiver.url(path), topic } } })
  })
  expect(response.status, response.text).toBe(201)
  return { id: Number(response.json.data.id), secret: response.json.data.attributes.secret as string }
}

const headersOf = (request: Received) => ({
  "webhook-id": String(request.headers["webhook-id"]),
  "webhook-timestamp": String(request.headers["webhook-timestamp"]),
  "webhook-signature": String(request.headers["webhook-signature"])
})

/** Verifies like a consumer: throws unless the signature is good; returns the payload. */
const verify = (secret: string, request: Received) => new Webhook(secret).verify(request.body, headersOf(request)) as any

const onPath = (path: string) => receiver.received.filter((r) => r.path === path)
const waitOnPath = (path: string, count: number) =>
  receiver.waitFor((all) => all.filter((r) => r.path === path).length >= count, `${count} request(s) on ${path}`)

const deliveries = async (webhookId: number) => {
  const response = await server.request("GET", `/api/v3/webhooks/${webhookId}/deliveries`, { token: ownerToken })
  expect(response.status, response.text).toBe(200)
  return response.json.data as Array<{ id: string; attributes: any }>
}

/** Waits until the delivery log of a webhook satisfies `predicate`. */
const waitForLog = async (webhookId: number, predicate: (log: Array<{ id: string; attributes: any }>) => boolean) => {
  for (let i = 0; i < 200; i++) {
    const log = await deliveries(webhookId)
    if (predicate(log)) return log
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`delivery log of webhook ${webhookId} never matched: ${JSON.stringify(await deliveries(webhookId))}`)
}

/** Time passes: the scheduled next attempt of the delivery becomes due now. */
const makeDue = async (deliveryId: string | number) => {
  const { rowCount } = await server.pool.query("update graphile_worker._private_jobs set run_at = now() where key = $1 and locked_at is null", [
    `webhook_delivery:${business.id}:${deliveryId}`
  ])
  expect(rowCount).toBe(1)
}

const createPersonViaApi = async (person: Record<string, unknown>) => {
  const response = await server.request("POST", "/api/v2/desk/people", { token: ownerToken, body: { person } })
  expect(response.status, response.text).toBe(201)
  return response.json.people[0] as { id: number; [key: string]: unknown }
}

beforeAll(async () => {
  receiver = await startReceiver((request) => {
    const n = counts.get(request.path) ?? 0
    counts.set(request.path, n + 1)
    return scripts.get(request.path)?.(n) ?? 200
  })
  server = await startTestServer({ worker: true })
  business = await createBusiness(server.pool, { subdomain: "demo", name: "Demo Studio" })
  await server.pool.query("update businesses set webhooks_enabled = true where id = $1", [business.id])
  const owner = await createPerson(server.pool, business.id, { role: "owner" })
  ownerToken = await createToken(server.pool, owner.accountId, business.id)
})
afterAll(async () => {
  await server?.close()
  await receiver?.close()
})

describe("person.created, person.updated, person.deleted", () => {
  it("delivers each change, signed per Standard Webhooks, shaped like the Core API response", async () => {
    const created = await subscribe("person.created", "/created")
    const updated = await subscribe("person.updated", "/updated")
    const deleted = await subscribe("person.deleted", "/deleted")

    const person = await createPersonViaApi({ first_name: "Grace", last_name: "Hopper", email: "grace@example.test" })
    const [createdRequest] = await waitOnPath("/created", 1)
      .then(() => onPath("/created"))
    const payload = verify(created.secret, createdRequest!)
    expect(createdRequest!.headers["content-type"]).toBe("application/json")
    expect(payload).toEqual({
      id: createdRequest!.headers["webhook-id"],
      topic: "person.created",
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/),
      business_id: business.id,
      people: [person]
    })
    expect(payload.id).toMatch(/^msg_[0-9a-f]{32}$/)
    // Signed with this subscription's secret only.
    expect(() => verify(updated.secret, createdRequest!)).toThrow()

    const put = await server.request("PUT", `/api/v2/desk/people/${person.id}`, { token: ownerToken, body: { person: { first_name: "Amazing Grace" } } })
    expect(put.status).toBe(200)
    await waitOnPath("/updated", 1)
    const updatedPayload = verify(updated.secret, onPath("/updated")[0]!)
    expect(updatedPayload.topic).toBe("person.updated")
    expect(updatedPayload.people).toEqual(put.json.people)
    expect(updatedPayload.id).not.toBe(payload.id)

    const del = await server.request("DELETE", `/api/v2/desk/people/${person.id}`, { token: ownerToken })
    expect(del.status).toBe(204)
    await waitOnPath("/deleted", 1)
    const deletedPayload = verify(deleted.secret, onPath("/deleted")[0]!)
    expect(deletedPayload.topic).toBe("person.deleted")
    expect(deletedPayload.people[0]).toMatchObject({ id: person.id, deleted_at: expect.stringMatching(/Z$/) })

    // The log: one delivery, one attempt, a 200, nothing more due.
    const log = await waitForLog(created.id, (log) => log[0]?.attributes.status === "succeeded")
    expect(log).toHaveLength(1)
    expect(log[0]).toMatchObject({
      type: "webhook_deliveries",
      attributes: {
        webhook_id: created.id,
        event_id: payload.id,
        topic: "person.created",
        kind: "event",
        status: "succeeded",
        attempt_count: 1,
        last_status_code: 200,
        next_attempt_at: null,
        completed_at: expect.stringMatching(/Z$/),
        attempts: [{ attempt: 1, status_code: 200, latency_ms: expect.any(Number), error: null, response_body: "ok" }]
      }
    })
  })

  it("emits one event per person: a new person with dependents is three person.created", async () => {
    const created = await subscribe("person.created", "/family")
    const parent = await createPersonViaApi({
      first_name: "Ada",
      last_name: "King",
      dependents: [{ first_name: "Anne", last_name: "King" }, { first_name: "Byron", last_name: "King" }]
    })
    await waitOnPath("/family", 3)
    const names = onPath("/family").map((request) => verify(created.secret, request).people[0].first_name).sort()
    expect(names).toEqual(["Ada", "Anne", "Byron"])
    expect(new Set(onPath("/family").map((r) => r.headers["webhook-id"])).size).toBe(3)
    expect(parent.dependents).toHaveLength(2)
  })

  it("stores nothing and sends nothing for a change nobody subscribed to, or one that rolled back", async () => {
    const before = Number((await server.pool.query("select count(*) from webhook_events where topic = 'person.deleted'")).rows[0].count)
    // A refused delete (yourself) rolls back: no person.deleted event.
    const me = await server.request("GET", "/api/v2/desk/people/me", { token: ownerToken })
    const refused = await server.request("DELETE", `/api/v2/desk/people/${me.json.people[0].id}`, { token: ownerToken })
    expect(refused.status).toBe(422)
    const after = Number((await server.pool.query("select count(*) from webhook_events where topic = 'person.deleted'")).rows[0].count)
    expect(after).toBe(before)
  })
})

describe("retries, 410 and replay", () => {
  it("a receiver that fails twice then succeeds gets the event three times with the same webhook-id", async () => {
    scripts.set("/flaky", (n) => (n < 2 ? 500 : 200))
    const webhook = await subscribe("person.updated", "/flaky")
    const person = await createPersonViaApi({ first_name: "Flaky", last_name: "Receiver" })
    await server.request("PUT", `/api/v2/desk/people/${person.id}`, { token: ownerToken, body: { person: { last_name: "Receiver 2" } } })

    let log = await waitForLog(webhook.id, (log) => log[0]?.attributes.attempts.length === 1 && log[0].attributes.next_attempt_at !== null)
    const first = log[0]!.attributes
    expect(first).toMatchObject({ status: "pending", last_status_code: 500, attempts: [{ attempt: 1, status_code: 500, response_body: "status 500" }] })
    // The schedule: 5 seconds after the first attempt (plus at most 10% jitter and its latency).
    const wait = Date.parse(first.next_attempt_at) - Date.parse(first.attempts[0].started_at)
    expect(wait).toBeGreaterThanOrEqual(4_000)
    expect(wait).toBeLessThanOrEqual(6_500 + first.attempts[0].latency_ms)

    await makeDue(log[0]!.id)
    log = await waitForLog(webhook.id, (log) => log[0]?.attributes.attempts.length === 2 && log[0].attributes.next_attempt_at !== null)
    const second = log[0]!.attributes
    const wait2 = Date.parse(second.next_attempt_at) - Date.parse(second.attempts[1].started_at)
    expect(wait2).toBeGreaterThanOrEqual(59_000) // the second delay is a minute
    await makeDue(log[0]!.id)
    log = await waitForLog(webhook.id, (log) => log[0]?.attributes.status === "succeeded")

    const requests = onPath("/flaky")
    expect(requests).toHaveLength(3)
    for (const request of requests) verify(webhook.secret, request)
    expect(new Set(requests.map((r) => r.headers["webhook-id"])).size).toBe(1)
    expect(requests.map((r) => r.body)).toEqual([requests[0]!.body, requests[0]!.body, requests[0]!.body])
    expect(log[0]!.attributes.attempts.map((a: { status_code: number }) => a.status_code)).toEqual([500, 500, 200])
    expect(log[0]!.attributes).toMatchObject({ attempt_count: 3, next_attempt_at: null, last_status_code: 200 })
  })

  it("a receiver answering 410 disables the subscription; an owner can enable it again", async () => {
    scripts.set("/gone", () => 410)
    const webhook = await subscribe("person.created", "/gone")
    await createPersonViaApi({ first_name: "Gone", last_name: "Receiver" })
    const log = await waitForLog(webhook.id, (log) => log[0]?.attributes.status === "failed")
    expect(log[0]!.attributes).toMatchObject({ attempt_count: 1, last_status_code: 410, next_attempt_at: null })
    const got = await server.request("GET", `/api/v3/webhooks/${webhook.id}`, { token: ownerToken })
    expect(got.json.data.attributes).toMatchObject({ enabled: false, disabled_reason: "gone", disabled_at: expect.stringMatching(/Z$/) })

    // No more notifications while disabled: the event reaches the first test's subscriber, not this one.
    await createPersonViaApi({ first_name: "Unheard", last_name: "Person" })
    await receiver.waitFor((all) => all.some((r) => r.path === "/created" && r.json?.people?.[0]?.first_name === "Unheard"), "Unheard")
    expect(await deliveries(webhook.id)).toHaveLength(1)
    const replay = await server.request("POST", `/api/v3/webhooks/${webhook.id}/events/${log[0]!.attributes.event_id}/replay`, { token: ownerToken })
    expect(replay.status).toBe(422)

    scripts.set("/gone", () => 204)
    const enabled = await server.request("PATCH", `/api/v3/webhooks/${webhook.id}`, {
      token: ownerToken,
      body: { data: { type: "webhooks", attributes: { enabled: true } } }
    })
    expect(enabled.json.data.attributes.enabled).toBe(true)
    await createPersonViaApi({ first_name: "Heard", last_name: "Again" })
    await waitOnPath("/gone", 2)
    expect(verify(webhook.secret, onPath("/gone")[1]!).people[0].first_name).toBe("Heard")
    expect(onPath("/gone")).toHaveLength(2)
  })

  it("replays one event: a new delivery, the same webhook-id", async () => {
    const webhook = await subscribe("person.created", "/replay")
    await createPersonViaApi({ first_name: "Replayed", last_name: "Person" })
    await waitOnPath("/replay", 1)
    const original = onPath("/replay")[0]!
    const eventId = String(original.headers["webhook-id"])
    await waitForLog(webhook.id, (log) => log[0]?.attributes.status === "succeeded")

    const replay = await server.request("POST", `/api/v3/webhooks/${webhook.id}/events/${eventId}/replay`, { token: ownerToken })
    expect(replay.status, replay.text).toBe(202)
    expect(replay.headers["content-type"]).toContain(JSON_API)
    expect(replay.json.data.attributes).toMatchObject({ event_id: eventId, kind: "replay", status: "pending", attempt_count: 0, attempts: [] })
    await waitOnPath("/replay", 2)
    const again = onPath("/replay")[1]!
    expect(again.headers["webhook-id"]).toBe(eventId)
    expect(verify(webhook.secret, again)).toEqual(verify(webhook.secret, original))
    const log = await waitForLog(webhook.id, (log) => log.length === 2 && log.every((d) => d.attributes.status === "succeeded"))
    expect(log.map((d) => d.attributes.kind)).toEqual(["replay", "event"])
  })

  it("pages the delivery log, newest first, and filters it by status", async () => {
    const webhook = await subscribe("person.created", "/paged")
    for (const name of ["One", "Two", "Three"]) await createPersonViaApi({ first_name: name, last_name: "Paged" })
    await waitForLog(webhook.id, (log) => log.length === 3 && log.every((d) => d.attributes.status === "succeeded"))
    const page1 = await server.request("GET", `/api/v3/webhooks/${webhook.id}/deliveries?page[size]=2`, { token: ownerToken })
    expect(page1.json.data).toHaveLength(2)
    const next = new URL(page1.json.links.next)
    expect(next.host).toBe(`demo.${TEST_BASE_DOMAIN}`)
    const page2 = await server.request("GET", `${next.pathname}${next.search}`, { token: ownerToken })
    expect(page2.json.data).toHaveLength(1)
    expect(page2.json.links.next).toBeUndefined()
    const ids = [...page1.json.data, ...page2.json.data].map((d: { id: string }) => Number(d.id))
    expect(ids).toEqual([...ids].sort((a, b) => b - a))
    const failed = await server.request("GET", `/api/v3/webhooks/${webhook.id}/deliveries?filter[status]=failed`, { token: ownerToken })
    expect(failed.json.data).toEqual([])
  })
})

describe("secret rotation and switching the feature off", () => {
  it("signs with both secrets for a day after a rotation", async () => {
    const webhook = await subscribe("person.created", "/rotated")
    const rotated = await server.request("POST", `/api/v3/webhooks/${webhook.id}/rotate_secret`, { token: ownerToken })
    const newSecret = rotated.json.data.attributes.secret as string
    await createPersonViaApi({ first_name: "Rotated", last_name: "Secret" })
    await waitOnPath("/rotated", 1)
    const request = onPath("/rotated")[0]!
    expect(String(request.headers["webhook-signature"]).split(" ")).toHaveLength(2)
    expect(verify(newSecret, request).people[0].first_name).toBe("Rotated")
    expect(verify(webhook.secret, request).people[0].first_name).toBe("Rotated")
  })

  it("turning the feature off stops pending retries", async () => {
    scripts.set("/off", () => 503)
    const webhook = await subscribe("person.created", "/off")
    await createPersonViaApi({ first_name: "Never", last_name: "Delivered" })
    const log = await waitForLog(webhook.id, (log) => log[0]?.attributes.next_attempt_at != null)
    await server.pool.query("update businesses set webhooks_enabled = false where id = $1", [business.id])
    await makeDue(log[0]!.id)
    // The job runs and finds its delivery gone with the subscription: nothing is sent.
    for (let i = 0; i < 50; i++) {
      const { rowCount } = await server.pool.query("select 1 from graphile_worker._private_jobs where key = $1", [
        `webhook_delivery:${business.id}:${log[0]!.id}`
      ])
      if (rowCount === 0) break
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    expect(onPath("/off")).toHaveLength(1)
    expect((await server.pool.query("select 1 from webhook_subscriptions where business_id = $1", [business.id])).rowCount).toBe(0)
    await server.pool.query("update businesses set webhooks_enabled = true where id = $1", [business.id])
  })
})
