import { Clock, Effect } from "effect"
import { CurrentStaff } from "../../access/access.ts"
import { CurrentBusiness } from "../../access/tenant.ts"
import { Enrollments } from "../../schedule/event-occurrences/enrollments.ts"
import type { OccurrenceRow } from "../../schedule/event-occurrences/model.ts"
import { findOccurrence } from "../../schedule/event-occurrences/service.ts"
import { type ClientReach, clientReach, requireInReach, requireLivePerson } from "../../identity/people/client-reach.ts"
import { PeopleRepo } from "../../identity/people/repo.ts"
import { type CallerView, staffView } from "../../access/caller.ts"
import { frontCaller } from "../../catalog/services/callers.ts"
import { privateResponse } from "../../shared/cache-headers.ts"
import { Unprocessable, fail } from "../../shared/errors.ts"
import { t } from "../../shared/i18n.ts"
import type { Refusal } from "../../shared/refusals.ts"
import { pageLinks, pageOf } from "../../shared/pagination.ts"
import { pairedRange } from "../../shared/ranges.ts"
import { RequestContext } from "../../shared/request-context.ts"
import { inTransaction } from "../../platform/transactions.ts"
import { toEmbeddedOccurrence, toEmbeddedPerson } from "../visits/model.ts"
import { VisitsRepo } from "../visits/repo.ts"
import { type EntryEmbeds, type EntryListQuery, WAITLIST_RESTRICTION_CODES, type WaitlistEligibility, type WaitlistEntryRow, type WaitlistRestrictionCode, type WaitlistStateEvent, toDeskWire, toFrontWire } from "./model.ts"
import { WaitlistsRepo } from "./repo.ts"
import { currentTime } from "../../shared/clock.ts"
import { WaitlistRefusals } from "./refusals.ts"

/**
 * Waitlist entries (spec: Waitlists). A person joins the waitlist of a full occurrence; when a
 * place frees, the offer job (offer.ts) enrolls the oldest waiting person. Deleting an entry
 * marks it `removed`: staff still see it (and may put it back with `wait`), clients do not.
 */

/** The refusal each restriction code answers with; its message is also the code's description. */
const RESTRICTION_REFUSALS = {
  event_cancelled: WaitlistRefusals.waitlistEventCancelled,
  event_deleted: WaitlistRefusals.waitlistEventDeleted,
  event_in_past: WaitlistRefusals.waitlistEventInPast,
  person_already_waitlisted: WaitlistRefusals.waitlistPersonAlreadyWaitlisted,
  person_already_enrolled: WaitlistRefusals.waitlistPersonAlreadyEnrolled,
  waitlist_full: WaitlistRefusals.waitlistFull,
  waitlist_disabled: WaitlistRefusals.waitlistDisabled,
  waitlist_unavailable: WaitlistRefusals.waitlistUnavailable
} satisfies Record<WaitlistRestrictionCode, Refusal>

// ---------------------------------------------------------------------------------------------
// Eligibility

/**
 * The restrictions of each person on the occurrence's waitlist, every applicable code listed.
 * `event_in_past`: the occurrence has started (offers stop then, and entries expire).
 * `waitlist_unavailable`: nothing to wait for: an appointment, no capacity limit, or places left.
 */
