import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeSettableClock } from "../support/clock.ts"
import { createBusiness, createLocation, createPerson, createToken } from "../support/factories.ts"
import type { TestResponse } from "../support/http.ts"
import { type TestServer, startTestServer } from "../support/server.ts"
import { pendingJobs } from "../people/fixtures.ts"
import { lockWaiters, until } from "../support/waiting.ts"
import { createService, occurrencesOf, scheduleEvent } from "../schedule/fixtures.ts"

/**
 * Decisions that rest on a lock serializing their writers (docs/decisions.md, "A read after a
 * lock is its own statement"), raced over HTTP. Each race is made certain rather than likely:
 * the test holds a row lock that one request's insert has to wait for (its foreign-key check), as
 * any slow transaction might, so the other request runs inside the first one's transaction.
 * Each case failed before its fix:
 * - The cap of webhooks per business was counted under the business row's FOR SHARE lock, which
 *   two creators hold at once: both counted 99, both inserted.
 * - Completing an occurrence's attendance checked it active before its update, which a
 *   cancellation could commit in between: a canceled occurrence got its attendance and pays.
 * - A person's deletion (which refuses while future visits exist) and an admission of the person
 *   did not exclude each other: a booking that checked the person before the deletion committed
 *   inserted its visit after it.
 * - Filling a visit's person (PUT visits) or changing a lease's person read the person live and
 *   then attached them; the deletion's count of future visits ran in between and missed the visit.
 * - A waitlist join decides "full" under the occurrence's lock, but deleting a visit (or a booking
 *   holding one) freed the place without that lock and looked for waiting people before the join
 *   committed: the joiner was left waiting beside a free place, and no offer job was queued.
 */
const clock = makeSettableClock("2026-11-02T10:00:00Z")
let server: TestServer
let businessId: number
let ownerToken: string
let owner: Awaited<ReturnType<typeof createPerson>>
let location: number

/**
 * Holds a row lock (the statement's) in a transaction on a connection of its own: `release` rolls
 * it back, `commit` commits what `query` wrote in it meanwhile.
 */
const hold = async (statement: string, params: ReadonlyArray<unknown>) => {
  const client = await server.pool.connect()
  await client.query("begin")
  await client.query(statement, [...params])
  const end = (command: "rollback" | "commit") => async () => {
    await client.query(command)
    client.release()
  }
  return {
    query: (text: string, values: ReadonlyArray<unknown>) => client.query(text, [...values]),
    release: end("rollback"),
    commit: end("commit")
  }
}

/** The occurrence's row held, as a slow writer of it would. */
const holdOccurrence = (sessionId: number) =>
  hold(`select 1 from event_occurrences where business_id = $1 and id = $2 for update`, [businessId, sessionId])

/** A request whose completion can be looked at without waiting for it. */
const tracked = (response: Promise<TestResponse>) => {
  const state = { done: false, response }
  void response.then(() => void (state.done = true), () => void (state.done = true))
  return state
}

beforeAll(async () => {
  server = await startTestServer({ clock: clock.clock })
  businessId = (await createBusiness(server.pool, { subdomain: "demo" })).id
  await server.pool.query("update businesses set webhooks_enabled = true where id = $1", [businessId])
  location = (await createLocation(server.pool, businessId, { name: "Main" })).id
  owner = await createPerson(server.pool, businessId, { role: "owner" })
  ownerToken = await createToken(server.pool, owner.accountId, businessId)
}, 120_000)

afterAll(async () => {
  await server?.close()
})

describe("the webhook cap under concurrent creation", () => {
  it("two creations at once for the last free slot: one is created, the other refused, the business keeps 100", async () => {
    await server.pool.query(
      `insert into webhook_subscriptions (business_id, created_by_staff_member_id, created_by_account_id, topic, target, secret_encrypted)
       select $1, $2, $3, 'person.created', 'http://127.0.0.1:9/', '\\x00' from generate_series(1, 99)`,
      [businessId, owner.staffMemberId, owner.accountId]
    )
    const body = JSON.stringify({ data: { type: "webhooks", attributes: { target: "http://127.0.0.1:9/hooks", topic: "person.created" } } })
    const create = () => server.request("POST", "/api/v3/webhooks", { token: ownerToken, body, headers: { "content-type": "application/vnd.api+json" } })
    // The creator's staff row locked: each insert's foreign-key check waits here, after its count.
    const gate = await hold(`select 1 from staff_members where business_id = $1 and id = $2 for update`, [businessId, owner.staffMemberId])
    const requests = [create(), create()]
    await until(async () => (await lockWaiters(server.pool)) >= 2, "both creations waiting on the gate")
    await gate.release()
    const statuses = (await Promise.all(requests)).map((r) => r.status).sort()
    const { rows } = await server.pool.query("select count(*)::int as n from webhook_subscriptions where business_id = $1", [businessId])
    expect({ statuses, subscriptions: rows[0].n }).toEqual({ statuses: [201, 422], subscriptions: 100 })
  }, 30_000)
})

