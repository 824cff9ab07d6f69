import { parseCrontab } from "graphile-worker"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createEvent, deleteEvent, updateEvent } from "../../src/schedule/events/service.ts"
import type { EventInput } from "../../src/schedule/events/model.ts"
import { BACKFILL_DAYS, WINDOW_DAYS, enqueueDueMaterializations, materializeEvent } from "../../src/schedule/event-occurrences/materialize.ts"
import { setOccurrenceState } from "../../src/schedule/event-occurrences/service.ts"
import { crontab } from "../../workers/crontab.ts"
import { tasks } from "../../workers/runner.ts"
import { makeSettableClock } from "../support/clock.ts"
import { createBusiness, createLocation, createPerson } from "../support/factories.ts"
import { type TestServer, startTestServer } from "../support/server.ts"
import { createService, occurrencesOf } from "./fixtures.ts"

/**
 * Materialization: occurrences for a rolling window, kept in step with their event by a
 * keyed job enqueued in the event's own transaction, extended daily by the cron entry.
 */
const clock = makeSettableClock("2026-11-20T18:00:00Z") // Friday 10:00 in Los Angeles
let server: TestServer
let businessId: number
let locationId: number
let serviceId: number
let staffIds: [number, number]

const run = <A>(effect: Parameters<TestServer["runtime"]["runPromise"]>[0]) => server.runtime.runPromise(effect) as Promise<A>

const jobsOf = async (task: string) => {
  const { rows } = await server.pool.query(
    `select j.payload, j.key from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id
     where t.identifier = $1 order by j.id`,
    [task]
  )
  return rows as Array<{ payload: Record<string, unknown>; key: string | null }>
}

const input = (fields: Partial<EventInput> = {}): EventInput => ({
  service_id: serviceId,
  location_id: locationId,
  name: "Morning Yoga",
  frequency: "weekly",
  weekdays: [1, 3, 5],
  start_date: "2026-11-02",
  start_time: "09:00",
  end_time: "10:00",
  staff_member_ids: staffIds,
  ...fields
})

beforeAll(async () => {
  server = await startTestServer({ clock: clock.clock })
  const business = await createBusiness(server.pool, { subdomain: "demo", time_zone: "America/Los_Angeles" })
  businessId = business.id
  locationId = (await createLocation(server.pool, businessId, { name: "Main", time_zone: "America/Los_Angeles" })).id
  staffIds = [
    (await createPerson(server.pool, businessId, { role: "standard" })).staffMemberId!,
    (await createPerson(server.pool, businessId, { role: "standard" })).staffMemberId!
  ]
  serviceId = await createService(server.pool, businessId, { type: "GroupClass", name: "Yoga", maximum_clients: 15 })
})
afterAll(async () => server?.close())

describe("an event change", () => {
  it("enqueues one keyed materialization job in its own transaction", async () => {
    await server.pool.query("delete from graphile_worker._private_jobs")
    const id = await run<number>(createEvent(businessId, input()))
    await run(updateEvent(businessId, id, input({ name: "Renamed" })))
    const jobs = await jobsOf("materialize_event_occurrences")
    // The second change replaced the pending job: one job per event.
    expect(jobs).toEqual([{ payload: { business_id: businessId, event_id: id }, key: `materialize_event_occurrences:${businessId}:${id}` }])
    expect(await occurrencesOf(server.pool, businessId, id)).toEqual([])
    // The job's task materializes it.
    await run(tasks.materialize_event_occurrences({ business_id: businessId, event_id: id }))
    const rows = await occurrencesOf(server.pool, businessId, id)
    expect(rows.length).toBeGreaterThan(50)
    expect(rows[0]).toMatchObject({ date: "2026-11-13", start_at: "2026-11-13T17:00:00Z", end_at: "2026-11-13T18:00:00Z", state: "active" })
  })
})

