import { Effect } from "effect"
import { CurrentBusiness } from "../../access/tenant.ts"
import { isSlotAvailable } from "../../schedule/availability/service.ts"
import { createAppointment, setOccurrenceState } from "../../schedule/event-occurrences/service.ts"
import { emitPersonEvents, insertPerson } from "../../identity/people/commands.ts"
import { NewClientPasses } from "../../identity/people/new-client-passes.ts"
import { type Message, Unprocessable, fail } from "../../shared/errors.ts"
import { formatTimestamp } from "../../shared/schemas.ts"
import { type Admission, admitVisits, placesFreed } from "../visits/capacity.ts"
import { emitVisitEvents } from "../visits/events.ts"
import { VisitsRepo } from "../visits/repo.ts"
import type { BookingInsert } from "./booking-insert.ts"
import type { LeaseRow } from "./model.ts"
import { type Caller, isFrontCaller } from "../../access/caller.ts"
import type { LeasePlan, PersonPlan } from "./lease-plan.ts"
import { BookingsRepo } from "./repo.ts"
import { currentTime } from "../../shared/clock.ts"
import { BookingRefusals } from "./refusals.ts"

/**
 * Leases written: once every lease of a request resolved (lease-plan.ts), the places they
 * hold are written in the caller's transaction, completed, or released.
 */

/** Creates the people a request introduced (once each), returning the plan's person id. */
export const personIdOf = Effect.fn("Leases.personId")(function* (businessId: number, plan: PersonPlan) {
  switch (plan._tag) {
    case "None":
      return null
    case "Existing":
      return plan.id
    case "New": {
      if (plan.id === undefined) {
        plan.id = yield* insertPerson(businessId, plan.prepared, plan.field)
        if (plan.newClientPasses) yield* (yield* NewClientPasses).give(yield* CurrentBusiness, [plan.id])
        yield* emitPersonEvents("person.created", [plan.id])
      }
      return plan.id
    }
  }
})

/**
 * Writes the leases of a booking and their visits (in the caller's transaction): `reserved`
 * (a hold), or `registered` when the booking completes at once, so each row is written once in
 * its final state (an update of a row inserted in the same transaction re-runs its FK checks).
 * Appointment leases first take their staff members' locks, then check the slot is still
 * free and create the appointment (`reserved`, or `active` with registered leases); every visit goes through `admitVisits` in one
 * call, so its occurrence locks are taken in one id order. `booking`: the leases' booking, or a new one
 * without an idempotency token, inserted by the leases' own statement. `plans` is not empty. Returns
 * the booking's id, the leases as written and the visit ids.
 */
