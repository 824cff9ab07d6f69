import { parseCrontab } from "graphile-worker"
import { Webhook } from "standardwebhooks"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { setOccurrenceState } from "../../src/schedule/event-occurrences/service.ts"
import { RETENTION_DAYS, pruneWebhookEvents } from "../../src/webhooks/retention.ts"
import { UPCOMING_WINDOW_HOURS, emitUpcomingOccurrences } from "../../src/schedule/event-occurrences/upcoming.ts"
import { crontab } from "../../workers/crontab.ts"
import { tasks } from "../../workers/runner.ts"
import { makeSettableClock } from "../support/clock.ts"
import { createBusiness, createLocation, createPerson, createToken } from "../support/factories.ts"
import { type TestServer, startTestServer } from "../support/server.ts"
import { trustedProxies } from "../../src/platform/trust-proxy.ts"
import { createService, occurrencesOf, scheduleEvent } from "../schedule/fixtures.ts"
import { type Receiver, type Received, startReceiver } from "./receiver.ts"

/**
 * The scheduled parts of webhooks on a pinned clock: event_occurrence.upcoming (once per
 * occurrence entering the next 24 hours, delivered by the real worker and verified with
 * `standardwebhooks`) and the retention sweep. The job's Effect is run directly, as the cron
 * would; assertions count stored events rather than a run's return value, because the worker's
 * own cron entry may run the same job (on the same pinned clock) at a five-minute boundary.
 */
const NOW = "2026-11-02T16:00:00Z"
const HOUR = 3_600_000
const clock = makeSettableClock(NOW)

let server: TestServer
let business: { id: number; subdomain: string }
let quiet: { id: number; subdomain: string }
let ownerToken: string
let receiver: Receiver
let webhook: { id: number; secret: string }
const services = new Map<number, number>()
const staff = new Map<number, { staffMemberId: number; location: number }>()

