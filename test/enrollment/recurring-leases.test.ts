import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { expireBooking } from "../../src/enrollment/bookings/expiry.ts"
import { updateEvent } from "../../src/schedule/events/service.ts"
import type { EventInput } from "../../src/schedule/events/model.ts"
import { tasks } from "../../workers/runner.ts"
import { makeSettableClock } from "../support/clock.ts"
import { createPerson } from "../support/factories.ts"
import { createService, materialize, occurrencesOf, scheduleEvent } from "../schedule/fixtures.ts"
import { NOW, type Studio, setUpStudio } from "../support/studio.ts"
import { lockWaiters, until } from "../support/waiting.ts"

/**
 * Ongoing (recurring) leases follow the schedule: sessions materialized after the lease was
 * made (the window moving forward, an event change) are added to it. Each test has its own
 * weekly class at 18:00 Los Angeles, scheduled at NOW (Monday 2026-11-02 08:00 PST), so the
 * first window reaches 2027-03-02.
 */
const clock = makeSettableClock(NOW)
let s: Studio

beforeAll(async () => {
  s = await setUpStudio(clock)
  await s.pool.query("update businesses set webhooks_enabled = true where id = $1", [s.business.id])
  const hook = await s.server.request("POST", "/api/v3/webhooks", {
    token: s.owner.token,
    headers: { "content-type": "application/vnd.api+json" },
    body: JSON.stringify({ data: { type: "webhooks", attributes: { target: "http://127.0.0.1:9/hook", topic: "visit.created" } } })
  })
  expect(hook.status, hook.text).toBe(201)
})
afterAll(async () => s?.server.close())

const eventInput = (serviceId: number, weekdays: Array<number>, fields: Partial<EventInput> = {}): EventInput => ({
  service_id: serviceId,
  location_id: s.main,
  name: "Flow",
  frequency: "weekly",
  weekdays,
  start_date: "2026-11-02",
  start_time: "18:00",
  end_time: "19:00",
  staff_member_ids: [s.owner.staffMemberId!],
  ...fields
})

/** A weekly group class without an end, scheduled (and materialized) now. */
const weeklyClass = async (name: string, weekday: number, capacity: number) => {
  const serviceId = await createService(s.pool, s.business.id, { type: "GroupClass", name, maximum_clients: capacity })
  const eventId = await scheduleEvent(s.server, s.business.id, eventInput(serviceId, [weekday], { name }))
  return { serviceId, eventId }
}

const sessionsOf = (eventId: number) => occurrencesOf(s.pool, s.business.id, eventId)

/** The materialize_event_occurrences job, as the worker runs it. */
const runMaterialization = (eventId: number) =>
  s.server.runtime.runPromise(tasks.materialize_event_occurrences({ business_id: s.business.id, event_id: eventId }))

interface VisitRow {
  id: number
  date: string
  person_id: number | null
  state: string
  lease_id: number | null
  booking_id: number | null
  registered_at: Date | null
}

/** The event's visits, by session date then id. */
const visitsOf = async (eventId: number): Promise<Array<VisitRow>> => {
  const { rows } = await s.pool.query(
    `select v.id, o.scheduled_date::text as date, v.person_id, v.state, v.lease_id, v.booking_id, v.registered_at
     from visits v join event_occurrences o on o.business_id = v.business_id and o.id = v.event_occurrence_id
     where v.business_id = $1 and o.event_id = $2 order by o.start_at, v.id`,
    [s.business.id, eventId]
  )
  return rows.map((row) => ({
    ...row,
    id: Number(row.id),
    person_id: row.person_id === null ? null : Number(row.person_id),
    lease_id: row.lease_id === null ? null : Number(row.lease_id),
    booking_id: row.booking_id === null ? null : Number(row.booking_id)
  }))
}

/** Visit ids announced with visit.created. */
const announcedVisits = async () => {
  const { rows } = await s.pool.query(`select payload from webhook_events where business_id = $1 and topic = 'visit.created' order by id`, [
    s.business.id
  ])
  return rows.map((row: { payload: { visits: Array<{ id: number }> } }) => row.payload.visits[0]!.id)
}

const deskBooking = (booking: Record<string, unknown>) =>
  s.server.request("POST", "/api/v2/desk/bookings", { token: s.owner.token, body: { booking } })

const ongoing = (eventId: number, startAt: string, personId?: number) => ({
  event_id: eventId,
  start_at: startAt,
  recurring: true,
  ...(personId === undefined ? {} : { person: { id: personId } })
})

