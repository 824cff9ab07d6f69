import { Clock, Effect, Option } from "effect"
import { createHash } from "node:crypto"
import { CurrentStaff } from "../auth/access.ts"
import { CurrentBusiness } from "../auth/tenant.ts"
import { clientReach } from "../people/client-reach.ts"
import { enqueueJob } from "../platform/jobs.ts"
import { inTransaction } from "../platform/transactions.ts"
import { clientAudience, privateResponse } from "../services/service.ts"
import { type Message, NotFound, Unprocessable, fail } from "../shared/errors.ts"
import { formatTimestamp } from "../shared/schemas.ts"
import { VisitsRepo } from "../visits/repo.ts"
import {
  type Caller,
  type LeasePlan,
  type ResolveContext,
  completeLeases,
  personIdOf,
  releaseLeases,
  resolveLease,
  resolvePerson,
  writeLeases
} from "./leases.ts"
import {
  type BookingInput,
  type BookingRow,
  type BookingWire,
  DEFAULT_HOLD_MS,
  type LeaseInput,
  type LeaseRow,
  type LeaseWire,
  MAX_HOLD_MS
} from "./model.ts"
import { BookingsRepo } from "./repo.ts"

/**
 * Bookings and leases, both modes (spec: "Bookings and leases"). Every write runs in one
 * transaction that checks every rule before writing; the booking row's lock (`for update`)
 * orders completion, lease changes, removal and expiry of one booking.
 */

export const EXPIRE_BOOKING_TASK = "expire_booking"
export const expireJobKey = (businessId: number, bookingId: number) => `expire_booking:${businessId}:${bookingId}`

// ---------------------------------------------------------------------------------------------
// Callers

/** Client mode needs a person: a `client_id` call is a 401, an account without a person here a 404. */
export const frontCaller = Effect.gen(function* () {
  yield* privateResponse
  const reach = yield* clientReach
  const audience = yield* clientAudience
  return { _tag: "Client", personId: reach.selfId, household: new Set(reach.personIds), audience } satisfies Caller as Caller
})

export const deskCaller = Effect.gen(function* () {
  const staff = yield* CurrentStaff
  return { _tag: "Staff", staffMemberId: staff.staffMemberId } satisfies Caller as Caller
})

const idempotencyScope = (caller: Caller) => (caller._tag === "Client" ? `person:${caller.personId}` : `staff:${caller.staffMemberId}`)

/** SHA-256 of the decoded body with keys sorted: a form and a JSON repeat of one request match. */
export const requestDigest = (input: unknown) => {
  const canonical = (value: unknown): unknown => {
    if (value instanceof Date) return formatTimestamp(value)
    if (Array.isArray(value)) return value.map(canonical)
    if (value !== null && typeof value === "object") {
      return Object.fromEntries(
        Object.keys(value)
          .sort()
          .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
          .map((key) => [key, canonical((value as Record<string, unknown>)[key])])
      )
    }
    return value
  }
  return createHash("sha256").update(JSON.stringify(canonical(input))).digest("hex")
}

// ---------------------------------------------------------------------------------------------
// Wire

const leaseWire = (row: LeaseRow): LeaseWire => ({
  id: row.id,
  booking_id: row.booking_id,
  state: row.state,
  kind: row.kind,
  event_occurrence_id: row.event_occurrence_id,
  event_occurrence_ids: row.occurrence_ids,
  event_id: row.event_id,
  service_id: row.service_id,
  staff_member_id: row.staff_member_id,
  location_id: row.location_id,
  start_at: row.start_at === null ? null : formatTimestamp(row.start_at),
  recurring: row.recurring,
  person: row.person_id === null ? null : { id: row.person_id, name: row.person_name ?? "" },
  created_at: formatTimestamp(row.created_at),
  updated_at: formatTimestamp(row.updated_at)
})