export const writeLeases = Effect.fn("Leases.write")(function* (
  businessId: number,
  booking: number | BookingInsert,
  plans: ReadonlyArray<LeasePlan>,
  caller: Caller,
  state: "reserved" | "registered" = "reserved"
) {
  const repo = yield* BookingsRepo
  const now = (yield* currentTime)
  const people: Array<number | null> = []
  for (const plan of plans) people.push(yield* personIdOf(businessId, plan.person))

  yield* repo.lockStaffSchedules({ businessId, staffIds: plans.flatMap((plan) => (plan.kind === "appointment" ? [plan.staff_member_id!] : [])) })
  const problems: Array<Message> = []
  const occurrenceIds: Array<ReadonlyArray<number>> = []
  for (const [i, plan] of plans.entries()) {
    if (plan.kind !== "appointment") {
      occurrenceIds.push(plan.occurrenceIds)
      continue
    }
    const slot = { staff_member_id: plan.staff_member_id!, location_id: plan.location_id!, start_at: plan.start_at! }
    if (problems.length > 0 || !(yield* isSlotAvailable(plan.service, slot, isFrontCaller(caller)))) {
      problems.push(BookingRefusals.leaseSlotUnavailable.message({ field: `leases[${i}].start_at`, start_at: formatTimestamp(slot.start_at) }))
      occurrenceIds.push([])
      continue
    }
    const id = yield* createAppointment(businessId, {
      service_id: plan.service.id,
      staff_member_id: slot.staff_member_id,
      location_id: slot.location_id,
      start_at: slot.start_at,
      person_id: people[i]!,
      state: state === "registered" ? "active" : "reserved"
    })
    occurrenceIds.push([id])
  }
  if (problems.length > 0) return yield* fail(Unprocessable, ...problems)

  // The lease rows' foreign keys take a share lock on their occurrence; taking admitVisits's
  // update lock first (in id order) keeps two bookings of one occurrence from deadlocking.
  const locked = yield* (yield* VisitsRepo).lockForAdmission({
    businessId,
    occurrenceIds: occurrenceIds.flat(),
    personIds: [...new Set(people.filter((id): id is number => id !== null))]
  })
  const leases = yield* repo.insertLeases({
    businessId,
    booking,
    occurrenceIds,
    leases: plans.map((plan, i) => ({
      kind: plan.kind,
      state,
      person_id: people[i]!,
      event_occurrence_id: occurrenceIds[i]![0] ?? null,
      event_id: plan.event_id,
      service_id: plan.service.id,
      staff_member_id: plan.staff_member_id,
      location_id: plan.location_id,
      start_at: plan.start_at,
      recurring: plan.recurring,
      created_at: now,
      updated_at: now
    }))
  })
  const bookingId = leases[0]?.booking_id
  if (bookingId === undefined || leases.length < plans.length) return yield* Effect.die(new Error("leases not written"))
  const admissions: Array<Admission> = plans.flatMap((_, i) =>
    occurrenceIds[i]!.map((occurrenceId) => ({
      occurrenceId,
      personId: people[i]!,
      state,
      bookingId,
      leaseId: leases[i]!.id,
      createdByStaffMemberId: caller._tag === "Staff" ? caller.staffMemberId : null
    }))
  )
  const visitIds = yield* admitVisits(businessId, admissions, { enforceCapacity: true, locked })
  // A hold is not a visit to webhook consumers; registered at once, its visits are created now.
  if (state === "registered") yield* emitVisitEvents(businessId, "visit.created", visitIds)
  return { bookingId, leases, visitIds }
})

/**
 * Completion: the leases' visits reserved → registered, leases registered, their appointments
 * active, the booking completed; the visits are announced as created now (a hold is not).
 */
export const completeLeases = Effect.fn("Leases.complete")(function* (businessId: number, bookingId: number, leases: ReadonlyArray<LeaseRow>) {
  const repo = yield* BookingsRepo
  const now = (yield* currentTime)
  const ids = leases.map((lease) => lease.id)
  const visits = yield* VisitsRepo
  const visitIds = yield* visits.registerOfLeases({ businessId, leaseIds: ids, now })
  // Auto-pay: the registered visits are paid by their people's suitable plans, if any.
  yield* visits.payments.payVisits(businessId, visitIds)
  yield* repo.setLeasesState({ businessId, ids, state: "registered", now })
  yield* setOccurrenceState(businessId, appointmentsOf(leases), "active")
  yield* repo.setState({ businessId, id: bookingId, state: "completed", now })
  yield* emitVisitEvents(businessId, "visit.created", visitIds)
})

const appointmentsOf = (leases: ReadonlyArray<LeaseRow>) =>
  leases.flatMap((lease) => (lease.kind === "appointment" && lease.event_occurrence_id !== null ? [lease.event_occurrence_id] : []))

/**
 * Gives back what uncompleted leases hold: their visits are deleted, the places freed (the
 * waitlist hears of it) and their appointments deleted so availability shows the slot again.
 */
export const releaseLeases = Effect.fn("Leases.release")(function* (businessId: number, leases: ReadonlyArray<LeaseRow>) {
  if (leases.length === 0) return
  const repo = yield* VisitsRepo
  const visits = yield* repo.ofLeases({ businessId, leaseIds: leases.map((lease) => lease.id) })
  // Their occurrences' locks first, as a visit's deletion takes them (visits/commands.ts, lockVisit):
  // a waitlist join deciding "full" meanwhile has committed before the freed places look for it.
  yield* repo.lockOccurrences({ businessId, ids: visits.map((visit) => visit.event_occurrence_id) })
  // A held visit a staff member punched gives its plan the visit back.
  yield* repo.payments.unpayVisits(businessId, visits.map((visit) => visit.id))
  yield* repo.deleteByIds({ businessId, ids: visits.map((visit) => visit.id) })
  yield* placesFreed(businessId, visits.map((visit) => visit.event_occurrence_id))
  yield* setOccurrenceState(businessId, appointmentsOf(leases), "deleted")
})