const bookingOf = async (id: number) =>
  (await s.server.request("GET", `/api/v2/desk/bookings/${id}`, { token: s.owner.token })).json.bookings[0]

describe("a completed ongoing enrollment", () => {
  it("is registered in each session the window adds, announced once, and a second run adds nothing", async () => {
    clock.set(NOW)
    const { eventId } = await weeklyClass("Tuesday Flow", 2, 5)
    const first = await sessionsOf(eventId)
    expect(first.map((o) => o.date)).toEqual([
      "2026-11-03", "2026-11-10", "2026-11-17", "2026-11-24", "2026-12-01", "2026-12-08", "2026-12-15", "2026-12-22",
      "2026-12-29", "2027-01-05", "2027-01-12", "2027-01-19", "2027-01-26", "2027-02-02", "2027-02-09", "2027-02-16",
      "2027-02-23", "2027-03-02"
    ])
    const created = await s.server.request("POST", "/api/v2/front/bookings", {
      token: s.cleo.token,
      body: { booking: { complete_booking: true, leases: [ongoing(eventId, first[0]!.start_at, s.cleo.personId)] } }
    })
    expect(created.status, created.text).toBe(201)
    const booking = created.json.bookings[0]
    const lease = booking.leases[0]
    expect(lease.event_occurrence_ids).toEqual(first.map((o) => o.id))
    const announcedBefore = await announcedVisits()

    // A month later the daily extension moves the window to 2027-04-01.
    clock.set("2026-12-02T16:00:00Z")
    await runMaterialization(eventId)
    const sessions = await sessionsOf(eventId)
    const added = sessions.slice(first.length)
    expect(added.map((o) => o.date)).toEqual(["2027-03-09", "2027-03-16", "2027-03-23", "2027-03-30"])
    const visits = await visitsOf(eventId)
    const newVisits = visits.filter((v) => added.some((o) => o.date === v.date))
    expect(newVisits.map((v) => [v.date, v.person_id, v.state, v.lease_id, v.booking_id])).toEqual(
      added.map((o) => [o.date, s.cleo.personId, "registered", lease.id, booking.id])
    )
    expect(newVisits.every((v) => v.registered_at?.toISOString() === "2026-12-02T16:00:00.000Z")).toBe(true)
    // Every session holds exactly one visit: the old ones kept theirs.
    expect(visits.map((v) => v.date)).toEqual(sessions.map((o) => o.date))

    // The lease shows its new sessions; the new visits were announced, each once.
    expect((await bookingOf(booking.id)).leases[0].event_occurrence_ids).toEqual(sessions.map((o) => o.id))
    expect(await announcedVisits()).toEqual([...announcedBefore, ...newVisits.map((v) => v.id)])

    // Running again (a retried job, the next event change) adds nothing.
    await runMaterialization(eventId)
    await materialize(s.server, s.business.id, eventId)
    expect(await visitsOf(eventId)).toEqual(visits)
    expect((await announcedVisits()).length).toBe(announcedBefore.length + newVisits.length)

    // A week on, the next Tuesday joins too.
    clock.set("2026-12-09T16:00:00Z")
    await runMaterialization(eventId)
    const later = await visitsOf(eventId)
    expect(later.slice(visits.length).map((v) => [v.date, v.person_id, v.state, v.lease_id])).toEqual([
      ["2027-04-06", s.cleo.personId, "registered", lease.id]
    ])
  })
})

