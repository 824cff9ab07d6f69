import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeSettableClock } from "../support/clock.ts"
import { NOW, type Studio, capacityRemaining, setUpStudio, studioCallers, visitStates } from "../support/studio.ts"

/** Bookings and leases over HTTP, both modes (spec: "Bookings and leases"). Clock: Monday 2026-11-02 08:00 PST. */
const clock = makeSettableClock(NOW)
let s: Studio

beforeAll(async () => {
  s = await setUpStudio(clock, { capacity: 3 })
})
afterAll(async () => s?.server.close())

const { desk, front } = studioCallers(() => s)
const occurrenceLease = (occurrenceId: number, personId: number | null = s.cleo.personId) => ({
  event_occurrence_id: occurrenceId,
  ...(personId === null ? {} : { person: { id: personId } })
})
const visitsOfBooking = async (bookingId: number) =>
  (await s.pool.query(`select event_occurrence_id, person_id, state, lease_id from visits where booking_id = $1 order by id`, [bookingId])).rows

describe("event occurrence leases", () => {
  it("creates, shows, completes; the visit goes reserved → registered", async () => {
    clock.set(NOW)
    const occurrence = s.yoga("2026-11-03").id
    const created = await front("POST", "/bookings", { booking: { leases: [occurrenceLease(occurrence)] } })
    expect(created.status).toBe(201)
    const booking = created.json.bookings[0]
    expect(booking).toMatchObject({
      state: "incomplete",
      expires_at: "2026-11-02T16:10:00Z",
      completed_at: null,
      idempotency_token: null,
      person_id: s.cleo.personId,
      created_at: "2026-11-02T16:00:00Z"
    })
    expect(booking.leases).toEqual([
      {
        id: expect.any(Number),
        booking_id: booking.id,
        state: "reserved",
        kind: "event_occurrence",
        event_occurrence_id: occurrence,
        event_occurrence_ids: [occurrence],
        event_id: s.events.yoga,
        service_id: s.services.yoga,
        staff_member_id: null,
        location_id: null,
        start_at: "2026-11-03T18:00:00Z",
        recurring: false,
        person: { id: s.cleo.personId, name: "Cleo Client" },
        created_at: "2026-11-02T16:00:00Z",
        updated_at: "2026-11-02T16:00:00Z"
      }
    ])
    expect(await visitStates(s.server, occurrence)).toEqual(["reserved"])
    expect(await capacityRemaining(s, occurrence)).toBe(2)

    const got = await front("GET", `/bookings/${booking.id}`)
    expect(got.status).toBe(200)
    expect(got.json.bookings[0].id).toBe(booking.id)
    const lease = await front("GET", `/bookings/${booking.id}/leases/${booking.leases[0].id}`)
    expect(lease.json.leases).toEqual(booking.leases)
    expect(got.headers["cache-control"]).toBe("private, no-store")

    clock.set("2026-11-02T16:03:00Z")
    const completed = await front("PUT", `/bookings/${booking.id}`)
    expect(completed.status).toBe(200)
    expect(completed.json.bookings[0]).toMatchObject({ state: "completed", completed_at: "2026-11-02T16:03:00Z" })
    expect(completed.json.bookings[0].leases[0].state).toBe("registered")
    const visits = await visitsOfBooking(booking.id)
    expect(visits.map((v: { state: string }) => v.state)).toEqual(["registered"])
    const registeredAt = await s.pool.query(`select registered_at from visits where booking_id = $1`, [booking.id])
    expect(registeredAt.rows[0].registered_at.toISOString()).toBe("2026-11-02T16:03:00.000Z")
    // Completing again changes nothing.
    const again = await front("PUT", `/bookings/${booking.id}`)
    expect(again.status).toBe(200)
    expect(again.json.bookings[0].completed_at).toBe("2026-11-02T16:03:00Z")

    // A lease of a completed booking cannot go, nor can leases be added.
    const deleteLease = await front("DELETE", `/bookings/${booking.id}/leases/${booking.leases[0].id}`)
    expect(deleteLease.status).toBe(422)
    expect(deleteLease.json).toEqual({ errors: [`Booking ${booking.id} is completed; its leases can no longer change`] })
    const add = await front("POST", `/bookings/${booking.id}/leases`, { lease: occurrenceLease(s.yoga("2026-11-05").id) })
    expect(add.status).toBe(422)

    // Deleting a completed booking removes only the booking: the visit stays, without booking and lease.
    const removed = await front("DELETE", `/bookings/${booking.id}`)
    expect(removed.status).toBe(204)
    expect((await front("GET", `/bookings/${booking.id}`)).status).toBe(404)
    const { rows } = await s.pool.query(`select state, booking_id, lease_id from visits where event_occurrence_id = $1`, [occurrence])
    expect(rows).toEqual([{ state: "registered", booking_id: null, lease_id: null }])
  })

  it("complete_booking: true registers at once; a lease without a person is refused", async () => {
    clock.set(NOW)
    const occurrence = s.yoga("2026-11-06").id
    const refused = await front("POST", "/bookings", {
      booking: { complete_booking: true, leases: [occurrenceLease(occurrence), occurrenceLease(occurrence, null)] }
    })
    expect(refused.status).toBe(422)
    expect(refused.json).toEqual({ errors: ["leases[1].person can't be blank"] })
    expect(await visitStates(s.server, occurrence)).toEqual([])
    const created = await front("POST", "/bookings", {
      booking: { complete_booking: true, leases: [occurrenceLease(occurrence), occurrenceLease(occurrence, s.kid)] }
    })
    expect(created.status).toBe(201)
    expect(created.json.bookings[0].state).toBe("completed")
    expect(await visitStates(s.server, occurrence)).toEqual(["registered", "registered"])
    // The same person twice on one occurrence.
    const twice = await front("POST", "/bookings", { booking: { leases: [occurrenceLease(occurrence)] } })
    expect(twice.status).toBe(422)
    expect(twice.json).toEqual({ errors: ["Already enrolled"] })
  })

  it("refuses a full occurrence, one that has ended, a course session and unknown or foreign occurrences", async () => {
    clock.set(NOW)
    const occurrence = s.yoga("2026-11-07").id
    const people = [s.cleo.personId, s.kid]
    expect((await front("POST", "/bookings", { booking: { leases: people.map((p) => occurrenceLease(occurrence, p)) } })).status).toBe(201)
    expect((await desk("POST", "/bookings", { booking: { leases: [occurrenceLease(occurrence, s.otto.personId)] } })).status).toBe(201)
    const full = await desk("POST", "/bookings", { booking: { leases: [occurrenceLease(occurrence, s.owner.personId)] } })
    expect(full.status).toBe(422)
    expect(full.json).toEqual({ errors: ["This event is full"] })

    clock.set("2026-11-02T19:30:00Z")
    const ended = await front("POST", "/bookings", { booking: { leases: [occurrenceLease(s.yoga("2026-11-02").id)] } })
    expect(ended.json).toEqual({ errors: ["This event has ended"] })
    clock.set(NOW)

    const course = await front("POST", "/bookings", { booking: { leases: [occurrenceLease(s.courseSessions[0]!.id)] } })
    expect(course.status).toBe(422)
    expect(course.json).toEqual({ errors: [`leases[0].event_occurrence_id ${s.courseSessions[0]!.id} belongs to a Course service, which cannot be leased this way`] })
    const foreign = await front("POST", "/bookings", { booking: { leases: [occurrenceLease(s.foreignOccurrence), occurrenceLease(999999)] } })
    expect(foreign.status).toBe(422)
    expect(foreign.json).toEqual({
      errors: [`leases[0].event_occurrence_id ${s.foreignOccurrence} does not exist`, "leases[1].event_occurrence_id 999999 does not exist"]
    })
  })
})

