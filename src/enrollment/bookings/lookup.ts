import { Clock, Effect } from "effect"
import { type Caller, personOf } from "../../access/caller.ts"
import { CurrentBusiness } from "../../access/tenant.ts"
import type { Message } from "../../shared/errors.ts"
import { formatTimestamp } from "../../shared/schemas.ts"
import { type LeasePlan, type ResolveContext, resolveLease } from "./lease-plan.ts"
import type { BookingRow, BookingWire, LeaseInput, LeaseRow, LeaseWire } from "./model.ts"
import { BookingsRepo } from "./repo.ts"
import { currentTime } from "../../shared/clock.ts"
import { BookingRefusals } from "./refusals.ts"

/**
 * What booking and lease commands share: who is calling, the booking and lease they may reach
 * (client mode: only their own), when a booking still takes changes, and how both read on the wire.
 */

// ---------------------------------------------------------------------------------------------
// Wire

export const leaseWire = (row: LeaseRow): LeaseWire => ({
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

/** A booking on the wire, with its leases (those of other bookings are left out). */
export const bookingWire = (row: BookingRow, leases: ReadonlyArray<LeaseRow>): BookingWire => ({
  id: row.id,
  state: row.state,
  expires_at: formatTimestamp(row.expires_at),
  completed_at: row.completed_at === null ? null : formatTimestamp(row.completed_at),
  idempotency_token: row.idempotency_token,
  person_id: row.person_id,
  created_at: formatTimestamp(row.created_at),
  updated_at: formatTimestamp(row.updated_at),
  leases: leases.filter((lease) => lease.booking_id === row.id).map(leaseWire)
})

export const bookingsWire = Effect.fn("Bookings.wire")(function* (businessId: number, rows: ReadonlyArray<BookingRow>) {
  const leases = yield* (yield* BookingsRepo).leasesOf({ businessId, bookingIds: rows.map((row) => row.id) })
  return rows.map((row) => bookingWire(row, leases))
})

export const bookingResponse = Effect.fn("Bookings.response")(function* (id: number) {
  const business = yield* CurrentBusiness
  const row = yield* (yield* BookingsRepo).find({ businessId: business.id, id })
  if (!row) return yield* BookingRefusals.bookingNotFound.fail({ id })
  return { bookings: yield* bookingsWire(business.id, [row]) }
})

export const leaseResponse = Effect.fn("Bookings.leaseResponse")(function* (leaseId: number) {
  const business = yield* CurrentBusiness
  const [lease] = yield* (yield* BookingsRepo).leasesById({ businessId: business.id, ids: [leaseId] })
  return { leases: lease ? [leaseWire(lease)] : [] }
})

// ---------------------------------------------------------------------------------------------
// Lookups

/** A booking the caller may see: client mode only their own (another person's is not found). */
export const findBooking = Effect.fn("Bookings.find")(function* (caller: Caller, id: number, lock: boolean) {
  const business = yield* CurrentBusiness
  const row = yield* (yield* BookingsRepo).find({ businessId: business.id, id, lock })
  if (!row || (caller._tag !== "Staff" && row.person_id !== personOf(caller))) {
    return yield* BookingRefusals.bookingNotFound.fail({ id })
  }
  return row
})

export const findLease = Effect.fn("Bookings.findLease")(function* (booking: BookingRow, leaseId: number) {
  const business = yield* CurrentBusiness
  const [lease] = yield* (yield* BookingsRepo).leasesById({ businessId: business.id, ids: [leaseId] })
  if (!lease || lease.booking_id !== booking.id) return yield* BookingRefusals.leaseNotFound.fail({ id: leaseId })
  return lease
})

/** A booking past its expiry is expired even before its job has run. */
export const isExpired = (booking: BookingRow, nowMs: number) =>
  booking.state === "expired" || (booking.state === "incomplete" && booking.expires_at.getTime() <= nowMs)

/** Leases change only on a live, incomplete booking. */
export const requireOpen = Effect.fn("Bookings.requireOpen")(function* (booking: BookingRow) {
  const nowMs = yield* Clock.currentTimeMillis
  if (booking.state === "completed") return yield* BookingRefusals.bookingCompleted.fail({ id: booking.id })
  if (isExpired(booking, nowMs)) return yield* BookingRefusals.bookingExpired.fail({ id: booking.id })
})

export const resolveContext = Effect.fn("Bookings.resolveContext")(function* (caller: Caller): Effect.fn.Return<ResolveContext, never, CurrentBusiness> {
  const business = yield* CurrentBusiness
  return { businessId: business.id, caller, now: (yield* currentTime), claimedEmails: new Set(), newPeople: new Map() }
})

/** Resolves lease shapes (every problem collected); client mode: a person outside the household is a 404. */
export const resolveLeases = Effect.fn("Bookings.resolveLeases")(function* (
  context: ResolveContext,
  inputs: ReadonlyArray<LeaseInput>,
  prefix: (i: number) => string,
  messages: Array<Message>
) {
  const plans: Array<LeasePlan> = []
  for (const [i, input] of inputs.entries()) {
    const { plan, notFound } = yield* resolveLease(context, input, prefix(i), messages)
    if (notFound !== undefined) return yield* BookingRefusals.personNotFound.fail({ id: notFound })
    if (plan) plans.push(plan)
  }
  return plans
})