describe("an incomplete booking's ongoing lease", () => {
  it("holds reserved places in the sessions added, with or without a person, and its expiry releases them", async () => {
    clock.set(NOW)
    const { eventId } = await weeklyClass("Wednesday Flow", 3, 5)
    // Monday 2026-11-30 23:50 in Los Angeles: the window reaches Tuesday 2027-03-30.
    clock.set("2026-12-01T07:50:00Z")
    await runMaterialization(eventId)
    const from = (await sessionsOf(eventId)).find((o) => o.date === "2026-12-02")!
    const created = await deskBooking({
      expires_at: "2026-12-01T08:10:00Z",
      leases: [ongoing(eventId, from.start_at, s.otto.personId), ongoing(eventId, from.start_at)]
    })
    expect(created.status, created.text).toBe(201)
    const booking = created.json.bookings[0]
    const [withPerson, withoutPerson] = booking.leases.map((lease: { id: number }) => lease.id)
    const held = (await visitsOf(eventId)).length
    expect(held).toBe(2 * 17) // 2026-12-02 .. 2027-03-24
    const announced = await announcedVisits()

    // Past midnight the window reaches Wednesday 2027-03-31: one new session, two holds on it.
    clock.set("2026-12-01T08:01:00Z")
    await runMaterialization(eventId)
    const added = (await sessionsOf(eventId)).at(-1)!
    expect(added.date).toBe("2027-03-31")
    const visits = await visitsOf(eventId)
    expect(visits.length).toBe(held + 2)
    expect(visits.filter((v) => v.date === added.date).map((v) => [v.person_id, v.state, v.lease_id, v.booking_id, v.registered_at])).toEqual([
      [s.otto.personId, "reserved", withPerson, booking.id, null],
      [null, "reserved", withoutPerson, booking.id, null]
    ])
    expect((await bookingOf(booking.id)).leases.map((lease: { event_occurrence_ids: Array<number> }) => lease.event_occurrence_ids.at(-1))).toEqual([
      added.id,
      added.id
    ])
    // A hold is not announced.
    expect(await announcedVisits()).toEqual(announced)

    // Expiry releases every hold, the new ones included.
    clock.set("2026-12-01T08:10:00Z")
    expect(await s.server.runtime.runPromise(expireBooking(s.business.id, booking.id))).toBe("expired")
    expect(await visitsOf(eventId)).toEqual([])

    // The expired leases get nothing from later sessions.
    clock.set("2026-12-08T08:01:00Z")
    await runMaterialization(eventId)
    expect((await sessionsOf(eventId)).at(-1)!.date).toBe("2027-04-07")
    expect(await visitsOf(eventId)).toEqual([])
  })

  it("past its expires_at (its job not run yet) holds nothing new", async () => {
    clock.set(NOW)
    const { eventId } = await weeklyClass("Saturday Flow", 6, 5)
    const first = (await sessionsOf(eventId))[0]!
    const created = await deskBooking({ leases: [ongoing(eventId, first.start_at, s.otto.personId)] })
    expect(created.status, created.text).toBe(201)
    const held = await visitsOf(eventId)
    expect(held.length).toBe(17) // 2026-11-07 .. 2027-02-27
    clock.set("2026-12-02T16:00:00Z")
    await runMaterialization(eventId)
    expect((await sessionsOf(eventId)).length).toBe(21)
    expect(await visitsOf(eventId)).toEqual(held)
  })
})

describe("a full new session", () => {
  it("is skipped for the lease that does not fit; the older lease keeps its place and the other sessions are enrolled", async () => {
    clock.set(NOW)
    const { serviceId, eventId } = await weeklyClass("Thursday Flow", 4, 2)
    const thursdays = await sessionsOf(eventId)
    const at = (date: string) => thursdays.find((o) => o.date === date)!.start_at
    // Otto from 2026-12-03 (the older lease), Cleo from 2026-11-05: two places, both fit.
    const otto = await deskBooking({ complete_booking: true, leases: [ongoing(eventId, at("2026-12-03"), s.otto.personId)] })
    expect(otto.status, otto.text).toBe(201)
    const cleo = await deskBooking({ complete_booking: true, leases: [ongoing(eventId, at("2026-11-05"), s.cleo.personId)] })
    expect(cleo.status, cleo.text).toBe(201)
    const before = await visitsOf(eventId)

    // The studio adds Mondays and makes the class smaller: the new Mondays have one place.
    await s.server.runtime.runPromise(updateEvent(s.business.id, eventId, eventInput(serviceId, [1, 4], { name: "Thursday Flow", capacity: 1 })))
    await runMaterialization(eventId)
    const mondays = (await sessionsOf(eventId)).filter((o) => !thursdays.some((t) => t.id === o.id))
    expect(mondays[0]!.date).toBe("2026-11-02")
    expect(mondays.at(-1)!.date).toBe("2027-03-01")
    const visits = await visitsOf(eventId)
    const onMonday = (date: string) => visits.filter((v) => v.date === date).map((v) => [v.person_id, v.state])
    // Before either lease starts: nobody.
    expect(onMonday("2026-11-02")).toEqual([])
    // Only Cleo's lease covers these: she is enrolled.
    for (const date of ["2026-11-09", "2026-11-16", "2026-11-23", "2026-11-30"]) {
      expect(onMonday(date), date).toEqual([[s.cleo.personId, "registered"]])
    }
    // Both cover the rest; one place: the older lease (Otto's) has it, Cleo's skips them.
    for (const monday of mondays.filter((o) => o.date >= "2026-12-07")) {
      expect(onMonday(monday.date), monday.date).toEqual([[s.otto.personId, "registered"]])
    }
    // The Thursdays keep their visits (staff made the class smaller, nobody is removed).
    expect(visits.filter((v) => thursdays.some((t) => t.date === v.date))).toEqual(before)
  })
})