const restrictionsOf = Effect.fn("Waitlists.restrictions")(function* (occurrence: OccurrenceRow, personIds: ReadonlyArray<number>) {
  const business = yield* CurrentBusiness
  const repo = yield* WaitlistsRepo
  const enrollments = yield* Enrollments
  const now = yield* Clock.currentTimeMillis
  const settings = yield* repo.settings({ businessId: business.id, occurrenceId: occurrence.id })
  const shared: Array<WaitlistRestrictionCode> = []
  if (occurrence.state === "canceled") shared.push("event_cancelled")
  if (occurrence.state === "deleted") shared.push("event_deleted")
  if (occurrence.start_at.getTime() <= now) shared.push("event_in_past")
  if (settings && !settings.waitlist_enabled) shared.push("waitlist_disabled")
  const taken = (yield* enrollments.placesTaken(business.id, [occurrence.id])).get(occurrence.id) ?? 0
  if (settings?.service_type === "Appointment" || occurrence.capacity === null || taken < occurrence.capacity) {
    shared.push("waitlist_unavailable")
  }
  if (settings?.waitlist_capacity != null && (yield* repo.liveCount({ businessId: business.id, occurrenceId: occurrence.id })) >= settings.waitlist_capacity) {
    shared.push("waitlist_full")
  }
  const waitlisted = yield* repo.waitlisted({ businessId: business.id, occurrenceId: occurrence.id, personIds })
  const enrolled = yield* enrollments.enrolledInOccurrence(business.id, occurrence.id, personIds)
  return personIds.map((personId) => {
    const codes = [...shared]
    if (waitlisted.has(personId)) codes.push("person_already_waitlisted")
    if (enrolled.has(personId)) codes.push("person_already_enrolled")
    return { personId, codes: sortCodes(codes) }
  })
})

const sortCodes = (codes: ReadonlyArray<WaitlistRestrictionCode>) => WAITLIST_RESTRICTION_CODES.filter((code) => codes.includes(code))

export const frontWaitlistEligibilities = Effect.fn("Waitlists.eligibilities")(function* (occurrenceId: number) {
  yield* privateResponse
  const business = yield* CurrentBusiness
  const reach = yield* clientReach
  const occurrence = yield* findOccurrence(occurrenceId, yield* frontCaller)
  const live = yield* (yield* PeopleRepo).existingIds({ businessId: business.id, ids: reach.personIds })
  const ordered = reach.personIds.filter((id) => live.has(id))
  const { locale } = yield* RequestContext
  const verdicts = yield* restrictionsOf(occurrence, ordered)
  return {
    waitlist_eligibilities: verdicts.map((verdict): WaitlistEligibility => ({
      person_id: verdict.personId,
      can_waitlist: verdict.codes.length === 0,
      restrictions: verdict.codes.map((code) => ({ code, description: t(locale, RESTRICTION_REFUSALS[code].key) }))
    }))
  }
})

// ---------------------------------------------------------------------------------------------
// Reads

/**
 * What entries embed (their occurrence and person), for a whole page in two queries
 * (src/enrollment/visits/repo.ts), whatever its size.
 */
const embedsOf = Effect.fn("Waitlists.embeds")(function* (rows: ReadonlyArray<WaitlistEntryRow>) {
  const business = yield* CurrentBusiness
  const visits = yield* VisitsRepo
  const occurrences = yield* visits.embeddedOccurrences({ businessId: business.id, ids: rows.map((row) => row.event_occurrence_id) })
  const people = yield* visits.embeddedPeople({ businessId: business.id, ids: rows.map((row) => row.person_id) })
  return (row: WaitlistEntryRow): EntryEmbeds => ({
    event_occurrence: toEmbeddedOccurrence(occurrences.get(row.event_occurrence_id)!),
    person: toEmbeddedPerson(people.get(row.person_id)!)
  })
})
const frontEntries = (rows: ReadonlyArray<WaitlistEntryRow>) => Effect.map(embedsOf(rows), (embeds) => rows.map((row) => toFrontWire(row, embeds(row))))
const deskEntries = (rows: ReadonlyArray<WaitlistEntryRow>) => Effect.map(embedsOf(rows), (embeds) => rows.map((row) => toDeskWire(row, embeds(row))))

const findEntry = Effect.fn("Waitlists.find")(function* (id: number, reach: ClientReach | null) {
  const business = yield* CurrentBusiness
  const row = yield* (yield* WaitlistsRepo).find({ businessId: business.id, id })
  const visible = row !== undefined && (reach === null || (reach.personIds.includes(row.person_id) && row.state !== "removed"))
  if (!visible) return yield* WaitlistRefusals.waitlistEntryNotFound.fail({ id })
  return row
})

