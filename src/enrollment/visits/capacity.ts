import { Effect } from "effect"
import { enqueueJob } from "../../platform/jobs.ts"
import { OfferWaitlistPlacesJob } from "./jobs.ts"
import { type Message, Unprocessable, fail } from "../../shared/errors.ts"
import { HOLDING_STATES, type VisitState } from "./model.ts"
import type { AdmissionLock } from "./admit-statements.ts"
import type { NewVisit } from "./payments.ts"
import { VisitsRepo } from "./repo.ts"
import { currentTime } from "../../shared/clock.ts"
import { VisitRefusals } from "./refusals.ts"

/**
 * The one way a visit comes into being, and the capacity rule (docs/decisions.md, "Capacity").
 *
 * Every writer that adds visits (POST visits in both modes, leases of bookings, the waitlist's
 * offer of a freed place) calls `admitVisits` inside its transaction. It locks the occurrences
 * (`for no key update`, in id order), reads the places taken under the lock (both in one
 * round trip: `lockForAdmission`; the count is kept by the visits' own triggers, whoever writes
 * them), refuses what does not fit, and inserts. A second writer on the same occurrence waits for the first
 * to commit and then reads the count with its visits in it, so whatever the interleaving, an occurrence never
 * holds more than its capacity. Locking in id order keeps multi-occurrence writers (a course
 * lease) from deadlocking each other.
 *
 * Whoever frees places (a visit deleted, noshowed or late-canceled, a lease expired or removed)
 * calls `placesFreed` in the same transaction: it wakes the waitlist's offer job.
 */
export interface Admission {
  readonly occurrenceId: number
  readonly personId: number | null
  readonly state: VisitState
  readonly bookingId?: number | null
  readonly leaseId?: number | null
  readonly notifyClient?: boolean
  readonly createdByStaffMemberId?: number | null
}

export interface AdmitOptions {
  /** Refuse admissions beyond capacity (422 "This event is full"). Staff may overbook by leaving it off. */
  readonly enforceCapacity: boolean
  /**
   * The occurrences as the caller already locked them (`lockForAdmission`, this transaction, for
   * the same people, with no visit written since): a writer that must hold the lock before its own
   * inserts passes them instead of locking twice.
   */
  readonly locked?: AdmissionLock
  /**
   * What the caller refuses already (its own rules, checked before the lock): admitting refuses
   * these together with its own, in this order, so one 422 lists every failed rule.
   */
  readonly refusals?: ReadonlyArray<Message>
}

/** States in which a new visit is spent at once, so auto-pay pays it (docs/decisions.md). */
const PAID_ON_ADMISSION: ReadonlyArray<VisitState> = ["registered", "completed"]

const holding = (state: VisitState) => (HOLDING_STATES as ReadonlyArray<VisitState>).includes(state)

/**
 * Admits the visits, all or none; returns their ids in order. Must run inside
 * `sql.withTransaction`: the locks last until the commit. Refusals (422, one message per rule):
 * an unknown occurrence is a defect of the caller (it looked it up first); a canceled or
 * deleted occurrence, a person already on the occurrence, and (with enforceCapacity) no place left.
 */