describe("appointment leases", () => {
  it("staff book a free slot for a new person; completion makes the appointment active; deleting the lease frees it", async () => {
    clock.set(NOW)
    const lease = {
      service_id: s.services.private,
      staff_member_id: s.ines.staffMemberId,
      location_id: s.main,
      start_at: "2026-11-03T10:00:00-0800",
      person: { first_name: "Nora", last_name: "New", email: "nora@example.test", phone: "555-0100" }
    }
    const created = await desk("POST", "/bookings", { booking: { leases: [lease] } })
    expect(created.status).toBe(201)
    const booked = created.json.bookings[0].leases[0]
    expect(booked).toMatchObject({
      kind: "appointment",
      service_id: s.services.private,
      staff_member_id: s.ines.staffMemberId,
      location_id: s.main,
      start_at: "2026-11-03T18:00:00Z",
      person: { name: "Nora New" }
    })
    expect(created.json.bookings[0].person_id).toBeNull()
    const person = await s.pool.query(`select id, phone from people where email = 'nora@example.test'`)
    expect(booked.person.id).toBe(Number(person.rows[0].id))
    const occurrence = await s.pool.query(`select state, booked_for_person_id from event_occurrences where id = $1`, [booked.event_occurrence_id])
    expect(occurrence.rows[0]).toEqual({ state: "reserved", booked_for_person_id: String(booked.person.id) })
    // The slot is gone from availability while held.
    const slots = await desk("GET", `/appointments/${s.services.private}/available_slots?date=2026-11-03`)
    expect(slots.json.available_slots.map((slot: { start_at: string }) => slot.start_at)).not.toContain("2026-11-03T18:00:00Z")

    // An existing person by e-mail: the same person, not a new one.
    const byEmail = await desk("POST", "/bookings", {
      booking: { leases: [{ ...lease, start_at: "2026-11-03T20:00:00Z", person: { email: "NORA@example.test" } }] }
    })
    expect(byEmail.status).toBe(201)
    expect(byEmail.json.bookings[0].leases[0].person.id).toBe(booked.person.id)

    const done = await desk("PUT", `/bookings/${created.json.bookings[0].id}`)
    expect(done.status).toBe(200)
    expect((await s.pool.query(`select state from event_occurrences where id = $1`, [booked.event_occurrence_id])).rows[0].state).toBe("active")

    // Deleting a lease of the other (incomplete) booking deletes its appointment.
    const other = byEmail.json.bookings[0]
    const removed = await desk("DELETE", `/bookings/${other.id}/leases/${other.leases[0].id}`)
    expect(removed.status).toBe(204)
    expect((await s.pool.query(`select state from event_occurrences where id = $1`, [other.leases[0].event_occurrence_id])).rows[0].state).toBe("deleted")
    expect((await desk("GET", `/bookings/${other.id}`)).json.bookings[0].leases).toEqual([])
  })

  it("refuses a time outside the staff member's hours, missing fields and a service of another type", async () => {
    clock.set(NOW)
    const base = { service_id: s.services.private, staff_member_id: s.ines.staffMemberId, location_id: s.main }
    const night = await front("POST", "/bookings", { booking: { leases: [{ ...base, start_at: "2026-11-03T06:00:00Z" }] } })
    expect(night.status).toBe(422)
    expect(night.json).toEqual({ errors: ["leases[0].start_at: the appointment time 2026-11-03T06:00:00Z is not available"] })
    // A staff member id past 32 bits is no one's schedule (its lock key once overflowed: a 500).
    const nobody = await front("POST", "/bookings", { booking: { leases: [{ ...base, staff_member_id: 2147483648, start_at: "2026-11-03T18:00:00Z" }] } })
    expect(nobody.json).toEqual({ errors: ["leases[0].start_at: the appointment time 2026-11-03T18:00:00Z is not available"] })
    const missing = await front("POST", "/bookings", { booking: { leases: [{ service_id: s.services.private }] } })
    expect(missing.json).toEqual({
      errors: ["leases[0].staff_member_id can't be blank", "leases[0].location_id can't be blank", "leases[0].start_at can't be blank"]
    })
    const wrong = await front("POST", "/bookings", { booking: { leases: [{ ...base, service_id: s.services.yoga, start_at: "2026-11-03T18:00:00Z" }] } })
    expect(wrong.json).toEqual({ errors: [`leases[0].service_id ${s.services.yoga} belongs to a GroupClass service, which cannot be leased this way`] })
  })
})

