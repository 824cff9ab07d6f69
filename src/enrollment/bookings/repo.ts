import { Context, Effect, Layer, Option, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { SERVICE_TYPES } from "../../catalog/services/model.ts"
import { insertTenantRows } from "../../shared/sql-rows.ts"
import { BookingRow, type BookingState, type LeaseInsert, LeaseRow, type LeaseState } from "./model.ts"

/** The SQL of bookings and leases. Their visits are read and written through src/visits. */
const EventInfo = Schema.Struct({ id: Schema.Number, service_id: Schema.Number, service_type: Schema.Literals(SERVICE_TYPES) })
const Session = Schema.Struct({ id: Schema.Number, start_at: Schema.Date })
export type Session = typeof Session.Type
const OngoingLease = Schema.Struct({
  id: Schema.Number,
  booking_id: Schema.Number,
  person_id: Schema.NullOr(Schema.Number),
  start_at: Schema.Date,
  booking_state: Schema.Literals(["incomplete", "completed"])
})
export type OngoingLease = typeof OngoingLease.Type

const Id = Schema.Struct({ id: Schema.Number })
const Ids = Schema.Array(Schema.Number)
const ById = Schema.Struct({ businessId: Schema.Number, id: Schema.Number })
const InBusiness = Schema.Struct({ businessId: Schema.Number, ids: Ids })
const BookingInsert = Schema.Struct({
  person_id: Schema.NullOr(Schema.Number),
  created_by_staff_member_id: Schema.NullOr(Schema.Number),
  idempotency_token: Schema.NullOr(Schema.String),
  idempotency_scope: Schema.NullOr(Schema.String),
  request_digest: Schema.NullOr(Schema.String),
  expires_at: Schema.Date,
  now: Schema.Date
})

const BOOKING_COLUMNS = `b.id, b.state, b.person_id, b.created_by_staff_member_id, b.idempotency_token, b.request_digest,
  b.expires_at, b.completed_at, b.created_at, b.updated_at`

const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const leasesWhere = (businessId: number, by: { readonly bookingIds: ReadonlyArray<number> } | { readonly ids: ReadonlyArray<number> }) =>
    sql`select l.id, l.booking_id, l.kind, l.state, l.person_id,
               case when p.id is null then null else concat_ws(' ', p.first_name, p.last_name) end as person_name,
               l.event_occurrence_id, l.event_id, l.service_id, l.staff_member_id, l.location_id, l.start_at, l.recurring,
               coalesce((select json_agg(v.event_occurrence_id order by o.start_at, o.id)
                         from visits v join event_occurrences o on o.business_id = v.business_id and o.id = v.event_occurrence_id
                         where v.business_id = l.business_id and v.lease_id = l.id), '[]') as occurrence_ids,
               l.created_at, l.updated_at
        from leases l left join people p on p.business_id = l.business_id and p.id = l.person_id
        where l.business_id = ${businessId}
          ${"ids" in by ? sql`and l.id = any(${by.ids})` : sql`and l.booking_id = any(${by.bookingIds})`}
        order by l.booking_id, l.id`
  const leasesOf = SqlSchema.findAll({
    Request: InBusiness,
    Result: LeaseRow,
    execute: ({ businessId, ids }) => leasesWhere(businessId, { bookingIds: ids })
  })
  const leasesById = SqlSchema.findAll({
    Request: InBusiness,
    Result: LeaseRow,
    execute: ({ businessId, ids }) => leasesWhere(businessId, { ids })
  })
  const find = SqlSchema.findOneOption({
    Request: Schema.Struct({ ...ById.fields, lock: Schema.Boolean }),
    Result: BookingRow,
    execute: ({ businessId, id, lock }) =>
      sql`select ${sql.literal(BOOKING_COLUMNS)} from bookings b where b.business_id = ${businessId} and b.id = ${id}
          ${lock ? sql`for update` : sql``}`
  })
  const byToken = SqlSchema.findOneOption({
    Request: Schema.Struct({ businessId: Schema.Number, scope: Schema.String, token: Schema.String }),
    Result: BookingRow,
    execute: ({ businessId, scope, token }) =>
      sql`select ${sql.literal(BOOKING_COLUMNS)} from bookings b
          where b.business_id = ${businessId} and b.idempotency_scope = ${scope} and b.idempotency_token = ${token}`
  })
  const insert = SqlSchema.findOneOption({
    Request: Schema.Struct({ businessId: Schema.Number, booking: BookingInsert }),
    Result: Id,
    execute: ({ businessId, booking }) =>
      sql`insert into bookings (business_id, person_id, created_by_staff_member_id, idempotency_token, idempotency_scope,
                                request_digest, expires_at, created_at, updated_at)
          values (${businessId}, ${booking.person_id}, ${booking.created_by_staff_member_id}, ${booking.idempotency_token},
                  ${booking.idempotency_scope}, ${booking.request_digest}, ${booking.expires_at}, ${booking.now}, ${booking.now})
          on conflict (business_id, idempotency_scope, idempotency_token) where idempotency_token is not null do nothing
          returning id`
  })
  const event = SqlSchema.findOneOption({
    Request: ById,
    Result: EventInfo,
    execute: ({ businessId, id }) =>
      sql`select e.id, e.service_id, s.type as service_type from events e
          join services s on s.business_id = e.business_id and s.id = e.service_id
          where e.business_id = ${businessId} and e.id = ${id} and e.deleted_at is null`
  })
  const EventFrom = Schema.Struct({ ...ById.fields, at: Schema.Date })
  const sessionsFrom = SqlSchema.findAll({
    Request: EventFrom,
    Result: Session,
    execute: ({ businessId, id, at }) =>
      sql`select id, start_at from event_occurrences
          where business_id = ${businessId} and event_id = ${id} and state = 'active' and start_at >= ${at}
          order by start_at, id`
  })
  const ongoingLeases = SqlSchema.findAll({
    Request: EventFrom,
    Result: OngoingLease,
    execute: ({ businessId, id, at }) =>
      sql`select l.id, l.booking_id, l.person_id, l.start_at, b.state as booking_state
          from leases l
          join bookings b on b.business_id = l.business_id and b.id = l.booking_id
          left join people p on p.business_id = l.business_id and p.id = l.person_id
          where l.business_id = ${businessId} and l.event_id = ${id} and l.kind = 'recurring' and l.recurring
            and l.state in ('reserved', 'registered') and l.start_at is not null
            and (b.state = 'completed' or (b.state = 'incomplete' and b.expires_at > ${at}))
            and (l.person_id is null or p.deleted_at is null)
          order by l.id`
  })
  const due = SqlSchema.findAll({
    Request: Schema.Struct({ now: Schema.Date, limit: Schema.Number }),
    Result: Schema.Struct({ business_id: Schema.Number, id: Schema.Number }),
    execute: ({ now, limit }) =>
      sql`select business_id, id from bookings where state = 'incomplete' and expires_at <= ${now}
          order by expires_at limit ${limit}`
  })

  return {
    /** One booking; `lock` takes its row lock for the transaction (completion, expiry, removal). */
    find: (businessId: number, id: number, options: { readonly lock?: boolean } = {}) =>
      find({ businessId, id, lock: options.lock === true }).pipe(Effect.map(Option.getOrUndefined), Effect.orDie),

    byToken: (businessId: number, scope: string, token: string) =>
      byToken({ businessId, scope, token }).pipe(Effect.map(Option.getOrUndefined), Effect.orDie),

    /**
     * Inserts a booking; None when another booking already has its idempotency token (the
     * unique index decides between concurrent repeats: the later one waits for the earlier to
     * commit and then finds the conflict).
     */
    insert: (businessId: number, booking: typeof BookingInsert.Type) =>
      insert({ businessId, booking }).pipe(Effect.map(Option.map((row) => row.id)), Effect.orDie),

    setState: (businessId: number, id: number, state: BookingState, now: Date) =>
      sql`update bookings set state = ${state}, updated_at = ${now},
            completed_at = case when ${state}::text = 'completed' then ${now}::timestamptz else completed_at end,
            expired_at = case when ${state}::text = 'expired' then ${now}::timestamptz else expired_at end
          where business_id = ${businessId} and id = ${id}`.pipe(Effect.asVoid, Effect.orDie),

    delete: (businessId: number, id: number) =>
      sql`delete from bookings where business_id = ${businessId} and id = ${id}`.pipe(Effect.asVoid, Effect.orDie),

    /** Leases of the bookings, each with the occurrences its visits are on. */
    leasesOf: (businessId: number, bookingIds: ReadonlyArray<number>) =>
      bookingIds.length === 0 ? Effect.succeed([] as ReadonlyArray<LeaseRow>) : leasesOf({ businessId, ids: bookingIds }).pipe(Effect.orDie),

    leasesById: (businessId: number, ids: ReadonlyArray<number>) =>
      ids.length === 0 ? Effect.succeed([] as ReadonlyArray<LeaseRow>) : leasesById({ businessId, ids }).pipe(Effect.orDie),

    insertLeases: (businessId: number, leases: ReadonlyArray<LeaseInsert>) => insertTenantRows(sql, "leases", businessId, leases),

    setLeasesState: (businessId: number, ids: ReadonlyArray<number>, state: LeaseState, now: Date) =>
      ids.length === 0
        ? Effect.void
        : sql`update leases set state = ${state}, updated_at = ${now} where business_id = ${businessId} and id = any(${ids})`.pipe(
          Effect.asVoid,
          Effect.orDie
        ),

    setLeasePerson: (businessId: number, id: number, personId: number | null, now: Date) =>
      sql`update leases set person_id = ${personId}, updated_at = ${now} where business_id = ${businessId} and id = ${id}`.pipe(
        Effect.asVoid,
        Effect.orDie
      ),

    deleteLease: (businessId: number, id: number) =>
      sql`delete from leases where business_id = ${businessId} and id = ${id}`.pipe(Effect.asVoid, Effect.orDie),

    /** An appointment's attendee follows its lease's person (availability and client lookups read it). */
    setAppointmentPerson: (businessId: number, occurrenceId: number, personId: number | null, now: Date) =>
      sql`update event_occurrences set booked_for_person_id = ${personId}, updated_at = ${now}
          where business_id = ${businessId} and id = ${occurrenceId} and event_id is null`.pipe(Effect.asVoid, Effect.orDie),

    /**
     * Serializes appointment leases per staff member for the rest of the transaction, in id
     * order (so two bookings naming the same two staff members cannot wait on each other).
     */
    lockStaffSchedules: (businessId: number, staffIds: ReadonlyArray<number>) =>
      Effect.forEach(
        [...new Set(staffIds)].sort((a, b) => a - b),
        (staffId) =>
          sql`select pg_advisory_xact_lock(hashtext(${`appointment:${businessId}`}), ${staffId}::int)`.pipe(Effect.asVoid),
        { discard: true }
      ).pipe(Effect.orDie),

    /** A live event and its service type; client mode checks visibility separately. */
    event: (businessId: number, id: number) =>
      event({ businessId, id }).pipe(Effect.map(Option.getOrUndefined), Effect.orDie),

    /**
     * The event's active sessions starting at or after `from`, by start. The event's key-share
     * lock orders the lease's transaction with a materialization of the event (which locks it
     * for update): sessions it adds are either read here or, committed after this lease, get
     * the lease from ongoing.ts. Never neither.
     */
    sessionsFrom: (businessId: number, eventId: number, from: Date) =>
      Effect.gen(function* () {
        yield* sql`select 1 from events where business_id = ${businessId} and id = ${eventId} for key share`
        return yield* sessionsFrom({ businessId, id: eventId, at: from })
      }).pipe(Effect.orDie),

    /**
     * The live ongoing leases of an event (kind recurring, `recurring`), by id: those of
     * completed bookings and of incomplete ones not past `expires_at`; a lease whose person was
     * deleted is over. Their bookings are share-locked first, in id order: completion, expiry,
     * removal and lease changes hold the booking's update lock, so the leases read afterwards
     * (a new snapshot) are as those left them, and they wait for this transaction in turn.
     */
    ongoingLeases: (businessId: number, eventId: number, now: Date) =>
      Effect.gen(function* () {
        yield* sql`select b.id from bookings b
                   where b.business_id = ${businessId} and b.state <> 'expired'
                     and exists (select 1 from leases l
                                 where l.business_id = b.business_id and l.booking_id = b.id and l.event_id = ${eventId}
                                   and l.kind = 'recurring' and l.recurring)
                   order by b.id
                   for share of b`
        return yield* ongoingLeases({ businessId, id: eventId, at: now })
      }).pipe(Effect.orDie),

    /** Incomplete bookings past their expiry (the sweep for jobs that were lost), oldest first. */
    due: (now: Date, limit: number) =>
      due({ now, limit }).pipe(Effect.orDie)
  }
})

export class BookingsRepo extends Context.Service<BookingsRepo, Effect.Success<typeof make>>()("studio/BookingsRepo") {
  static readonly layer = Layer.effect(BookingsRepo)(make)
}