describe("leases that are not ongoing", () => {
  it("a single session, a non-recurring event lease, a deleted booking and a deleted person get nothing", async () => {
    clock.set(NOW)
    const { eventId } = await weeklyClass("Friday Flow", 5, 5)
    const fridays = await sessionsOf(eventId)
    const at = (date: string) => fridays.find((o) => o.date === date)!
    const book = async (leases: Array<Record<string, unknown>>) => {
      const response = await deskBooking({ complete_booking: true, leases })
      expect(response.status, response.text).toBe(201)
      return response.json.bookings[0]
    }
    await book([{ event_id: eventId, start_at: at("2026-11-06").start_at, recurring: false, person: { id: s.cleo.personId } }])
    await book([{ event_occurrence_id: at("2026-11-13").id, person: { id: s.kid } }])
    // Otto's ongoing booking is deleted: its visits stay, the enrollment is over.
    const deleted = await book([ongoing(eventId, at("2026-11-06").start_at, s.otto.personId)])
    expect((await s.server.request("DELETE", `/api/v2/desk/bookings/${deleted.id}`, { token: s.owner.token })).status).toBe(204)
    // Dora's lease stays, but her visits were removed and she was deleted.
    const dora = await createPerson(s.pool, s.business.id, { first_name: "Dora" })
    await book([ongoing(eventId, at("2026-11-06").start_at, dora.personId)])
    for (const visit of (await visitsOf(eventId)).filter((v) => v.person_id === dora.personId)) {
      expect((await s.server.request("DELETE", `/api/v2/desk/visits/${visit.id}`, { token: s.owner.token })).status).toBe(204)
    }
    const removed = await s.server.request("DELETE", `/api/v2/desk/people/${dora.personId}`, { token: s.owner.token })
    expect(removed.status, removed.text).toBe(204)
    const before = await visitsOf(eventId)
    expect(before.length).toBe(2 + 17)

    clock.set("2026-12-02T16:00:00Z")
    await runMaterialization(eventId)
    const added = (await sessionsOf(eventId)).slice(fridays.length)
    expect(added.map((o) => o.date)).toEqual(["2027-03-05", "2027-03-12", "2027-03-19", "2027-03-26"])
    expect(await visitsOf(eventId)).toEqual(before)
  })
})

describe("a lease made while its event is being materialized", () => {
  it("waits for the materialization and holds the sessions it added", async () => {
    clock.set(NOW)
    const { eventId } = await weeklyClass("Sunday Flow", 0, 5)
    const sundays = await sessionsOf(eventId)
    const kid = await s.server.request("POST", "/api/v2/front/bookings", {
      token: s.cleo.token,
      body: { booking: { complete_booking: true, leases: [ongoing(eventId, sundays[0]!.start_at, s.kid)] } }
    })
    expect(kid.status, kid.text).toBe(201)
    const waiting = (count: number) =>
      until(async () => (await lockWaiters(s.pool)) >= count, `${count} transactions waiting on a lock`, { everyMs: 20, attempts: 1000 })
    // Pause the materialization after it has locked the event and inserted the new sessions:
    // it waits for the share lock of the Kid's booking, held here.
    const holder = await s.pool.connect()
    try {
      await holder.query("begin")
      await holder.query("select id from bookings where id = $1 for update", [kid.json.bookings[0].id])
      clock.set("2026-12-02T16:00:00Z")
      const materialized = runMaterialization(eventId)
      await waiting(1)
      const from = sundays.find((o) => o.date === "2026-12-06")!
      const booked = s.server.request("POST", "/api/v2/front/bookings", {
        token: s.otto.token,
        body: { booking: { complete_booking: true, leases: [ongoing(eventId, from.start_at, s.otto.personId)] } }
      })
      await waiting(2)
      await holder.query("commit")
      await materialized
      const otto = await booked
      expect(otto.status, otto.text).toBe(201)
    } finally {
      holder.release()
    }
    const sessions = await sessionsOf(eventId)
    expect(sessions.at(-1)!.date).toBe("2027-03-28")
    const visits = await visitsOf(eventId)
    const datesOf = (personId: number) => visits.filter((v) => v.person_id === personId).map((v) => v.date)
    expect(datesOf(s.kid)).toEqual(sessions.map((o) => o.date))
    expect(datesOf(s.otto.personId)).toEqual(sessions.filter((o) => o.date >= "2026-12-06").map((o) => o.date))
  })
})