const bookingsWire = Effect.fn("Bookings.wire")(function* (businessId: number, rows: ReadonlyArray<BookingRow>) {
  const leases = yield* (yield* BookingsRepo).leasesOf(businessId, rows.map((row) => row.id))
  return rows.map((row): BookingWire => ({
    id: row.id,
    state: row.state,
    expires_at: formatTimestamp(row.expires_at),
    completed_at: row.completed_at === null ? null : formatTimestamp(row.completed_at),
    idempotency_token: row.idempotency_token,
    person_id: row.person_id,
    created_at: formatTimestamp(row.created_at),
    updated_at: formatTimestamp(row.updated_at),
    leases: leases.filter((lease) => lease.booking_id === row.id).map(leaseWire)
  }))
})

const bookingResponse = Effect.fn("Bookings.response")(function* (id: number) {
  const business = yield* CurrentBusiness
  const row = yield* (yield* BookingsRepo).find(business.id, id)
  if (!row) return yield* fail(NotFound, { key: "booking_not_found", params: { id } })
  return { bookings: yield* bookingsWire(business.id, [row]) }
})

// ---------------------------------------------------------------------------------------------
// Lookups

/** A booking the caller may see: client mode only their own (another person's is not found). */
const findBooking = Effect.fn("Bookings.find")(function* (caller: Caller, id: number, lock: boolean) {
  const business = yield* CurrentBusiness
  const row = yield* (yield* BookingsRepo).find(business.id, id, { lock })
  if (!row || (caller._tag === "Client" && row.person_id !== caller.personId)) {
    return yield* fail(NotFound, { key: "booking_not_found", params: { id } })
  }
  return row
})

const findLease = Effect.fn("Bookings.findLease")(function* (booking: BookingRow, leaseId: number) {
  const business = yield* CurrentBusiness
  const [lease] = yield* (yield* BookingsRepo).leasesById(business.id, [leaseId])
  if (!lease || lease.booking_id !== booking.id) return yield* fail(NotFound, { key: "lease_not_found", params: { id: leaseId } })
  return lease
})

/** A booking past its expiry is expired even before its job has run. */
const isExpired = (booking: BookingRow, nowMs: number) =>
  booking.state === "expired" || (booking.state === "incomplete" && booking.expires_at.getTime() <= nowMs)

/** Leases change only on a live, incomplete booking. */
const requireOpen = Effect.fn("Bookings.requireOpen")(function* (booking: BookingRow) {
  const nowMs = yield* Clock.currentTimeMillis
  if (booking.state === "completed") return yield* fail(Unprocessable, { key: "booking_completed", params: { id: booking.id } })
  if (isExpired(booking, nowMs)) return yield* fail(Unprocessable, { key: "booking_expired", params: { id: booking.id } })
})

const resolveContext = Effect.fn("Bookings.resolveContext")(function* (caller: Caller): Effect.fn.Return<ResolveContext, never, CurrentBusiness> {
  const business = yield* CurrentBusiness
  return { businessId: business.id, caller, now: new Date(yield* Clock.currentTimeMillis), claimedEmails: new Set(), newPeople: new Map() }
})

/** Resolves lease shapes (every problem collected); client mode: a person outside the household is a 404. */
const resolveLeases = Effect.fn("Bookings.resolveLeases")(function* (
  context: ResolveContext,
  inputs: ReadonlyArray<LeaseInput>,
  prefix: (i: number) => string,
  messages: Array<Message>
) {
  const plans: Array<LeasePlan> = []
  for (const [i, input] of inputs.entries()) {
    const { plan, notFound } = yield* resolveLease(context, input, prefix(i), messages)
    if (notFound !== undefined) return yield* fail(NotFound, { key: "person_not_found", params: { id: notFound } })
    if (plan) plans.push(plan)
  }
  return plans
})

// ---------------------------------------------------------------------------------------------
// Bookings

/**
 * POST bookings. A repeat with the same idempotency token and body answers the booking it
 * created (as it is now); the same token with another body is a 422. Concurrent repeats are
 * decided by the unique index: the later insert waits for the earlier commit, finds the
 * conflict and answers the stored booking.
 */