export const getFrontEntry = Effect.fn("Waitlists.frontGet")(function* (id: number) {
  yield* privateResponse
  const row = yield* findEntry(id, yield* clientReach)
  return { waitlist_entries: yield* frontEntries([row]) }
})

export const getDeskEntry = Effect.fn("Waitlists.deskGet")(function* (id: number) {
  const row = yield* findEntry(id, null)
  return { waitlist_entries: yield* deskEntries([row]) }
})

const listEntries = Effect.fn("Waitlists.list")(function* (
  query: EntryListQuery,
  filters: { readonly personIds?: ReadonlyArray<number>; readonly occurrenceId?: number },
  clientMode: boolean
) {
  const business = yield* CurrentBusiness
  const range = yield* pairedRange(query, WaitlistRefusals.waitlistRangeIncomplete.key)
  const page = pageOf(query)
  const occurrenceId = filters.occurrenceId ?? query.event_occurrence_id
  // An occurrence filter that contradicts the path's occurrence matches nothing.
  const contradicts = filters.occurrenceId !== undefined && query.event_occurrence_id !== undefined && query.event_occurrence_id !== filters.occurrenceId
  const { rows, total } = contradicts
    ? { rows: [] as ReadonlyArray<WaitlistEntryRow>, total: 0 }
    : yield* (yield* WaitlistsRepo).list({
      businessId: business.id,
      personIds: filters.personIds,
      occurrenceId,
      from: range.from,
      to: range.to,
      includeRemoved: !clientMode,
      page
    })
  return { rows, links: yield* pageLinks(page, total) }
})

export const listFrontPersonEntries = Effect.fn("Waitlists.frontList")(function* (personId: number, query: EntryListQuery) {
  yield* privateResponse
  const reach = yield* clientReach
  yield* requireInReach(reach, personId)
  const { rows, links } = yield* listEntries(query, { personIds: [personId] }, true)
  return { waitlist_entries: yield* frontEntries(rows), ...links }
})

export const listDeskPersonEntries = Effect.fn("Waitlists.deskPersonList")(function* (personId: number, query: EntryListQuery) {
  yield* requireLivePerson(personId)
  const { rows, links } = yield* listEntries(query, { personIds: [personId] }, false)
  return { waitlist_entries: yield* deskEntries(rows), ...links }
})

export const listDeskOccurrenceEntries = Effect.fn("Waitlists.deskOccurrenceList")(function* (occurrenceId: number, query: EntryListQuery) {
  yield* findOccurrence(occurrenceId, staffView)
  const { rows, links } = yield* listEntries(query, { occurrenceId }, false)
  return { waitlist_entries: yield* deskEntries(rows), ...links }
})

// ---------------------------------------------------------------------------------------------
// Writes

/**
 * A new waiting entry, in one transaction: the occurrence row is locked first (as admitVisits
 * does), so two joins cannot both take the last place of a bounded waitlist.
 */
const createEntry = Effect.fn("Waitlists.create")(function* (
  personId: number,
  occurrenceId: number,
  scope: CallerView,
  createdByStaffMemberId: number | null
) {
  const business = yield* CurrentBusiness
  const repo = yield* WaitlistsRepo
  const now = (yield* currentTime)
  const id = yield* inTransaction(
    Effect.gen(function* () {
      const found = yield* findOccurrence(occurrenceId, scope)
      // Judged on the locked row: its state, capacity and start as they are now, not as first read.
      const [locked] = yield* (yield* VisitsRepo).lockOccurrences({ businessId: business.id, ids: [found.id] })
      const occurrence = locked === undefined ? found : { ...found, ...locked }
      const [verdict] = yield* restrictionsOf(occurrence, [personId])
      if (verdict!.codes.length > 0) {
        return yield* fail(Unprocessable, ...verdict!.codes.map((code) => RESTRICTION_REFUSALS[code].message()))
      }
      const id = yield* repo.insert({ businessId: business.id, occurrenceId: occurrence.id, personId, createdByStaffMemberId, now })
      if (id === undefined) return yield* WaitlistRefusals.waitlistPersonAlreadyWaitlisted.fail()
      return id
    })
  )
  return (yield* repo.find({ businessId: business.id, id }))!
})