describe("recurring group class and course leases", () => {
  it("recurring: every session from start_at on; not recurring: that session; start_at must be a session's start", async () => {
    clock.set(NOW)
    const ongoing = await desk("POST", "/bookings", {
      booking: { leases: [{ event_id: s.events.yoga, start_at: "2026-11-20T18:00:00Z", recurring: true, person: { id: s.otto.personId } }] }
    })
    expect(ongoing.status).toBe(201)
    const lease = ongoing.json.bookings[0].leases[0]
    const expected = ["2026-11-20", "2026-11-21", "2026-11-22", "2026-11-23", "2026-11-24", "2026-11-25", "2026-11-26", "2026-11-27", "2026-11-28", "2026-11-29", "2026-11-30"]
    expect(lease).toMatchObject({ kind: "recurring", recurring: true, event_id: s.events.yoga, event_occurrence_id: s.yoga("2026-11-20").id })
    expect(lease.event_occurrence_ids).toEqual(expected.map((date) => s.yoga(date).id))
    const once = await desk("POST", "/bookings", {
      booking: { leases: [{ event_id: s.events.yoga, start_at: "2026-11-20T18:00:00Z", person: { id: s.cleo.personId } }] }
    })
    expect(once.json.bookings[0].leases[0].event_occurrence_ids).toEqual([s.yoga("2026-11-20").id])
    const off = await desk("POST", "/bookings", { booking: { leases: [{ event_id: s.events.yoga, start_at: "2026-11-20T18:30:00Z" }] } })
    expect(off.json).toEqual({ errors: [`leases[0].start_at is not the start of an active session of event ${s.events.yoga}`] })
    const noStart = await desk("POST", "/bookings", { booking: { leases: [{ event_id: s.events.yoga, staff_member_id: s.ines.staffMemberId }] } })
    expect(noStart.json).toEqual({ errors: ["leases[0].staff_member_id does not apply to this kind of lease", "leases[0].start_at can't be blank"] })
    // Removing the uncompleted booking releases all eleven sessions.
    expect((await desk("DELETE", `/bookings/${ongoing.json.bookings[0].id}`)).status).toBe(204)
    expect(await visitStates(s.server, s.yoga("2026-11-25").id)).toEqual([])
  })

  it("course: the run's sessions not started yet, all or nothing; deleting the uncompleted booking frees them", async () => {
    clock.set("2026-11-04T12:00:00Z") // after the first session (Tue 11-03)
    const created = await front("POST", "/bookings", { booking: { leases: [{ event_id: s.events.course, person: { id: s.kid } }] } })
    expect(created.status).toBe(201)
    const lease = created.json.bookings[0].leases[0]
    expect(lease.kind).toBe("course")
    expect(lease.event_occurrence_ids).toEqual(s.courseSessions.slice(1).map((session) => session.id))
    expect(await capacityRemaining(s, s.courseSessions[1]!.id)).toBe(4)
    const recurringCourse = await front("POST", "/bookings", { booking: { leases: [{ event_id: s.events.course, recurring: true }] } })
    expect(recurringCourse.json).toEqual({ errors: ["leases[0].recurring does not apply to this kind of lease"] })
    expect((await front("DELETE", `/bookings/${created.json.bookings[0].id}`)).status).toBe(204)
    expect(await capacityRemaining(s, s.courseSessions[1]!.id)).toBe(5)
    expect((await s.pool.query(`select count(*)::int as n from leases where booking_id = $1`, [created.json.bookings[0].id])).rows[0].n).toBe(0)
    clock.set(NOW)
  })
})

