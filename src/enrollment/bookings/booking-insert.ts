import { Schema } from "effect"
import type { SqlClient } from "effect/sql"
import type { BookingRow } from "./model.ts"

/**
 * A new booking's row (POST bookings), written once in its final state. Its insert is a
 * fragment: alone when the booking has no lease, else the first part of the statement that
 * writes its leases (lease-statements.ts `insertLeases`), so a booking and its leases cost one
 * round trip. A repeat of an idempotency token inserts nothing: the unique index decides (so a
 * booking with a token is inserted alone, first: see createBooking).
 */
export const BookingInsert = Schema.Struct({
  person_id: Schema.NullOr(Schema.Number),
  created_by_staff_member_id: Schema.NullOr(Schema.Number),
  idempotency_token: Schema.NullOr(Schema.String),
  idempotency_scope: Schema.NullOr(Schema.String),
  request_digest: Schema.NullOr(Schema.String),
  expires_at: Schema.Date,
  /** `completed` when the booking completes at once: written in its final state, never updated. */
  state: Schema.Literals(["incomplete", "completed"]),
  now: Schema.Date
})
export type BookingInsert = typeof BookingInsert.Type

export const BOOKING_COLUMNS = `b.id, b.state, b.person_id, b.created_by_staff_member_id, b.idempotency_token, b.request_digest,
  b.expires_at, b.completed_at, b.created_at, b.updated_at`

export const insertBookingSql = (sql: SqlClient.SqlClient, businessId: number, booking: BookingInsert) =>
  sql`insert into bookings as b (business_id, state, person_id, created_by_staff_member_id, idempotency_token, idempotency_scope,
                                 request_digest, expires_at, completed_at, created_at, updated_at)
      values (${businessId}, ${booking.state}, ${booking.person_id}, ${booking.created_by_staff_member_id}, ${booking.idempotency_token},
              ${booking.idempotency_scope}, ${booking.request_digest}, ${booking.expires_at},
              ${booking.state === "completed" ? booking.now : null}, ${booking.now}, ${booking.now})
      ${booking.idempotency_token === null ? sql`` : sql`on conflict (business_id, idempotency_scope, idempotency_token) where idempotency_token is not null do nothing`}
      returning ${sql.literal(BOOKING_COLUMNS)}`

/** The booking as its insert wrote it (its id from the insert): the answer needs no re-read. */
export const insertedBooking = (id: number, booking: BookingInsert): BookingRow => ({
  id,
  state: booking.state,
  person_id: booking.person_id,
  created_by_staff_member_id: booking.created_by_staff_member_id,
  idempotency_token: booking.idempotency_token,
  request_digest: booking.request_digest,
  expires_at: booking.expires_at,
  completed_at: booking.state === "completed" ? booking.now : null,
  created_at: booking.now,
  updated_at: booking.now
})