export const createBooking = Effect.fn("Bookings.create")(function* (caller: Caller, input: BookingInput) {
  const business = yield* CurrentBusiness
  const repo = yield* BookingsRepo
  const token = input.idempotency_token ?? null
  const scope = idempotencyScope(caller)
  const digest = requestDigest(input)
  const replay = (existing: BookingRow) =>
    existing.request_digest === digest
      ? Effect.succeed(existing.id)
      : fail(Unprocessable, { key: "booking_idempotency_mismatch", params: { field: "idempotency_token" } })

  const id = yield* inTransaction(
    Effect.gen(function* () {
      if (token !== null) {
        const existing = yield* repo.byToken(business.id, scope, token)
        if (existing) return yield* replay(existing)
      }
      const context = yield* resolveContext(caller)
      const nowMs = context.now.getTime()
      const messages: Array<Message> = []
      const expiresAt = input.expires_at ?? new Date(nowMs + DEFAULT_HOLD_MS)
      if (expiresAt.getTime() <= nowMs) messages.push({ key: "booking_expires_at_past", params: { field: "expires_at" } })
      else if (expiresAt.getTime() > nowMs + MAX_HOLD_MS) {
        messages.push({ key: "booking_expires_at_too_far", params: { field: "expires_at", max: MAX_HOLD_MS / 60_000 } })
      }
      const inputs = input.leases ?? []
      const plans = yield* resolveLeases(context, inputs, (i) => `leases[${i}]`, messages)
      const complete = input.complete_booking === true
      if (complete) {
        for (const [i, lease] of inputs.entries()) {
          if (lease.person === undefined || lease.person === null) messages.push({ key: "field_required", params: { field: `leases[${i}].person` } })
        }
      }
      if (messages.length > 0) return yield* fail(Unprocessable, ...messages)

      const inserted = yield* repo.insert(business.id, {
        person_id: caller._tag === "Client" ? caller.personId : null,
        created_by_staff_member_id: caller._tag === "Staff" ? caller.staffMemberId : null,
        idempotency_token: token,
        idempotency_scope: token === null ? null : scope,
        request_digest: token === null ? null : digest,
        expires_at: expiresAt,
        now: context.now
      })
      if (Option.isNone(inserted)) {
        const existing = yield* repo.byToken(business.id, scope, token!)
        if (!existing) return yield* Effect.die(new Error("idempotency conflict without a stored booking"))
        return yield* replay(existing)
      }
      const bookingId = inserted.value
      yield* writeLeases(business.id, bookingId, plans, caller)
      if (complete) {
        yield* completeLeases(business.id, bookingId, yield* repo.leasesOf(business.id, [bookingId]))
      } else {
        yield* enqueueJob(EXPIRE_BOOKING_TASK, { business_id: business.id, booking_id: bookingId }, {
          runAt: expiresAt,
          jobKey: expireJobKey(business.id, bookingId)
        })
      }
      return bookingId
    })
  )
  return yield* bookingResponse(id)
})

export const getBooking = Effect.fn("Bookings.get")(function* (caller: Caller, id: number) {
  const business = yield* CurrentBusiness
  const row = yield* findBooking(caller, id, false)
  return { bookings: yield* bookingsWire(business.id, [row]) }
})

/**
 * PUT booking: completes it. Every lease needs a person (a 422 names each one without);
 * completing a completed booking changes nothing; an expired one is a 422.
 */
export const completeBooking = Effect.fn("Bookings.complete")(function* (caller: Caller, id: number) {
  const business = yield* CurrentBusiness
  const repo = yield* BookingsRepo
  yield* inTransaction(
    Effect.gen(function* () {
      const booking = yield* findBooking(caller, id, true)
      if (booking.state === "completed") return
      if (isExpired(booking, yield* Clock.currentTimeMillis)) return yield* fail(Unprocessable, { key: "booking_expired", params: { id } })
      const leases = yield* repo.leasesOf(business.id, [id])
      const missing = leases.filter((lease) => lease.person_id === null)
      if (missing.length > 0) return yield* fail(Unprocessable, ...missing.map((lease): Message => ({ key: "lease_person_missing", params: { id: lease.id } })))
      yield* completeLeases(business.id, id, leases)
    })
  )
  return yield* bookingResponse(id)
})

/**
 * DELETE booking (spec): a completed booking goes alone, its visits stay (their booking_id and
 * lease_id become null); an uncompleted one takes its leases and the visits and appointments
 * they created with it, freeing their places.
 */