describe("POST bookings rules", () => {
  it("idempotency_token: the same body answers the same booking; another body is a 422", async () => {
    clock.set(NOW)
    const body = { booking: { idempotency_token: "cart-1", leases: [occurrenceLease(s.yoga("2026-11-14").id)] } }
    const first = await front("POST", "/bookings", body)
    expect(first.status).toBe(201)
    const repeat = await front("POST", "/bookings", body)
    expect(repeat.status).toBe(201)
    expect(repeat.json.bookings[0].id).toBe(first.json.bookings[0].id)
    expect(repeat.json.bookings[0].idempotency_token).toBe("cart-1")
    // The same request as a Rails form is the same request.
    const form = await s.server.request("POST", "/api/v2/front/bookings", {
      token: s.cleo.token,
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: `booking[idempotency_token]=cart-1&booking[leases][][event_occurrence_id]=${s.yoga("2026-11-14").id}&booking[leases][][person][id]=${s.cleo.personId}`
    })
    expect(form.status).toBe(201)
    expect(form.json.bookings[0].id).toBe(first.json.bookings[0].id)
    const different = await front("POST", "/bookings", { booking: { ...body.booking, leases: [occurrenceLease(s.yoga("2026-11-15").id)] } })
    expect(different.status).toBe(422)
    expect(different.json).toEqual({ errors: ["idempotency_token was already used for a different request"] })
    // Tokens are per caller: another person may use the same one.
    const otto = await front("POST", "/bookings", { booking: { idempotency_token: "cart-1" } }, s.otto.token)
    expect(otto.status).toBe(201)
    expect(otto.json.bookings[0].id).not.toBe(first.json.bookings[0].id)
    expect((await s.pool.query(`select count(*)::int as n from visits where booking_id = $1`, [first.json.bookings[0].id])).rows[0].n).toBe(1)
  })

  it("concurrent repeats of one idempotent request create one booking", async () => {
    clock.set(NOW)
    const body = { booking: { idempotency_token: "cart-race", leases: [occurrenceLease(s.yoga("2026-11-16").id)] } }
    const responses = await Promise.all(Array.from({ length: 8 }, () => front("POST", "/bookings", body)))
    expect(responses.map((r) => r.status)).toEqual(Array(8).fill(201))
    expect(new Set(responses.map((r) => r.json.bookings[0].id)).size).toBe(1)
    expect(await visitStates(s.server, s.yoga("2026-11-16").id)).toEqual(["reserved"])
  })

  it("concurrent repeats that introduce a new person: they wait on the token before reading anyone, and answer the one booking", async () => {
    clock.set(NOW)
    // Rounds, because the race is narrow: a repeat that read "no such e-mail" before the first
    // request committed its new person, and "e-mail taken" after, answered 422 (2 in 200 requests).
    const days = ["08", "09", "10", "11", "12", "13", "24", "26", "27", "28", "29", "30"]
    const refused: Array<string> = []
    for (const day of days) {
      const occurrenceId = s.yoga(`2026-11-${day}`).id
      const email = `rae.race.${day}@example.test`
      const body = {
        booking: {
          idempotency_token: `desk-race-${day}`,
          complete_booking: true,
          leases: [{ event_occurrence_id: occurrenceId, person: { first_name: "Rae", last_name: "Race", email } }]
        }
      }
      const responses = await Promise.all(Array.from({ length: 10 }, () => desk("POST", "/bookings", body)))
      refused.push(...responses.filter((r) => r.status !== 201).map((r) => `${day}: ${r.status} ${r.text}`))
      expect(new Set(responses.filter((r) => r.status === 201).map((r) => r.json.bookings[0].id)).size).toBe(1)
      const people = await s.pool.query(`select id from people where business_id = $1 and email = $2`, [s.business.id, email])
      expect(people.rows).toHaveLength(1)
      expect(await visitStates(s.server, occurrenceId)).toEqual(["registered"])
      const bookings = await s.pool.query(`select count(*)::int as n from bookings where business_id = $1 and idempotency_token = $2`, [
        s.business.id,
        `desk-race-${day}`
      ])
      expect(bookings.rows[0].n).toBe(1)
    }
    expect(refused).toEqual([])
  })

  it("expires_at: default 10 minutes, at most 20, not in the past", async () => {
    clock.set(NOW)
    const max = await front("POST", "/bookings", { booking: { expires_at: "2026-11-02T16:20:00Z" } })
    expect(max.status).toBe(201)
    expect(max.json.bookings[0].expires_at).toBe("2026-11-02T16:20:00Z")
    const tooFar = await front("POST", "/bookings", { booking: { expires_at: "2026-11-02T08:20:01-08:00" } })
    expect(tooFar.status).toBe(422)
    expect(tooFar.json).toEqual({ errors: ["expires_at may be at most 20 minutes from now"] })
    const past = await front("POST", "/bookings", { booking: { expires_at: "2026-11-02T15:59:00Z" } })
    expect(past.json).toEqual({ errors: ["expires_at must not be in the past"] })
    const german = await s.server.request("POST", "/api/v2/front/bookings", {
      token: s.cleo.token,
      headers: { "x-fd-locale": "de" },
      body: { booking: { expires_at: "2026-11-02T15:59:00Z" } }
    })
    expect(german.json).toEqual({ errors: ["expires_at darf nicht in der Vergangenheit liegen"] })
  })

  it("refuses lease shapes that name nothing or two things, and malformed values (400)", async () => {
    const nothing = await front("POST", "/bookings", { booking: { leases: [{ person: { id: s.cleo.personId } }] } })
    expect(nothing.json).toEqual({ errors: ["leases[0] must name event_occurrence_id, service_id or event_id"] })
    const two = await front("POST", "/bookings", { booking: { leases: [{ event_occurrence_id: s.yoga("2026-11-17").id, event_id: s.events.yoga }] } })
    expect(two.json).toEqual({ errors: ["leases[0].event_id cannot be combined with leases[0].event_occurrence_id"] })
    const malformed = await front("POST", "/bookings", { booking: { leases: [{ event_occurrence_id: "abc" }] } })
    expect(malformed.status).toBe(400)
    const badTime = await front("POST", "/bookings", { booking: { expires_at: "soon" } })
    expect(badTime.status).toBe(400)
  })
})

