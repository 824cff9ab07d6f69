import { Clock, Effect } from "effect"
import { CurrentStaff } from "../../access/access.ts"
import { CurrentBusiness } from "../../access/tenant.ts"
import { EligibilityRepo } from "../eligibility/repo.ts"
import { occurrenceEligibility } from "../eligibility/service.ts"
import { findOccurrence } from "../../schedule/event-occurrences/service.ts"
import { clientReach, requireInReach, requireLivePerson } from "../../identity/people/client-reach.ts"
import { inTransaction } from "../../platform/transactions.ts"
import { frontCaller } from "../../catalog/services/callers.ts"
import { findService } from "../../catalog/services/service.ts"
import { type Message, Unprocessable, fail } from "../../shared/errors.ts"
import { parseLocale } from "../../shared/locale.ts"
import { RequestContext } from "../../shared/request-context.ts"
import { admitVisits, placesFreed } from "./capacity.ts"
import { emitVisitEvents } from "./events.ts"
import { shownVisits } from "./shown.ts"
import { HOLDING_STATES, VISIT_TRANSITIONS, type VisitCreateDeskInput, type VisitCreateFrontInput, type VisitRow, type VisitState, type VisitUpdateInput } from "./model.ts"
import { type VisitChange, VisitsRepo } from "./repo.ts"
import { findFrontVisit, notifyClient } from "./service.ts"
import { currentTime } from "../../shared/clock.ts"
import { VisitRefusals } from "./refusals.ts"

/**
 * Creating, changing and deleting visits. Each write runs in one transaction: the visit, its
 * webhook event, the waitlist wake-up and the client's mail commit together or not at all.
 * Rules are checked before anything is written; places are taken only through `admitVisits`
 * (capacity.ts), which checks `full`, `already_enrolled`, `cancelled` and `deleted` under the
 * occurrence's lock (staff mode hands it its own refusals, so one 422 lists them all).
 */

const isHolding = (state: VisitState) => (HOLDING_STATES as ReadonlyArray<VisitState>).includes(state)

/** Staff notices go out in the business's language; a client's own request in theirs. */
const businessLocale = Effect.gen(function* () {
  const business = yield* CurrentBusiness
  return parseLocale(business.default_locale) ?? "en"
})

/** Create and update answer the visits as `:id` shows them. */
const visitsOf = Effect.fn("Visits.wire")(function* (ids: ReadonlyArray<number>) {
  return yield* shownVisits((yield* CurrentBusiness).id, ids)
})

// ---------------------------------------------------------------------------------------------
// Client mode

/**
 * POST /front/visits: the token's person or a dependent enrolls in an occurrence they can see,
 * under every client-mode restriction of the eligibility rules; `full` under the lock. The
 * client is always notified.
 */
export const createFrontVisit = Effect.fn("Visits.frontCreate")(function* (input: VisitCreateFrontInput) {
  const business = yield* CurrentBusiness
  const { locale } = yield* RequestContext
  const reach = yield* clientReach
  const personId = input.person_id ?? reach.selfId
  yield* requireInReach(reach, personId)
  const occurrence = yield* findOccurrence(input.event_occurrence_id, yield* frontCaller)
  // The occurrence is visible, so its service is too (or it is the caller's own appointment).
  const service = yield* findService(occurrence.service_id, { _tag: "Staff", includeHidden: true })
  const [person] = yield* (yield* EligibilityRepo).people({ businessId: business.id, ids: [personId] })
  if (!person) return yield* VisitRefusals.personNotFound.fail({ id: personId })
  // Every client-mode restriction of the occurrence's eligibility, in its localized description.
  const [eligibility] = yield* occurrenceEligibility(occurrence, service, [person], "front")
  if (eligibility!.restrictions.length > 0) {
    return yield* Effect.fail(new Unprocessable({ errors: eligibility!.restrictions.map((restriction) => restriction.description) }))
  }
  const [id] = yield* inTransaction(
    Effect.gen(function* () {
      const ids = yield* admitVisits(business.id, [{ occurrenceId: occurrence.id, personId, state: "registered", notifyClient: true }], {
        enforceCapacity: true
      })
      yield* emitVisitEvents(business.id, "visit.created", ids)
      yield* notifyClient("visit_confirmation", { person_id: personId, event_occurrence_id: occurrence.id }, locale, occurrence)
      return ids
    })
  )
  return yield* visitsOf([id!])
})

/**
 * DELETE /front/visits/:id: a reserved or registered visit of the token's person or a
 * dependent, before its occurrence starts; the place frees and the client is told.
 */
