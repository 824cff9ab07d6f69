import { Effect } from "effect"
import { CurrentBusiness } from "../../access/tenant.ts"
import { EventOccurrencesRepo } from "../../schedule/event-occurrences/repo.ts"
import { inTransaction } from "../../platform/transactions.ts"
import { type Message, Unprocessable, fail } from "../../shared/errors.ts"
import { VisitsRepo } from "../visits/repo.ts"
import { personIdOf, releaseLeases, writeLeases } from "./leases.ts"
import type { Caller } from "../../access/caller.ts"
import { requireLivePerson } from "../../identity/people/client-reach.ts"
import { resolvePerson } from "./lease-plan.ts"
import { findBooking, findLease, leaseResponse, leaseWire, requireOpen, resolveContext, resolveLeases } from "./lookup.ts"
import type { LeaseInput, LeaseRow } from "./model.ts"
import { BookingsRepo } from "./repo.ts"
import { currentTime } from "../../shared/clock.ts"
import { BookingRefusals } from "./refusals.ts"
import { VisitRefusals } from "../visits/refusals.ts"

/**
 * The lease endpoints of a booking (both modes): read, add, change who attends, delete. Each
 * write locks the booking first, as the booking commands do (service.ts).
 */

export const getLease = Effect.fn("Bookings.getLease")(function* (caller: Caller, bookingId: number, leaseId: number) {
  const booking = yield* findBooking(caller, bookingId, false)
  return { leases: [leaseWire(yield* findLease(booking, leaseId))] }
})

/** POST leases: one more lease on a live, incomplete booking. */
export const addLease = Effect.fn("Bookings.addLease")(function* (caller: Caller, bookingId: number, input: LeaseInput) {
  const business = yield* CurrentBusiness
  const { leases: [written] } = yield* inTransaction(
    Effect.gen(function* () {
      const booking = yield* findBooking(caller, bookingId, true)
      yield* requireOpen(booking)
      const messages: Array<Message> = []
      const plans = yield* resolveLeases(yield* resolveContext(caller), [input], () => "lease", messages)
      if (messages.length > 0) return yield* fail(Unprocessable, ...messages)
      return yield* writeLeases(business.id, bookingId, plans, caller)
    })
  )
  // Answered as written (the insert joins the person's name; its occurrences are the plan's).
  return { leases: written ? [leaseWire(written)] : [] }
})

/** The shape fields a lease body may repeat but not change (spec: delete and re-create instead). */
const unchangedShape = (lease: LeaseRow, input: LeaseInput): Array<Message> => {
  const same = <A>(name: string, given: A | null | undefined, current: A | null, equal = (a: A, b: A) => a === b) =>
    given === undefined || given === null || (current !== null && equal(given, current))
      ? []
      : [BookingRefusals.leaseServiceUnchangeable.message({ field: `lease.${name}` })]
  const anchor = lease.kind === "event_occurrence" ? lease.event_occurrence_id : null
  return [
    ...same("event_occurrence_id", input.event_occurrence_id, anchor),
    ...same("service_id", input.service_id, lease.service_id),
    ...same("event_id", input.event_id, lease.event_id),
    ...same("staff_member_id", input.staff_member_id, lease.staff_member_id),
    ...same("location_id", input.location_id, lease.location_id),
    ...same("start_at", input.start_at, lease.start_at, (a, b) => a.getTime() === b.getTime()),
    ...(input.recurring === undefined || input.recurring === lease.recurring
      ? []
      : [BookingRefusals.leaseServiceUnchangeable.message({ field: "lease.recurring" })])
  ]
}

/**
 * PUT lease: changes who attends (client mode: the token's person or a dependent; staff mode
 * by id, e-mail or new), on an incomplete booking. The lease's visits follow, one visit per
 * person and occurrence still holding (422 "Already enrolled").
 */
export const updateLease = Effect.fn("Bookings.updateLease")(function* (caller: Caller, bookingId: number, leaseId: number, input: LeaseInput) {
  const business = yield* CurrentBusiness
  const repo = yield* BookingsRepo
  const visits = yield* VisitsRepo
  yield* inTransaction(
    Effect.gen(function* () {
      const booking = yield* findBooking(caller, bookingId, true)
      const lease = yield* findLease(booking, leaseId)
      yield* requireOpen(booking)
      const messages = unchangedShape(lease, input)
      if (input.person === undefined) {
        if (messages.length > 0) return yield* fail(Unprocessable, ...messages)
        return
      }
      const context = yield* resolveContext(caller)
      const { plan, notFound } = yield* resolvePerson(context, input.person, "lease.person", messages)
      if (notFound !== undefined) return yield* BookingRefusals.personNotFound.fail({ id: notFound })
      if (messages.length > 0) return yield* fail(Unprocessable, ...messages)
      const held = yield* visits.ofLeases({ businessId: business.id, leaseIds: [lease.id] })
      const occurrenceIds = [...new Set(held.map((visit) => visit.event_occurrence_id))]
      // The occurrence locks admitVisits takes: a concurrent admission of the same person waits.
      yield* visits.lockOccurrences({ businessId: business.id, ids: occurrenceIds })
      const personId = plan._tag === "Existing" ? plan.id : null
      if (personId !== null && personId !== lease.person_id) {
        // After the occurrences, as admitVisits: the person held until the commit, so their deletion
        // counts these visits or this finds them gone.
        yield* requireLivePerson(personId, { hold: true })
        const enrolled = yield* visits.visitorsOf({ businessId: business.id, occurrenceIds, personIds: [personId] })
        if (enrolled.length > 0) return yield* VisitRefusals.eligibilityAlreadyEnrolled.fail()
      }
      const newId = plan._tag === "New" ? yield* personIdOf(business.id, plan) : personId
      const now = (yield* currentTime)
      yield* repo.setLeasePerson({ businessId: business.id, id: lease.id, personId: newId, now })
      yield* visits.setPersonOfLease({ businessId: business.id, leaseId: lease.id, personId: newId, now })
      if (lease.kind === "appointment" && lease.event_occurrence_id !== null) {
        yield* (yield* EventOccurrencesRepo).setAppointmentPerson({ businessId: business.id, occurrenceId: lease.event_occurrence_id, personId: newId, now })
      }
    })
  )
  return yield* leaseResponse(leaseId)
})

/** DELETE lease: only while the booking is not completed; what it holds is released. */
export const deleteLease = Effect.fn("Bookings.deleteLease")(function* (caller: Caller, bookingId: number, leaseId: number) {
  const business = yield* CurrentBusiness
  const repo = yield* BookingsRepo
  yield* inTransaction(
    Effect.gen(function* () {
      const booking = yield* findBooking(caller, bookingId, true)
      const lease = yield* findLease(booking, leaseId)
      if (booking.state === "completed") return yield* BookingRefusals.bookingCompleted.fail({ id: bookingId })
      yield* releaseLeases(business.id, [lease])
      yield* repo.deleteLease({ businessId: business.id, id: lease.id })
    })
  )
})