/** A one-place session (tomorrow's class) and a person to join its waitlist. */
const fullSession = async (name: string) => {
  const service = await createService(server.pool, businessId, { type: "GroupClass", name, maximum_clients: 1 })
  const eventId = await scheduleEvent(server, businessId, {
    service_id: service,
    location_id: location,
    name,
    frequency: "once",
    weekdays: [],
    start_date: "2026-11-05",
    start_time: "10:00",
    end_time: "11:00",
    capacity: 1,
    staff_member_ids: []
  })
  const [session] = await occurrencesOf(server.pool, businessId, eventId)
  const holder = await createPerson(server.pool, businessId, { first_name: "Holder" })
  const joiner = await createPerson(server.pool, businessId, { first_name: "Joiner" })
  return { sessionId: session!.id, holder: holder.personId, joiner: joiner.personId }
}

/**
 * The joiner's person row locked, so the join counts the place taken (full) and then waits at its
 * insert; `free` gives the place back meanwhile (or waits for the join, if it takes the
 * occurrence's lock). Answers what the occurrence ends with.
 */
const joinWhileFreeing = async (sessionId: number, joiner: number, free: () => Promise<TestResponse>) => {
  const gate = await hold(`select 1 from people where business_id = $1 and id = $2 for update`, [businessId, joiner])
  const join = server.request("POST", "/api/v2/desk/waitlist_entries", {
    token: ownerToken,
    body: { waitlist_entry: { person_id: joiner, event_occurrence_id: sessionId } }
  })
  await until(async () => (await lockWaiters(server.pool)) >= 1, "the join waiting on the gate")
  const freeing = tracked(free())
  await until(async () => freeing.done || (await lockWaiters(server.pool)) >= 2, "the freeing done or waiting")
  await gate.release()
  const [joined, freed] = await Promise.all([join, freeing.response])
  expect(freed.status, freed.text).toBe(204)
  expect(joined.status, joined.text).toBe(201)
  const { rows: [places] } = await server.pool.query(
    `select coalesce((select taken from event_occurrence_places where business_id = $1 and event_occurrence_id = $2), 0) as taken`,
    [businessId, sessionId]
  )
  const offers = ((await pendingJobs(server.pool, "offer_waitlist_places")) as Array<{ event_occurrence_id: number }>)
    .filter((job) => job.event_occurrence_id === sessionId)
  return { taken: places.taken, entry: joined.json.waitlist_entries[0].state, offers: offers.length }
}

describe("a place freed while someone joins the full occurrence's waitlist", () => {
  it("a deleted visit: the joiner left waiting beside the free place has an offer job queued", async () => {
    const { sessionId, holder, joiner } = await fullSession("Tiny")
    const { rows: [visit] } = await server.pool.query(
      `insert into visits (business_id, event_occurrence_id, person_id, state, registered_at) values ($1, $2, $3, 'registered', now()) returning id`,
      [businessId, sessionId, holder]
    )
    const outcome = await joinWhileFreeing(sessionId, joiner, () => server.request("DELETE", `/api/v2/desk/visits/${visit.id}`, { token: ownerToken }))
    // Waiting, a place free, and an offer on its way.
    expect(outcome).toEqual({ taken: 0, entry: "waiting", offers: 1 })
  }, 30_000)

  it("a deleted booking's held place: the same", async () => {
    const { sessionId, holder, joiner } = await fullSession("Tinier")
    const booked = await server.request("POST", "/api/v2/desk/bookings", {
      token: ownerToken,
      body: { booking: { leases: [{ event_occurrence_id: sessionId, person: { id: holder } }] } }
    })
    expect(booked.status, booked.text).toBe(201)
    const bookingId = booked.json.bookings[0].id as number
    const outcome = await joinWhileFreeing(sessionId, joiner, () => server.request("DELETE", `/api/v2/desk/bookings/${bookingId}`, { token: ownerToken }))
    expect(outcome).toEqual({ taken: 0, entry: "waiting", offers: 1 })
  }, 30_000)
})

describe("attendance completed while the occurrence is cancelled", () => {
  it("a cancellation committed after the request's check: attendance stays open and no service pays are enqueued", async () => {
    const { sessionId } = await fullSession("Closing")
    // The occurrence row held: the request checks it active (a plain read), then its update waits here.
    const gate = await holdOccurrence(sessionId)
    const completing = server.request("PUT", `/api/v2/desk/event_occurrences/${sessionId}`, { token: ownerToken, body: { attendance_complete: true } })
    await until(async () => (await lockWaiters(server.pool)) >= 1, "the attendance update waiting on the occurrence")
    await gate.query(`update event_occurrences set state = 'canceled', canceled_at = now() where business_id = $1 and id = $2`, [businessId, sessionId])
    await gate.commit()
    await completing
    const { rows: [row] } = await server.pool.query(`select state, attendance_complete from event_occurrences where business_id = $1 and id = $2`, [businessId, sessionId])
    const pays = ((await pendingJobs(server.pool, "create_service_pays")) as Array<{ event_occurrence_id: number }>)
      .filter((job) => job.event_occurrence_id === sessionId)
    expect({ ...row, pays: pays.length }).toEqual({ state: "canceled", attendance_complete: false, pays: 0 })
  }, 30_000)
})

