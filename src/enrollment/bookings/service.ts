import { Clock, Effect, Option } from "effect"
import { createHash } from "node:crypto"
import { CurrentBusiness } from "../../access/tenant.ts"
import { enqueueJob } from "../../platform/jobs.ts"
import { BookingInvoices } from "./invoices.ts"
import { ExpireBookingJob } from "./jobs.ts"
import { inTransaction } from "../../platform/transactions.ts"
import { type Message, Unprocessable, fail } from "../../shared/errors.ts"
import { formatTimestamp } from "../../shared/schemas.ts"
import { completeLeases, releaseLeases, writeLeases } from "./leases.ts"
import { type Caller, personOf } from "../../access/caller.ts"
import { bookingResponse, bookingWire, bookingsWire, findBooking, isExpired, resolveContext, resolveLeases } from "./lookup.ts"
import { type BookingInput, type BookingRow, type LeaseRow, DEFAULT_HOLD_MS, MAX_HOLD_MS } from "./model.ts"
import { type BookingInsert, insertedBooking } from "./booking-insert.ts"
import { BookingsRepo } from "./repo.ts"
import { BookingRefusals } from "./refusals.ts"

/**
 * Bookings, both modes (spec: "Bookings and leases"): create, read, complete, delete; the
 * lease endpoints are in lease-commands.ts. Every write runs in one transaction that checks
 * every rule before writing; the booking row's lock (`for update`) orders completion, lease
 * changes, removal and expiry of one booking.
 */

export const expireJobKey = (businessId: number, bookingId: number) => `expire_booking:${businessId}:${bookingId}`