export const createFrontEntry = Effect.fn("Waitlists.frontCreate")(function* (input: {
  readonly person_id?: number | undefined
  readonly event_occurrence_id: number
}) {
  yield* privateResponse
  const reach = yield* clientReach
  const personId = input.person_id ?? reach.selfId
  yield* requireInReach(reach, personId)
  const row = yield* createEntry(personId, input.event_occurrence_id, yield* frontCaller, null)
  return { waitlist_entries: yield* frontEntries([row]) }
})

export const createDeskEntry = Effect.fn("Waitlists.deskCreate")(function* (input: {
  readonly person_id: number
  readonly event_occurrence_id: number
}) {
  const staff = yield* CurrentStaff
  yield* requireLivePerson(input.person_id)
  const row = yield* createEntry(input.person_id, input.event_occurrence_id, staffView, staff.staffMemberId)
  return { waitlist_entries: yield* deskEntries([row]) }
})

/**
 * Staff state events (spec table): `wait` from any state, back into the queue (refused while
 * the person has another live entry on the occurrence); `enroll` from any state but `removed`,
 * touching only the entry (the roster is the visits'). Repeating the current state is a no-op.
 */
export const updateDeskEntry = Effect.fn("Waitlists.deskUpdate")(function* (id: number, stateEvent: WaitlistStateEvent) {
  const business = yield* CurrentBusiness
  const repo = yield* WaitlistsRepo
  const now = (yield* currentTime)
  yield* inTransaction(
    Effect.gen(function* () {
      const row = yield* repo.lock({ businessId: business.id, id })
      if (!row) return yield* WaitlistRefusals.waitlistEntryNotFound.fail({ id })
      if (stateEvent === "wait") {
        if (row.state === "waiting") return
        if (row.state !== "pending") {
          const live = yield* repo.waitlisted({ businessId: business.id, occurrenceId: row.event_occurrence_id, personIds: [row.person_id] })
          if (live.has(row.person_id)) return yield* WaitlistRefusals.waitlistPersonAlreadyWaitlisted.fail()
        }
        yield* repo.setState({ businessId: business.id, id, state: "waiting", now })
      } else {
        if (row.state === "removed") return yield* WaitlistRefusals.waitlistEnrollRemoved.fail({ state: row.state })
        if (row.state === "enrolled") return
        yield* repo.setState({ businessId: business.id, id, state: "enrolled", now })
      }
    })
  )
  return { waitlist_entries: yield* deskEntries([(yield* repo.find({ businessId: business.id, id }))!]) }
})

/**
 * Deleting marks the entry `removed` (history for staff and reports); a removed entry stays removed.
 * Answers whether this request removed it: the update decides, so of two at once one did.
 */
const removeEntry = Effect.fn("Waitlists.remove")(function* (row: WaitlistEntryRow) {
  const business = yield* CurrentBusiness
  if (row.state === "removed") return false
  const now = (yield* currentTime)
  return (yield* (yield* WaitlistsRepo).remove({ businessId: business.id, id: row.id, now })) !== undefined
})

/** A client's entry is gone for them once removed: a second delete, even at the same time, is a 404. */
export const deleteFrontEntry = Effect.fn("Waitlists.frontDelete")(function* (id: number) {
  yield* privateResponse
  if (!(yield* removeEntry(yield* findEntry(id, yield* clientReach)))) return yield* WaitlistRefusals.waitlistEntryNotFound.fail({ id })
})

/** Staff still see a removed entry: deleting it again changes nothing and answers 204. */
export const deleteDeskEntry = Effect.fn("Waitlists.deskDelete")(function* (id: number) {
  yield* removeEntry(yield* findEntry(id, null))
})
