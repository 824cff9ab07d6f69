import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { expireBooking } from "../../src/enrollment/bookings/expiry.ts"
import { expireBookingTask } from "../../workers/tasks/expire_booking.ts"
import { makeSettableClock } from "../support/clock.ts"
import { pendingJobs } from "../people/fixtures.ts"
import { NOW, type Studio, capacityRemaining, setUpStudio, visitStates } from "../support/studio.ts"

/**
 * Booking expiry with a settable clock: the `expire_booking` task's Effect is run directly at
 * chosen instants (the job it replaces is the one the booking enqueued at its expires_at).
 */
const clock = makeSettableClock(NOW)
let studio: Studio

beforeAll(async () => {
  studio = await setUpStudio(clock, { capacity: 1 })
})
afterAll(async () => studio?.server.close())

const book = (occurrenceId: number, extra: Record<string, unknown> = {}) =>
  studio.server.request("POST", "/api/v2/front/bookings", {
    token: studio.cleo.token,
    body: { booking: { leases: [{ event_occurrence_id: occurrenceId, person: { id: studio.cleo.personId } }], ...extra } }
  })
const run = (bookingId: number) => studio.server.runtime.runPromise(expireBooking(studio.business.id, bookingId))
const bookingState = async (id: number) =>
  (await studio.server.request("GET", `/api/v2/desk/bookings/${id}`, { token: studio.owner.token })).json.bookings[0]