export const deleteFrontVisit = Effect.fn("Visits.frontDelete")(function* (id: number) {
  const { locale } = yield* RequestContext
  yield* findFrontVisit(id)
  yield* inTransaction(
    Effect.gen(function* () {
      const row = yield* lockVisit(id)
      const occurrence = yield* findOccurrence(row.event_occurrence_id, { _tag: "Staff" })
      const now = yield* Clock.currentTimeMillis
      const problems: Array<Message> = []
      if (row.lease_id !== null && row.state === "reserved") problems.push(VisitRefusals.visitHeldByBooking.message({ id: row.booking_id ?? row.lease_id }))
      else if (row.state !== "reserved" && row.state !== "registered") problems.push(VisitRefusals.visitDeleteState.message({ state: row.state }))
      if (now >= occurrence.start_at.getTime()) problems.push(VisitRefusals.visitDeleteStarted.message())
      if (problems.length > 0) return yield* fail(Unprocessable, ...problems)
      yield* removeVisit(row)
      yield* notifyClient("visit_cancellation", row, locale, occurrence)
    })
  )
})

// ---------------------------------------------------------------------------------------------
// Staff mode

/**
 * The visit, locked until the commit (a visit of another business is not found), after its
 * occurrence: the order admitVisits takes its locks in, and the lock a waitlist join decides
 * "full" under. A place freed without it could be freed while a join that counted it taken has
 * not committed yet: the freeing would find nobody waiting, and the joiner would wait beside a
 * free place with no offer coming.
 */
const lockVisit = (id: number) =>
  Effect.gen(function* () {
    const business = yield* CurrentBusiness
    const repo = yield* VisitsRepo
    if (!(yield* repo.lockOccurrenceOfVisit({ businessId: business.id, id }))) return yield* VisitRefusals.visitNotFound.fail({ id })
    const row = yield* repo.findForUpdate({ businessId: business.id, id })
    if (!row) return yield* VisitRefusals.visitNotFound.fail({ id })
    return row
  })

const removeVisit = Effect.fn("Visits.remove")(function* (row: VisitRow) {
  const business = yield* CurrentBusiness
  const repo = yield* VisitsRepo
  // Its punch goes with it, and the plan gets the visit back.
  if (row.punch_id !== null) yield* repo.payments.unpayVisits(business.id, [row.id])
  yield* repo.delete({ businessId: business.id, id: row.id })
  if (isHolding(row.state)) yield* placesFreed(business.id, [row.event_occurrence_id])
})

/**
 * POST /desk/visits. Staff may overbook and enroll at any time unless they list the
 * restriction (`full`, `in_the_past`, `inside_blackout_window`); each listed one that fails is
 * a 422 with its description. `cancelled`, `deleted` and `already_enrolled` always apply.
 */
export const createDeskVisit = Effect.fn("Visits.deskCreate")(function* (input: VisitCreateDeskInput) {
  const business = yield* CurrentBusiness
  const staff = yield* CurrentStaff
  const state = input.state ?? "registered"
  const personId = input.person_id ?? null
  const restrictions = new Set(input.restrictions ?? [])
  const notify = input.notify_client ?? true
  if (personId === null && state !== "reserved") {
    return yield* VisitRefusals.visitPersonRequired.fail({ state })
  }
  const occurrence = yield* findOccurrence(input.event_occurrence_id, { _tag: "Staff" })
  if (personId !== null) yield* requireLivePerson(personId)
  const service = yield* findService(occurrence.service_id, { _tag: "Staff", includeHidden: true })
  const now = yield* Clock.currentTimeMillis

  const problems: Array<Message> = []
  const ended = occurrence.end_at.getTime() <= now
  // The same clock as the eligibility rules: online enrollment closes `blackout` minutes
  // before the start; an occurrence that has ended is past that point too.
  const closed = now >= occurrence.start_at.getTime() - service.enrollment_window_blackout_minutes * 60_000
  if (restrictions.has("in_the_past") && ended) problems.push(VisitRefusals.eligibilityInThePast.message())
  if (restrictions.has("inside_blackout_window") && closed) problems.push(VisitRefusals.eligibilityInsideBlackoutWindow.message())
  const enforceCapacity = restrictions.has("full")

  const locale = yield* businessLocale
  const [id] = yield* inTransaction(
    Effect.gen(function* () {
      // admitVisits adds what it refuses under the lock to these, so one 422 lists every failed rule.
      const ids = yield* admitVisits(
        business.id,
        [{ occurrenceId: occurrence.id, personId, state, notifyClient: notify, createdByStaffMemberId: staff.staffMemberId }],
        { enforceCapacity, refusals: problems }
      )
      yield* emitVisitEvents(business.id, "visit.created", ids)
      // A visit recorded after the fact (completed, no-show, late cancel) is no news to the client.
      if (notify && (state === "registered" || state === "reserved")) {
        yield* notifyClient("visit_confirmation", { person_id: personId, event_occurrence_id: occurrence.id }, locale, occurrence)
      }
      return ids
    })
  )
  return yield* visitsOf([id!])
})