describe("materializing an event", () => {
  it("backfills the last week on the first run and covers the rolling window, at local wall-clock times", async () => {
    clock.set("2026-11-20T18:00:00Z")
    const id = await run<number>(createEvent(businessId, input()))
    const result = await run<{ created: number }>(materializeEvent(businessId, id))
    const rows = await occurrencesOf(server.pool, businessId, id)
    expect(result.created).toBe(rows.length)
    expect(rows[0]!.date).toBe("2026-11-13") // today minus BACKFILL_DAYS, a Friday
    expect(BACKFILL_DAYS).toBe(7)
    expect(rows[rows.length - 1]!.date <= "2027-03-20").toBe(true) // today plus WINDOW_DAYS
    expect(WINDOW_DAYS).toBe(120)
    // 09:00 local before and after the spring-forward change of 2027-03-14.
    expect(rows.find((row) => row.date === "2027-03-12")!.start_at).toBe("2027-03-12T17:00:00Z")
    expect(rows.find((row) => row.date === "2027-03-15")!.start_at).toBe("2027-03-15T16:00:00Z")
    const { rows: stored } = await server.pool.query(
      `select o.capacity, o.time_zone, o.name, array_agg(s.staff_member_id order by s.position) as staff
       from event_occurrences o join event_occurrence_staff_members s on s.business_id = o.business_id and s.event_occurrence_id = o.id
       where o.business_id = $1 and o.event_id = $2 group by o.business_id, o.id order by o.start_at limit 1`,
      [businessId, id]
    )
    expect(stored[0]).toEqual({ capacity: 15, time_zone: "America/Los_Angeles", name: "Morning Yoga", staff: staffIds.map(String) })
    const through = await server.pool.query(`select materialized_through::text as d from events where id = $1`, [id])
    expect(through.rows[0].d).toBe("2027-03-20")
    // Running again changes nothing.
    expect(await run(materializeEvent(businessId, id))).toEqual({ created: 0, updated: 0, deleted: 0 })
  })

  it("follows a changed event for what has not started, keeping cancelled and deleted occurrences as they are", async () => {
    clock.set("2026-11-20T18:00:00Z")
    const id = await run<number>(createEvent(businessId, input()))
    await run(materializeEvent(businessId, id))
    const before = await occurrencesOf(server.pool, businessId, id)
    const monday = before.find((row) => row.date === "2026-11-23")!
    const wednesday = before.find((row) => row.date === "2026-11-25")!
    expect(await run(setOccurrenceState(businessId, [monday.id], "canceled"))).toBe(1)
    expect(await run(setOccurrenceState(businessId, [wednesday.id], "deleted"))).toBe(1)

    // Fridays only, at 18:00, from now on.
    await run(updateEvent(businessId, id, input({ weekdays: [5], start_time: "18:00", end_time: "19:00" })))
    await run(materializeEvent(businessId, id))
    const after = await occurrencesOf(server.pool, businessId, id)
    const byDate = new Map(after.map((row) => [row.date, row]))
    // Past sessions are history: untouched, even on a weekday the event no longer has.
    expect(byDate.get("2026-11-16")).toMatchObject({ start_at: "2026-11-16T17:00:00Z", state: "active" })
    // Today's 09:00 session ended already; today's row is not re-timed.
    expect(byDate.get("2026-11-20")).toMatchObject({ start_at: "2026-11-20T17:00:00Z", state: "active" })
    // Rows are kept with their own state.
    expect(byDate.get("2026-11-23")).toMatchObject({ id: monday.id, state: "canceled" })
    expect(byDate.get("2026-11-25")).toMatchObject({ id: wednesday.id, state: "deleted" })
    // A future Monday that the event no longer produces is deleted, its row kept.
    expect(byDate.get("2026-11-30")).toMatchObject({ state: "deleted", start_at: "2026-11-30T17:00:00Z" })
    // Future Fridays move to 18:00 local.
    expect(byDate.get("2026-11-27")).toMatchObject({ state: "active", start_at: "2026-11-28T02:00:00Z" })
    const { rows } = await server.pool.query(`select canceled_at, deleted_at from event_occurrences where id = $1`, [monday.id])
    expect(rows[0].canceled_at.toISOString()).toBe("2026-11-20T18:00:00.000Z")
  })

  it("marks the future occurrences of a deleted event deleted and keeps the past ones", async () => {
    clock.set("2026-11-20T18:00:00Z")
    const id = await run<number>(createEvent(businessId, input()))
    await run(materializeEvent(businessId, id))
    expect(await run(deleteEvent(businessId, id))).toBe(true)
    await run(materializeEvent(businessId, id))
    const rows = await occurrencesOf(server.pool, businessId, id)
    expect(rows.filter((row) => row.date < "2026-11-20").every((row) => row.state === "active")).toBe(true)
    expect(rows.filter((row) => row.date > "2026-11-20").every((row) => row.state === "deleted")).toBe(true)
    expect(rows.length).toBeGreaterThan(50)
  })

  it("extends the window by a day each day through the cron entry", async () => {
    clock.set("2026-11-20T18:00:00Z")
    const id = await run<number>(createEvent(businessId, input({ weekdays: [0, 1, 2, 3, 4, 5, 6] })))
    await run(materializeEvent(businessId, id))
    const last = (await occurrencesOf(server.pool, businessId, id)).at(-1)!.date
    expect(last).toBe("2027-03-20")

    clock.set("2026-11-21T18:00:00Z")
    await server.pool.query("delete from graphile_worker._private_jobs")
    // The cron payload: no event, plus graphile-worker's _cron key.
    await run(tasks.materialize_event_occurrences({ _cron: { ts: "2026-11-21T09:15:00Z", backfilled: false } }))
    const queued = (await jobsOf("materialize_event_occurrences")).map((job) => job.payload)
    expect(queued).toContainEqual({ business_id: businessId, event_id: id })
    await run(tasks.materialize_event_occurrences({ business_id: businessId, event_id: id }))
    expect((await occurrencesOf(server.pool, businessId, id)).at(-1)!.date).toBe("2027-03-21")
    // Up to date: nothing to queue on the same day.
    await server.pool.query("delete from graphile_worker._private_jobs")
    await run(enqueueDueMaterializations())
    expect((await jobsOf("materialize_event_occurrences")).map((job) => job.payload)).not.toContainEqual({ business_id: businessId, event_id: id })
  })

  it("keeps a course to its fixed run", async () => {
    clock.set("2026-11-20T18:00:00Z")
    const course = await createService(server.pool, businessId, { type: "Course", name: "Intro" })
    const id = await run<number>(createEvent(businessId, input({ service_id: course, weekdays: [0], start_date: "2027-01-10", session_count: 6 })))
    await run(materializeEvent(businessId, id))
    expect((await occurrencesOf(server.pool, businessId, id)).map((row) => row.date)).toEqual([
      "2027-01-10",
      "2027-01-17",
      "2027-01-24",
      "2027-01-31",
      "2027-02-07",
      "2027-02-14"
    ])
  })
})

describe("the crontab", () => {
  it("runs the materialization daily, catching up a missed day", () => {
    const items = parseCrontab(crontab)
    const item = items.find((candidate) => candidate.task === "materialize_event_occurrences")!
    expect(item).toBeDefined()
    expect(item.options.backfillPeriod).toBe(86_400_000)
    expect(item.identifier).toBe("materialize_event_occurrences_daily")
  })
})