const idempotencyScope = (caller: Caller) => (caller._tag === "Staff" ? `staff:${caller.staffMemberId}` : `person:${personOf(caller)}`)

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
  // Only a token's repeats are compared, so a booking without one skips the hash.
  const digest = token === null ? null : requestDigest(input)
  // A repeat answers the stored booking as it is now; a new booking is answered as written.
  const replay = (existing: BookingRow) =>
    existing.request_digest === digest
      ? Effect.succeed({ replayed: true, booking: existing, leases: [] as ReadonlyArray<LeaseRow> })
      : BookingRefusals.bookingIdempotencyMismatch.fail({ field: "idempotency_token" })

  const written = yield* inTransaction(
    Effect.gen(function* () {
      if (token !== null) {
        const existing = yield* repo.byToken({ businessId: business.id, scope, token })
        if (existing) return yield* replay(existing)
      }
      const context = yield* resolveContext(caller)
      const nowMs = context.now.getTime()
      const messages: Array<Message> = []
      const expiresAt = input.expires_at ?? new Date(nowMs + DEFAULT_HOLD_MS)
      if (expiresAt.getTime() <= nowMs) messages.push(BookingRefusals.bookingExpiresAtPast.message({ field: "expires_at" }))
      else if (expiresAt.getTime() > nowMs + MAX_HOLD_MS) {
        messages.push(BookingRefusals.bookingExpiresAtTooFar.message({ field: "expires_at", max: MAX_HOLD_MS / 60_000 }))
      }
      const complete = input.complete_booking === true
      // Completing at once writes the booking, its leases and visits in their final state
      // (completed, registered): what completeLeases would do, without updating fresh rows.
      const booking: BookingInsert = {
        person_id: personOf(caller),
        created_by_staff_member_id: caller._tag === "Staff" ? caller.staffMemberId : null,
        idempotency_token: token,
        idempotency_scope: token === null ? null : scope,
        request_digest: digest,
        expires_at: expiresAt,
        state: complete ? "completed" : "incomplete",
        now: context.now
      }
      // A request with an idempotency token claims it before it reads anything else: a concurrent
      // repeat waits on the token's unique index until this one commits (then answers the stored
      // booking) or rolls back (then runs itself), so it never judges the request against rows this
      // one is writing (a new person's e-mail "already taken"). A body already refused for its
      // expires_at claims nothing. Without a token, the leases' own statement inserts the booking.
      let claimed: number | undefined
      if (token !== null && messages.length === 0) {
        const inserted = yield* repo.insert({ businessId: business.id, booking })
        if (Option.isNone(inserted)) {
          const existing = yield* repo.byToken({ businessId: business.id, scope, token })
          if (!existing) return yield* Effect.die(new Error("idempotency conflict without a stored booking"))
          return yield* replay(existing)
        }
        claimed = inserted.value.id
      }
      const inputs = input.leases ?? []
      const plans = yield* resolveLeases(context, inputs, (i) => `leases[${i}]`, messages)
      if (complete) {
        for (const [i, lease] of inputs.entries()) {
          if (lease.person === undefined || lease.person === null) messages.push(BookingRefusals.fieldRequired.message({ field: `leases[${i}].person` }))
        }
      }
      if (messages.length > 0) return yield* fail(Unprocessable, ...messages)
      if (claimed === undefined && plans.length === 0) {
        const inserted = yield* repo.insert({ businessId: business.id, booking })
        if (Option.isNone(inserted)) return yield* Effect.die(new Error("a booking without a token was not inserted"))
        claimed = inserted.value.id
      }
      const { bookingId: id, leases } = plans.length === 0
        ? { bookingId: claimed!, leases: [] as ReadonlyArray<LeaseRow> }
        : yield* writeLeases(business.id, claimed ?? booking, plans, caller, complete ? "registered" : "reserved")
      if (!complete) {
        yield* enqueueJob(ExpireBookingJob, { business_id: business.id, booking_id: id }, {
          runAt: expiresAt,
          jobKey: expireJobKey(business.id, id)
        })
      }
      return { replayed: false, booking: insertedBooking(id, booking), leases }
    })
  )
  if (written.replayed) return yield* bookingResponse(written.booking.id)
  return { bookings: [bookingWire(written.booking, written.leases)] }
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
      if (isExpired(booking, yield* Clock.currentTimeMillis)) return yield* BookingRefusals.bookingExpired.fail({ id })
      const leases = yield* repo.leasesOf({ businessId: business.id, bookingIds: [id] })
      const missing = leases.filter((lease) => lease.person_id === null)
      if (missing.length > 0) return yield* fail(Unprocessable, ...missing.map((lease): Message => (BookingRefusals.leasePersonMissing.message({ id: lease.id }))))
      yield* completeLeases(business.id, id, leases)
    })
  )
  return yield* bookingResponse(id)
})

/**
 * DELETE booking (spec): a completed booking goes alone, its visits and invoices stay (their
 * booking_id and lease_id become null); an uncompleted one takes its leases and the visits and
 * appointments they created, freeing their places, and the invoices tied to it with the plans
 * they sold (BookingInvoices), all in one transaction.
 */
export const deleteBooking = Effect.fn("Bookings.delete")(function* (caller: Caller, id: number) {
  const business = yield* CurrentBusiness
  const repo = yield* BookingsRepo
  const invoices = yield* BookingInvoices
  yield* inTransaction(
    Effect.gen(function* () {
      const booking = yield* findBooking(caller, id, true)
      if (booking.state !== "completed") {
        yield* releaseLeases(business.id, yield* repo.leasesOf({ businessId: business.id, bookingIds: [id] }))
        yield* invoices.removeCreated(business.id, id)
      }
      yield* repo.delete({ businessId: business.id, id })
    })
  )
})

/**
 * A booking tied to an invoice completes, with its leases, when the invoice closes (spec:
 * bookings tied to invoices). Runs on the caller's transaction; a booking already completed,
 * expired or gone changes nothing.
 */
export const completeInvoicedBooking = Effect.fn("Bookings.completeInvoiced")(function* (businessId: number, bookingId: number) {
  const repo = yield* BookingsRepo
  const booking = yield* repo.find({ businessId, id: bookingId, lock: true })
  if (!booking || booking.state !== "incomplete") return
  yield* completeLeases(businessId, bookingId, yield* repo.leasesOf({ businessId, bookingIds: [bookingId] }))
})