export const deleteBooking = Effect.fn("Bookings.delete")(function* (caller: Caller, id: number) {
  const business = yield* CurrentBusiness
  const repo = yield* BookingsRepo
  yield* inTransaction(
    Effect.gen(function* () {
      const booking = yield* findBooking(caller, id, true)
      if (booking.state !== "completed") yield* releaseLeases(business.id, yield* repo.leasesOf(business.id, [id]))
      yield* repo.delete(business.id, id)
    })
  )
})

// ---------------------------------------------------------------------------------------------
// Leases

export const getLease = Effect.fn("Bookings.getLease")(function* (caller: Caller, bookingId: number, leaseId: number) {
  const booking = yield* findBooking(caller, bookingId, false)
  return { leases: [leaseWire(yield* findLease(booking, leaseId))] }
})

const leaseResponse = Effect.fn("Bookings.leaseResponse")(function* (leaseId: number) {
  const business = yield* CurrentBusiness
  const [lease] = yield* (yield* BookingsRepo).leasesById(business.id, [leaseId])
  return { leases: lease ? [leaseWire(lease)] : [] }
})

/** POST leases: one more lease on a live, incomplete booking. */
export const addLease = Effect.fn("Bookings.addLease")(function* (caller: Caller, bookingId: number, input: LeaseInput) {
  const business = yield* CurrentBusiness
  const [leaseId] = yield* inTransaction(
    Effect.gen(function* () {
      const booking = yield* findBooking(caller, bookingId, true)
      yield* requireOpen(booking)
      const messages: Array<Message> = []
      const plans = yield* resolveLeases(yield* resolveContext(caller), [input], () => "lease", messages)
      if (messages.length > 0) return yield* fail(Unprocessable, ...messages)
      return yield* writeLeases(business.id, bookingId, plans, caller)
    })
  )
  return yield* leaseResponse(leaseId!)
})

/** The shape fields a lease body may repeat but not change (spec: delete and re-create instead). */
const unchangedShape = (lease: LeaseRow, input: LeaseInput): Array<Message> => {
  const same = <A>(name: string, given: A | null | undefined, current: A | null, equal = (a: A, b: A) => a === b) =>
    given === undefined || given === null || (current !== null && equal(given, current))
      ? []
      : [{ key: "lease_service_unchangeable" as const, params: { field: `lease.${name}` } }]
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
      : [{ key: "lease_service_unchangeable" as const, params: { field: "lease.recurring" } }])
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
      if (notFound !== undefined) return yield* fail(NotFound, { key: "person_not_found", params: { id: notFound } })
      if (messages.length > 0) return yield* fail(Unprocessable, ...messages)
      const held = yield* repo.visitsOf(business.id, [lease.id])
      const occurrenceIds = [...new Set(held.map((visit) => visit.event_occurrence_id))]
      // The occurrence locks admitVisits takes: a concurrent admission of the same person waits.
      yield* visits.lockOccurrences(business.id, occurrenceIds)
      const personId = plan._tag === "Existing" ? plan.id : null
      if (personId !== null && personId !== lease.person_id) {
        const enrolled = yield* visits.visitorsOf(business.id, occurrenceIds, [personId])
        if (enrolled.length > 0) return yield* fail(Unprocessable, { key: "eligibility_already_enrolled" })
      }
      const newId = plan._tag === "New" ? yield* personIdOf(business.id, plan) : personId
      const now = new Date(yield* Clock.currentTimeMillis)
      yield* repo.setLeasePerson(business.id, lease.id, newId, now)
      yield* repo.setVisitsPerson(business.id, lease.id, newId, now)
      if (lease.kind === "appointment" && lease.event_occurrence_id !== null) {
        yield* repo.setAppointmentPerson(business.id, lease.event_occurrence_id, newId, now)
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
      if (booking.state === "completed") return yield* fail(Unprocessable, { key: "booking_completed", params: { id: bookingId } })
      yield* releaseLeases(business.id, [lease])
      yield* repo.deleteLease(business.id, lease.id)
    })
  )
})