/** A one-off class of `businessId` starting `hoursFromNow` after the clock's current instant. */
const materializationsApplied = async () => {
  for (let waited = 0; waited < 30_000; waited += 100) {
    const pending = await server.pool.query(
      "select 1 from graphile_worker._private_jobs where key like 'materialize_event_occurrences:%' and attempts < max_attempts limit 1"
    )
    if (pending.rowCount === 0) return
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error("the events' materialization jobs did not run within 30 s")
}

const occurrenceAt = async (hoursFromNow: number, businessId = business.id) => {
  const start = new Date(clock.now().getTime() + hoursFromNow * HOUR)
  const end = new Date(start.getTime() + HOUR)
  const eventId = await scheduleEvent(server, businessId, {
    service_id: services.get(businessId)!,
    location_id: staff.get(businessId)!.location,
    name: `Class at ${start.toISOString()}`,
    frequency: "once",
    weekdays: [],
    start_date: start.toISOString().slice(0, 10),
    start_time: start.toISOString().slice(11, 16),
    end_time: end.toISOString().slice(11, 16),
    capacity: 10,
    staff_member_ids: [staff.get(businessId)!.staffMemberId]
  })
  const [occurrence] = await occurrencesOf(server.pool, businessId, eventId)
  expect(occurrence!.start_at).toBe(start.toISOString().replace(".000Z", "Z"))
  return occurrence!.id
}

const runJob = () => server.runtime.runPromise(emitUpcomingOccurrences())

/** The occurrence ids of the stored event_occurrence.upcoming events, in order. */
const announcedIds = async () =>
  (
    await server.pool.query(
      `select (payload::jsonb -> 'event_occurrences' -> 0 ->> 'id')::int as id from webhook_events
       where topic = 'event_occurrence.upcoming' order by id`
    )
  ).rows.map((row: { id: number }) => row.id)

const notifiedAt = async (occurrenceId: number) =>
  (await server.pool.query("select upcoming_notified_at from event_occurrences where id = $1", [occurrenceId])).rows[0]
    .upcoming_notified_at as Date | null

/**
 * Verifies as a consumer whose clock agrees with the service's: the signature over id,
 * timestamp and body, and the timestamp within the package's 5-minute tolerance of "now".
 */
const verify = (secret: string, request: Received) => {
  const realNow = Date.now
  Date.now = () => clock.now().getTime()
  try {
    return new Webhook(secret).verify(request.body, {
      "webhook-id": String(request.headers["webhook-id"]),
      "webhook-timestamp": String(request.headers["webhook-timestamp"]),
      "webhook-signature": String(request.headers["webhook-signature"])
    }) as any
  } finally {
    Date.now = realNow
  }
}

const requestsFor = (occurrenceId: number) =>
  receiver.received.filter((r) => r.path === "/upcoming" && r.json?.event_occurrences?.[0]?.id === occurrenceId)

beforeAll(async () => {
  receiver = await startReceiver()
  // The test client stands for the load balancer: its X-Forwarded-Proto is believed.
  server = await startTestServer({ clock: clock.clock, worker: true, trustProxy: trustedProxies("loopback") })
  business = await createBusiness(server.pool, { subdomain: "demo", name: "Demo Studio", time_zone: "UTC" })
  quiet = await createBusiness(server.pool, { subdomain: "quiet", time_zone: "UTC" })
  for (const b of [business, quiet]) {
    await server.pool.query("update businesses set webhooks_enabled = true where id = $1", [b.id])
    const location = (await createLocation(server.pool, b.id, { name: "Main", time_zone: "UTC" })).id
    const owner = await createPerson(server.pool, b.id, { role: "owner" })
    staff.set(b.id, { staffMemberId: owner.staffMemberId!, location })
    services.set(b.id, await createService(server.pool, b.id, { type: "GroupClass", name: "Yoga" }))
    if (b === business) ownerToken = await createToken(server.pool, owner.accountId, b.id)
  }
}, 120_000)

afterAll(async () => {
  await server?.close()
  await receiver?.close()
})

describe("event_occurrence.upcoming", () => {
  it("is registered as a task and runs every five minutes from the crontab", () => {
    const item = parseCrontab(crontab).find((candidate) => candidate.task === "emit_upcoming_occurrences")!
    expect(item).toBeDefined()
    expect(item.match).toBeDefined()
    expect(crontab).toContain("*/5 * * * * emit_upcoming_occurrences")
    expect(tasks).toHaveProperty("emit_upcoming_occurrences")
    expect(UPCOMING_WINDOW_HOURS).toBe(24)
  })

  it("stores and marks nothing while nobody subscribes to the topic", async () => {
    const soon = await occurrenceAt(2)
    await runJob()
    expect(await announcedIds()).toEqual([])
    expect(await notifiedAt(soon)).toBeNull()
    // Cancel it so the later tests start from a clean window.
    await server.runtime.runPromise(setOccurrenceState(business.id, [soon], "canceled"))
  })

  it("announces each active occurrence once as it enters the next 24 hours, delivered and signed", async () => {
    const response = await server.request("POST", "/api/v3/webhooks", {
      token: ownerToken,
      headers: { "content-type": "application/vnd.api+json" },
      body: JSON.stringify({ data: { type: "webhooks", attributes: { target: receiver.url("/upcoming"), topic: "event_occurrence.upcoming" } } })
    })
    expect(response.status, response.text).toBe(201)
    webhook = { id: Number(response.json.data.id), secret: response.json.data.attributes.secret }

    const soon = await occurrenceAt(2)
    const edge = await occurrenceAt(24)
    const later = await occurrenceAt(30)
    const canceled = await occurrenceAt(3)
    await server.runtime.runPromise(setOccurrenceState(business.id, [canceled], "canceled"))
    const started = await occurrenceAt(-0.5)
    const elsewhere = await occurrenceAt(1, quiet.id)
    // The body is compared with a later desk GET: the worker first applies the events' own
    // materialization jobs, or the occurrences' `updating` would change between the two.
    await materializationsApplied()

    await runJob()
    expect(await announcedIds()).toEqual([soon, edge])
    expect((await notifiedAt(soon))?.getTime()).toBe(Date.parse(NOW))
    for (const id of [later, canceled, started, elsewhere]) expect(await notifiedAt(id)).toBeNull()

    // Delivered and verified; the body is the desk GET of the occurrence (links over https: a job has no request).
    await receiver.waitFor((all) => requestsFor(soon).length + requestsFor(edge).length >= 2, "soon and edge")
    const [request] = requestsFor(soon)
    const payload = verify(webhook.secret, request!)
    const desk = await server.request("GET", `/api/v2/desk/event_occurrences/${soon}`, {
      token: ownerToken,
      headers: { "x-forwarded-proto": "https" }
    })
    expect(desk.status).toBe(200)
    expect(payload).toEqual({
      id: request!.headers["webhook-id"],
      topic: "event_occurrence.upcoming",
      created_at: NOW,
      business_id: business.id,
      event_occurrences: desk.json.event_occurrences
    })
    expect(payload.event_occurrences[0]).toMatchObject({ id: soon, state: "active", url: `https://demo.studio.test/api/v2/front/event_occurrences/${soon}` })

    // A second run announces nothing again.
    await runJob()
    expect(await announcedIds()).toEqual([soon, edge])

    // Seven hours on, `later` (now 23 hours away) enters the window; the others stay announced once.
    clock.set(new Date(Date.parse(NOW) + 7 * HOUR))
    await runJob()
    await runJob()
    expect(await announcedIds()).toEqual([soon, edge, later])
    await receiver.waitFor(() => requestsFor(later).length >= 1, "later")
    expect(verify(webhook.secret, requestsFor(later)[0]!).event_occurrences[0].id).toBe(later)
    expect(await notifiedAt(canceled)).toBeNull()
    expect(await notifiedAt(elsewhere)).toBeNull()
    expect(requestsFor(soon)).toHaveLength(1)
    expect(requestsFor(edge)).toHaveLength(1)
  })

  it("overlapping runs announce an occurrence once", async () => {
    const ids = [await occurrenceAt(4), await occurrenceAt(5), await occurrenceAt(6)]
    const before = await announcedIds()
    await Promise.all([runJob(), runJob(), runJob()])
    const after = await announcedIds()
    expect(after.slice(before.length).sort((a, b) => a - b)).toEqual(ids)
    await receiver.waitFor(() => ids.every((id) => requestsFor(id).length >= 1), "the three occurrences")
    for (const id of ids) expect(requestsFor(id)).toHaveLength(1)
  })
})

describe("retention", () => {
  it("is registered as a daily task", () => {
    const item = parseCrontab(crontab).find((candidate) => candidate.task === "prune_webhook_events")!
    expect(item).toBeDefined()
    expect(tasks).toHaveProperty("prune_webhook_events")
    expect(RETENTION_DAYS).toBe(30)
  })

  it("prunes events older than 30 days with their deliveries and attempts, in batches, keeping pending ones", async () => {
    const now = clock.now().getTime()
    const day = 24 * HOUR
    const insertEvent = async (ageDays: number, status: "succeeded" | "pending" | null) => {
      const createdAt = new Date(now - ageDays * day)
      const { rows } = await server.pool.query(
        `insert into webhook_events (business_id, message_id, topic, payload, created_at)
         values ($1, 'msg_' || md5(random()::text), 'event_occurrence.upcoming', '{}'::json, $2) returning id`,
        [business.id, createdAt]
      )
      const eventId = Number(rows[0].id)
      if (status !== null) {
        const delivery = await server.pool.query(
          `insert into webhook_deliveries (business_id, subscription_id, event_id, status, attempt_count, created_at)
           values ($1, $2, $3, $4, 1, $5) returning id`,
          [business.id, webhook.id, eventId, status, createdAt]
        )
        await server.pool.query(
          `insert into webhook_delivery_attempts (business_id, delivery_id, attempt, started_at, status_code, latency_ms)
           values ($1, $2, 1, $3, $4, 5)`,
          [business.id, delivery.rows[0].id, createdAt, status === "succeeded" ? 200 : 500]
        )
      }
      return eventId
    }
    const old = [await insertEvent(31, "succeeded"), await insertEvent(45, "succeeded"), await insertEvent(60, null), await insertEvent(30.01, "succeeded")]
    const oldButPending = await insertEvent(40, "pending")
    const recent = [await insertEvent(29.9, "succeeded"), await insertEvent(1, null)]
    const ids = [...old, oldButPending, ...recent]
    const existing = async () =>
      (await server.pool.query("select id::int from webhook_events where id = any($1) order by id", [ids])).rows.map((r: { id: number }) => r.id)

    // Batches of two: four old events take three statements, each a batch.
    const pruned = await server.runtime.runPromise(pruneWebhookEvents({ batch: 2 }))
    expect(pruned).toBe(old.length)
    expect(await existing()).toEqual([oldButPending, ...recent])
    const orphans = await server.pool.query(
      `select (select count(*)::int from webhook_deliveries where event_id = any($1)) as deliveries,
              (select count(*)::int from webhook_delivery_attempts a join webhook_deliveries d
                 on d.business_id = a.business_id and d.id = a.delivery_id where d.event_id = any($1)) as attempts,
              (select count(*)::int from webhook_delivery_attempts a
                 where not exists (select 1 from webhook_deliveries d where d.business_id = a.business_id and d.id = a.delivery_id)) as stray`,
      [old]
    )
    expect(orphans.rows[0]).toEqual({ deliveries: 0, attempts: 0, stray: 0 })
    // The pending delivery settles: the next sweep takes its event.
    await server.pool.query("update webhook_deliveries set status = 'succeeded' where event_id = $1", [oldButPending])
    await server.runtime.runPromise(pruneWebhookEvents())
    expect(await existing()).toEqual(recent)
    // The announced occurrences of the tests above are recent: kept, and still delivered in the log.
    expect((await announcedIds()).length).toBeGreaterThan(0)
  })
})