describe("a person deleted while a booking admits them", () => {
  it("the booking that checked the person before the deletion committed is refused, and no visit outlives the person", async () => {
    const { sessionId, joiner: personId } = await fullSession("Last call")
    // The occurrence row held: the booking checks its person (live), then waits at the admission lock.
    const gate = await holdOccurrence(sessionId)
    const booking = server.request("POST", "/api/v2/desk/bookings", {
      token: ownerToken,
      body: { booking: { complete_booking: true, leases: [{ event_occurrence_id: sessionId, person: { id: personId } }] } }
    })
    await until(async () => (await lockWaiters(server.pool)) >= 1, "the booking waiting at the admission lock")
    // No future visit yet: the deletion goes through meanwhile.
    const removed = await server.request("DELETE", `/api/v2/desk/people/${personId}`, { token: ownerToken })
    expect(removed.status, removed.text).toBe(204)
    await gate.release()
    const booked = await booking
    const { rows: [visits] } = await server.pool.query(
      `select count(*)::int as n from visits where business_id = $1 and person_id = $2`,
      [businessId, personId]
    )
    expect({ status: booked.status, visits: visits.n }).toEqual({ status: 404, visits: 0 })
  }, 30_000)
})

/**
 * The deletion paused after its count of future visits: its person.deleted event waits at its
 * key check of the business row, held here. Meanwhile the attaching write runs (it waits for the
 * deletion's commit once it locks the person; before that lock it read the person live and its
 * key check of the person did not wait). Answers both statuses and the visits left with a
 * deleted person.
 */
const deleteWhileAttaching = async (personId: number, attach: () => Promise<TestResponse>) => {
  const { rows: [subscription] } = await server.pool.query(
    `insert into webhook_subscriptions (business_id, created_by_staff_member_id, created_by_account_id, topic, target, secret_encrypted)
     select business_id, created_by_staff_member_id, created_by_account_id, 'person.deleted', target, secret_encrypted
     from webhook_subscriptions where business_id = $1 limit 1 returning id`,
    [businessId]
  )
  const gate = await hold(`select 1 from businesses where id = $1 for update`, [businessId])
  const deleting = server.request("DELETE", `/api/v2/desk/people/${personId}`, { token: ownerToken })
  await until(async () => (await lockWaiters(server.pool)) >= 1, "the deletion waiting at its event")
  const attaching = tracked(attach())
  await until(async () => attaching.done || (await lockWaiters(server.pool)) >= 2, "the attaching write done or waiting")
  await gate.release()
  const [attached, deleted] = await Promise.all([attaching.response, deleting])
  await server.pool.query(`delete from webhook_subscriptions where id = $1`, [subscription.id])
  const { rows: [orphans] } = await server.pool.query(
    `select count(*)::int as n from visits v join people p on p.business_id = v.business_id and p.id = v.person_id
     where v.business_id = $1 and v.person_id = $2 and p.deleted_at is not null`,
    [businessId, personId]
  )
  return { attached: attached.status, deleted: deleted.status, orphanVisits: orphans.n }
}

describe("a person deleted while a visit or a lease takes them", () => {
  it("PUT visits person_id: the filling waits for the deletion and finds the person gone, no visit outlives the person", async () => {
    const { sessionId, joiner: personId } = await fullSession("Open seat")
    const reserved = await server.request("POST", "/api/v2/desk/visits", {
      token: ownerToken,
      body: { visit: { event_occurrence_id: sessionId, state: "reserved" } }
    })
    expect(reserved.status, reserved.text).toBe(201)
    const visitId = reserved.json.visits[0].id as number
    const outcome = await deleteWhileAttaching(personId, () =>
      server.request("PUT", `/api/v2/desk/visits/${visitId}`, { token: ownerToken, body: { visit: { person_id: personId } } })
    )
    expect(outcome).toEqual({ attached: 404, deleted: 204, orphanVisits: 0 })
  }, 30_000)

  it("PUT a lease's person: the same", async () => {
    const { sessionId, holder, joiner: personId } = await fullSession("Swap")
    const booked = await server.request("POST", "/api/v2/desk/bookings", {
      token: ownerToken,
      body: { booking: { leases: [{ event_occurrence_id: sessionId, person: { id: holder } }] } }
    })
    expect(booked.status, booked.text).toBe(201)
    const booking = booked.json.bookings[0] as { id: number; leases: Array<{ id: number }> }
    const outcome = await deleteWhileAttaching(personId, () =>
      server.request("PUT", `/api/v2/desk/bookings/${booking.id}/leases/${booking.leases[0]!.id}`, {
        token: ownerToken,
        body: { lease: { person: { id: personId } } }
      })
    )
    expect(outcome).toEqual({ attached: 404, deleted: 204, orphanVisits: 0 })
  }, 30_000)
})