/**
 * PUT /desk/visits/:id: `person_id` fills a visit without a person (never replaces one);
 * `state_event` follows the spec's table. Timestamps: register sets registered_at, complete
 * completed_at, noshow noshow_at, late_cancel cancelled_at; reset clears the last three and
 * keeps registered_at. Moving to noshowed or late_canceled frees the place.
 */
export const updateDeskVisit = Effect.fn("Visits.deskUpdate")(function* (id: number, input: VisitUpdateInput) {
  const business = yield* CurrentBusiness
  const repo = yield* VisitsRepo
  yield* inTransaction(
    Effect.gen(function* () {
      const row = yield* lockVisit(id)
      // Held until the commit, so the person's deletion counts this visit or this finds them gone.
      if (input.person_id !== undefined && row.person_id === null) yield* requireLivePerson(input.person_id, { hold: true })
      const now = (yield* currentTime)
      const problems: Array<Message> = []
      const change: { -readonly [K in keyof VisitChange]: VisitChange[K] } = {}

      let personId = row.person_id
      if (input.person_id !== undefined && input.person_id !== row.person_id) {
        if (row.person_id !== null) problems.push(VisitRefusals.visitPersonUnchangeable.message())
        else if ((yield* repo.visitorsOf({ businessId: business.id, occurrenceIds: [row.event_occurrence_id], personIds: [input.person_id] })).length > 0) {
          problems.push(VisitRefusals.eligibilityAlreadyEnrolled.message())
        } else {
          personId = input.person_id
          change.person_id = personId
        }
      }

      let state = row.state
      if (input.state_event !== undefined) {
        const transition = VISIT_TRANSITIONS[input.state_event]
        if (!transition.from.includes(row.state)) {
          problems.push(VisitRefusals.visitTransitionInvalid.message({ event: input.state_event, state: row.state }))
        } else if (input.state_event === "register" && personId === null) {
          problems.push(VisitRefusals.visitRegisterNeedsPerson.message())
        } else {
          state = transition.to
          change.state = state
          if (input.state_event === "register") change.registered_at = now
          if (input.state_event === "complete") change.completed_at = now
          if (input.state_event === "noshow") change.noshow_at = now
          if (input.state_event === "late_cancel") change.cancelled_at = now
          if (input.state_event === "reset") {
            change.completed_at = null
            change.noshow_at = null
            change.cancelled_at = null
            change.registered_at = row.registered_at ?? now
          }
        }
      }
      if (problems.length > 0) return yield* fail(Unprocessable, ...problems)
      if (Object.keys(change).length === 0) return
      yield* repo.update({ businessId: business.id, id, fields: change, now })
      if (isHolding(row.state) && !isHolding(state)) yield* placesFreed(business.id, [row.event_occurrence_id])
      // Auto-pay: a visit becoming registered or completed without a punch is paid by a suitable
      // plan, if any. No-show and late cancel keep a punch: the visit is still spent.
      const autoPaid = change.state === "registered" || change.state === "completed"
      if (autoPaid) yield* repo.payments.payVisits(business.id, [id])
      yield* emitVisitEvents(business.id, "visit.updated", [id])
    })
  )
  // Read after the commit, with its occurrence and person in one statement (auto-pay may have punched it).
  return yield* visitsOf([id])
})

/**
 * DELETE /desk/visits/:id: frees the place; the client hears of it when the visit was made
 * with notify_client and its occurrence has not started (deleting history tells nobody).
 */
export const deleteDeskVisit = Effect.fn("Visits.deskDelete")(function* (id: number) {
  const locale = yield* businessLocale
  yield* inTransaction(
    Effect.gen(function* () {
      const row = yield* lockVisit(id)
      if (row.lease_id !== null && row.state === "reserved") {
        return yield* VisitRefusals.visitHeldByBooking.fail({ id: row.booking_id ?? row.lease_id })
      }
      const occurrence = yield* findOccurrence(row.event_occurrence_id, { _tag: "Staff" })
      const now = yield* Clock.currentTimeMillis
      yield* removeVisit(row)
      if (row.notify_client && isHolding(row.state) && now < occurrence.start_at.getTime()) {
        yield* notifyClient("visit_cancellation", row, locale, occurrence)
      }
    })
  )
})