describe("completing and changing people on leases", () => {
  it("PUT booking lists every lease without a person; PUT lease gives one; then it completes", async () => {
    clock.set(NOW)
    const created = await front("POST", "/bookings", {
      booking: { leases: [occurrenceLease(s.yoga("2026-11-18").id, null), occurrenceLease(s.yoga("2026-11-19").id, null)] }
    })
    const booking = created.json.bookings[0]
    const [a, b] = booking.leases
    const refused = await front("PUT", `/bookings/${booking.id}`)
    expect(refused.status).toBe(422)
    expect(refused.json).toEqual({
      errors: [`Lease ${a.id} needs a person before the booking can be completed`, `Lease ${b.id} needs a person before the booking can be completed`]
    })
    const toKid = await front("PUT", `/bookings/${booking.id}/leases/${a.id}`, { lease: { person: { id: s.kid } } })
    expect(toKid.status).toBe(200)
    expect(toKid.json.leases[0].person).toEqual({ id: s.kid, name: "Kid Lovelace" })
    expect((await visitsOfBooking(booking.id))[0].person_id).toBe(String(s.kid))
    // Not someone outside the household.
    const toOtto = await front("PUT", `/bookings/${booking.id}/leases/${b.id}`, { lease: { person: { id: s.otto.personId } } })
    expect(toOtto.status).toBe(404)
    // The leased service cannot change; repeating it unchanged is fine.
    const move = await front("PUT", `/bookings/${booking.id}/leases/${b.id}`, {
      lease: { event_occurrence_id: s.yoga("2026-11-20").id, person: { id: s.cleo.personId } }
    })
    expect(move.status).toBe(422)
    expect(move.json).toEqual({ errors: ["lease.event_occurrence_id: the leased service cannot change; delete the lease and create another"] })
    const same = await front("PUT", `/bookings/${booking.id}/leases/${b.id}`, {
      lease: { event_occurrence_id: s.yoga("2026-11-19").id, person: { id: s.cleo.personId } }
    })
    expect(same.status).toBe(200)
    const done = await front("PUT", `/bookings/${booking.id}`)
    expect(done.status).toBe(200)
    expect((await visitsOfBooking(booking.id)).map((v: { state: string }) => v.state)).toEqual(["registered", "registered"])
    // After completion the people on its leases cannot change.
    const late = await front("PUT", `/bookings/${booking.id}/leases/${b.id}`, { lease: { person: { id: s.kid } } })
    expect(late.status).toBe(422)
  })

  it("staff PUT lease: a person already on the occurrence is refused; by e-mail works", async () => {
    clock.set(NOW)
    const occurrence = s.yoga("2026-11-21").id
    await desk("POST", "/bookings", { booking: { complete_booking: true, leases: [occurrenceLease(occurrence, s.otto.personId)] } })
    const created = await desk("POST", "/bookings", { booking: { leases: [occurrenceLease(occurrence, null)] } })
    const booking = created.json.bookings[0]
    const taken = await desk("PUT", `/bookings/${booking.id}/leases/${booking.leases[0].id}`, { lease: { person: { id: s.otto.personId } } })
    expect(taken.status).toBe(422)
    expect(taken.json).toEqual({ errors: ["Already enrolled"] })
    const unknown = await desk("PUT", `/bookings/${booking.id}/leases/${booking.leases[0].id}`, { lease: { person: { id: 999999 } } })
    expect(unknown.json).toEqual({ errors: ["lease.person.id 999999 does not exist"] })
    const byEmail = await desk("PUT", `/bookings/${booking.id}/leases/${booking.leases[0].id}`, { lease: { person: { email: s.cleo.email } } })
    expect(byEmail.status).toBe(200)
    expect(byEmail.json.leases[0].person.id).toBe(s.cleo.personId)
  })

  it("POST leases adds to an incomplete booking; DELETE lease frees the place", async () => {
    clock.set(NOW)
    const occurrence = s.yoga("2026-11-22").id
    const created = await front("POST", "/bookings", {})
    expect(created.status).toBe(400) // the body must be wrapped in "booking"
    const empty = await front("POST", "/bookings", { booking: {} })
    expect(empty.status).toBe(201)
    const id = empty.json.bookings[0].id
    const added = await front("POST", `/bookings/${id}/leases`, { lease: occurrenceLease(occurrence) })
    expect(added.status).toBe(201)
    expect(added.json.leases[0]).toMatchObject({ booking_id: id, event_occurrence_id: occurrence, state: "reserved" })
    expect(await capacityRemaining(s, occurrence)).toBe(2)
    const removed = await front("DELETE", `/bookings/${id}/leases/${added.json.leases[0].id}`)
    expect(removed.status).toBe(204)
    expect(await capacityRemaining(s, occurrence)).toBe(3)
    expect((await front("GET", `/bookings/${id}/leases/${added.json.leases[0].id}`)).status).toBe(404)
    // An expired booking takes no more leases.
    clock.set("2026-11-02T16:10:00Z")
    const late = await front("POST", `/bookings/${id}/leases`, { lease: occurrenceLease(occurrence) })
    expect(late.status).toBe(422)
    expect(late.json).toEqual({ errors: [`Booking ${id} has expired`] })
    clock.set(NOW)
  })
})