export const admitVisits = Effect.fn("Visits.admit")(function* (
  businessId: number,
  admissions: ReadonlyArray<Admission>,
  options: AdmitOptions
) {
  if (admissions.length === 0) return [] as ReadonlyArray<number>
  const repo = yield* VisitsRepo
  const occurrenceIds = [...new Set(admissions.map((admission) => admission.occurrenceId))]
  const personIds = [...new Set(admissions.flatMap((admission) => (admission.personId === null ? [] : [admission.personId])))]
  const { occurrences: locked, occupancy: { taken, visitors }, gonePeople } = options.locked ??
    (yield* repo.lockForAdmission({ businessId, occurrenceIds, personIds }))
  const byId = new Map(locked.map((row) => [row.id, row]))
  const missing = occurrenceIds.filter((id) => !byId.has(id))
  if (missing.length > 0) return yield* Effect.die(new Error(`Event occurrences ${missing.join(", ")} not found in business ${businessId}`))
  // Deleted since the caller looked them up: a visit would outlive its person's deletion.
  const gone = personIds.find((id) => gonePeople.has(id))
  if (gone !== undefined) return yield* VisitRefusals.personNotFound.fail({ id: gone })

  const problems: Array<Message> = [...(options.refusals ?? [])]
  const refuse = (message: Message) => {
    if (!problems.some((known) => known.key === message.key)) problems.push(message)
  }
  for (const row of locked) {
    if (row.state === "canceled") refuse(VisitRefusals.eligibilityCancelled.message())
    if (row.state === "deleted") refuse(VisitRefusals.eligibilityDeleted.message())
  }

  // One visit per person and occurrence: those already there, and repeats within this call.
  const seen = new Set(visitors.map((pair) => `${pair.occurrenceId}:${pair.personId}`))
  for (const admission of admissions) {
    if (admission.personId === null) continue
    const key = `${admission.occurrenceId}:${admission.personId}`
    if (seen.has(key)) refuse(VisitRefusals.eligibilityAlreadyEnrolled.message())
    seen.add(key)
  }

  if (options.enforceCapacity) {
    const wanted = new Map<number, number>()
    for (const admission of admissions) {
      if (holding(admission.state)) wanted.set(admission.occurrenceId, (wanted.get(admission.occurrenceId) ?? 0) + 1)
    }
    for (const [id, count] of wanted) {
      const capacity = byId.get(id)!.capacity
      if (capacity !== null && (taken.get(id) ?? 0) + count > capacity) refuse(VisitRefusals.eligibilityFull.message())
    }
  }
  if (problems.length > 0) return yield* fail(Unprocessable, ...problems)

  const now = (yield* currentTime)
  const ids = yield* repo.insertEnrolling({
    businessId,
    visits: admissions.map((admission) => ({
      event_occurrence_id: admission.occurrenceId,
      person_id: admission.personId,
      state: admission.state,
      booking_id: admission.bookingId ?? null,
      lease_id: admission.leaseId ?? null,
      notify_client: admission.notifyClient ?? true,
      created_by_staff_member_id: admission.createdByStaffMemberId ?? null,
      registered_at: admission.state === "reserved" ? null : now,
      completed_at: admission.state === "completed" ? now : null,
      noshow_at: admission.state === "noshowed" ? now : null,
      cancelled_at: admission.state === "late_canceled" ? now : null,
      created_at: now,
      updated_at: now
    })),
    now
  })
  // Auto-pay: a visit admitted as registered or completed is paid by the person's suitable plan, if any.
  yield* repo.payments.payNewVisits(
    businessId,
    admissions.flatMap((admission, i): Array<NewVisit> => {
      if (admission.personId === null || !PAID_ON_ADMISSION.includes(admission.state)) return []
      const occurrence = byId.get(admission.occurrenceId)!
      return [{
        id: ids[i]!,
        person_id: admission.personId,
        state: admission.state,
        service_id: occurrence.service_id,
        location_id: occurrence.location_id,
        staff_member_ids: occurrence.staff_member_ids,
        visit_date: occurrence.local_date
      }]
    })
  )
  return ids
})

/**
 * Places came free in these occurrences (in the caller's transaction): the waitlist's offer job
 * runs for each that has someone waiting, once per occurrence however many places freed.
 */
export const placesFreed = Effect.fn("Visits.placesFreed")(function* (businessId: number, occurrenceIds: ReadonlyArray<number>) {
  const waiting = yield* (yield* VisitsRepo).waitlist.withWaiting({ businessId, occurrenceIds: [...new Set(occurrenceIds)] })
  for (const occurrenceId of waiting) {
    yield* enqueueJob(
      OfferWaitlistPlacesJob,
      { business_id: businessId, event_occurrence_id: occurrenceId },
      { jobKey: `waitlist:${businessId}:${occurrenceId}`, maxAttempts: 10 }
    )
  }
})