describe("expire_booking", () => {
  it("expires an incomplete booking once its time has passed, and its place comes back", async () => {
    clock.set(NOW)
    const occurrence = studio.yoga("2026-11-10").id
    const created = await book(occurrence)
    expect(created.status).toBe(201)
    const booking = created.json.bookings[0]
    expect(booking.expires_at).toBe("2026-11-02T16:10:00Z")
    expect(await capacityRemaining(studio, occurrence)).toBe(0)
    // The job was enqueued with the booking, for its expires_at.
    const jobs = await pendingJobs(studio.pool, "expire_booking")
    expect(jobs).toContainEqual({ business_id: studio.business.id, booking_id: booking.id })
    const { rows } = await studio.pool.query(
      `select run_at from graphile_worker._private_jobs where key = $1`,
      [`expire_booking:${studio.business.id}:${booking.id}`]
    )
    expect(rows[0].run_at.toISOString()).toBe("2026-11-02T16:10:00.000Z")

    // Run early (the clock has not reached expires_at): nothing changes, the job is queued again.
    clock.set("2026-11-02T16:09:59Z")
    expect(await run(booking.id)).toBe("rescheduled")
    expect((await bookingState(booking.id)).state).toBe("incomplete")
    expect(await capacityRemaining(studio, occurrence)).toBe(0)

    clock.set("2026-11-02T16:10:00Z")
    expect(await run(booking.id)).toBe("expired")
    const expired = await bookingState(booking.id)
    expect(expired.state).toBe("expired")
    expect(expired.leases.map((lease: { state: string; event_occurrence_ids: Array<number> }) => [lease.state, lease.event_occurrence_ids])).toEqual([
      ["expired", []]
    ])
    expect(await visitStates(studio.server, occurrence)).toEqual([])
    expect(await capacityRemaining(studio, occurrence)).toBe(1)

    // Completing it now is refused; running the job again does nothing.
    const complete = await studio.server.request("PUT", `/api/v2/front/bookings/${booking.id}`, { token: studio.cleo.token })
    expect(complete.status).toBe(422)
    expect(complete.json).toEqual({ errors: [`Booking ${booking.id} has expired`] })
    expect(await run(booking.id)).toBe("skipped")
  })

  it("a booking completed just before expiry stays completed when the job runs", async () => {
    clock.set(NOW)
    const occurrence = studio.yoga("2026-11-11").id
    const created = await book(occurrence, { expires_at: "2026-11-02T16:05:00Z" })
    expect(created.status).toBe(201)
    const id = created.json.bookings[0].id
    clock.set("2026-11-02T16:04:59Z")
    const complete = await studio.server.request("PUT", `/api/v2/front/bookings/${id}`, { token: studio.cleo.token })
    expect(complete.status).toBe(200)
    expect(complete.json.bookings[0].state).toBe("completed")
    clock.set("2026-11-02T16:05:00Z")
    expect(await run(id)).toBe("skipped")
    const after = await bookingState(id)
    expect(after.state).toBe("completed")
    expect(after.completed_at).toBe("2026-11-02T16:04:59Z")
    expect(after.leases[0].state).toBe("registered")
    expect(await visitStates(studio.server, occurrence)).toEqual(["registered"])
    expect(await capacityRemaining(studio, occurrence)).toBe(0)
  })

  it("an expired appointment lease frees the staff member's slot", async () => {
    clock.set(NOW)
    const slot = { service_id: studio.services.private, staff_member_id: studio.ines.staffMemberId, location_id: studio.main, start_at: "2026-11-04T18:00:00Z" }
    const first = await studio.server.request("POST", "/api/v2/desk/bookings", { token: studio.owner.token, body: { booking: { leases: [slot] } } })
    expect(first.status).toBe(201)
    const taken = await studio.server.request("POST", "/api/v2/desk/bookings", { token: studio.owner.token, body: { booking: { leases: [slot] } } })
    expect(taken.status).toBe(422)
    clock.set("2026-11-02T16:10:00Z")
    expect(await run(first.json.bookings[0].id)).toBe("expired")
    const { rows } = await studio.pool.query(`select state from event_occurrences where id = $1`, [first.json.bookings[0].leases[0].event_occurrence_id])
    expect(rows[0].state).toBe("deleted")
    const again = await studio.server.request("POST", "/api/v2/desk/bookings", { token: studio.owner.token, body: { booking: { leases: [slot] } } })
    expect(again.status).toBe(201)
  })

  it("the cron sweep (payload without a booking) expires bookings whose job was lost", async () => {
    clock.set(NOW)
    const occurrence = studio.yoga("2026-11-12").id
    const created = await book(occurrence)
    const id = created.json.bookings[0].id
    await studio.pool.query(`delete from graphile_worker._private_jobs where key = $1`, [`expire_booking:${studio.business.id}:${id}`])
    clock.set("2026-11-02T16:30:00Z")
    await studio.server.runtime.runPromise(expireBookingTask({ _cron: { ts: "2026-11-02T16:30:00Z" } }))
    expect((await bookingState(id)).state).toBe("expired")
    expect(await capacityRemaining(studio, occurrence)).toBe(1)
  })
})

describe("expire_booking through the real worker", () => {
  it("the job enqueued with the booking runs and expires it", async () => {
    const workerClock = makeSettableClock(NOW)
    const withWorker = await setUpStudio(workerClock, { capacity: 1, worker: true })
    try {
      const occurrence = withWorker.yoga("2026-11-10").id
      // The shortest hold the rules allow is a second ahead of the service's clock; the job's
      // run_at is that instant in real time, which has long passed, so the worker picks it up.
      workerClock.set("2026-11-02T16:00:00Z")
      const created = await withWorker.server.request("POST", "/api/v2/front/bookings", {
        token: withWorker.cleo.token,
        body: { booking: { expires_at: "2026-11-02T16:00:01Z", leases: [{ event_occurrence_id: occurrence, person: { id: withWorker.cleo.personId } }] } }
      })
      expect(created.status).toBe(201)
      workerClock.set("2026-11-02T16:00:02Z")
      const id = created.json.bookings[0].id
      let state = "incomplete"
      for (let i = 0; i < 100 && state !== "expired"; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100))
        state = (await withWorker.pool.query(`select state from bookings where id = $1`, [id])).rows[0].state
      }
      expect(state).toBe("expired")
      expect(await capacityRemaining(withWorker, occurrence)).toBe(1)
    } finally {
      await withWorker.server.close()
    }
  })
})