describe("who may see what", () => {
  it("another person's booking, another business's, unknown ids and wrong modes are 404 / 401 / 403", async () => {
    clock.set(NOW)
    const created = await front("POST", "/bookings", { booking: { leases: [occurrenceLease(s.yoga("2026-11-23").id)] } })
    const booking = created.json.bookings[0]
    const lease = booking.leases[0]
    for (const [method, path] of [
      ["GET", `/bookings/${booking.id}`],
      ["PUT", `/bookings/${booking.id}`],
      ["DELETE", `/bookings/${booking.id}`],
      ["GET", `/bookings/${booking.id}/leases/${lease.id}`],
      ["DELETE", `/bookings/${booking.id}/leases/${lease.id}`]
    ] as const) {
      const response = await front(method, path, undefined, s.otto.token)
      expect(response.status, `${method} ${path}`).toBe(404)
    }
    expect((await front("GET", `/bookings/${booking.id}`, undefined, s.otto.token)).json).toEqual({ errors: [`Booking ${booking.id} not found`] })
    // A lease id of another booking.
    const mine = await front("POST", "/bookings", { booking: {} })
    expect((await front("GET", `/bookings/${mine.json.bookings[0].id}/leases/${lease.id}`)).status).toBe(404)
    // Staff see any booking of the business; another business's staff do not.
    expect((await desk("GET", `/bookings/${booking.id}`)).status).toBe(200)
    const foreign = await s.server.request("GET", `/api/v2/desk/bookings/${booking.id}`, { token: s.foreignToken, host: "elsewhere.studio.test" })
    expect(foreign.status).toBe(404)
    expect((await desk("GET", "/bookings/999999")).status).toBe(404)
    // A client token on a desk endpoint, and client_id without a token.
    expect((await desk("GET", `/bookings/${booking.id}`, undefined, s.cleo.token)).status).toBe(403)
    const anonymous = await s.server.request("POST", "/api/v2/front/bookings?client_id=test-app", { body: { booking: {} } })
    expect(anonymous.status).toBe(401)
    expect(anonymous.json).toEqual({ error: "An access token is required" })
    // Client mode books only for the household.
    const forOtto = await front("POST", "/bookings", { booking: { leases: [occurrenceLease(s.yoga("2026-11-23").id, s.otto.personId)] } })
    expect(forOtto.status).toBe(404)
    // The booking is still there and whole.
    expect((await front("GET", `/bookings/${booking.id}`)).json.bookings[0].leases).toHaveLength(1)
  })
})
