import { Effect, Schema } from "effect"
import { type SqlClient, SqlSchema } from "effect/sql"
import { SERVICE_TYPES } from "../../catalog/services/model.ts"
import { orDie, orUndefined } from "../../shared/statements.ts"
import { BookingInsert, insertBookingSql } from "./booking-insert.ts"
import { LEASE_STATES, type LeaseInsert, LeaseRow } from "./model.ts"
import { bigintArray } from "../../shared/sql-rows.ts"

/** The SQL of leases, handed out by BookingsRepo (a lease never lives apart from its booking). */
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
/** A lease as its insert returns it: everything but the occurrences, which the caller knows. */
const { occurrence_ids: _, ...writtenFields } = LeaseRow.fields
const WrittenLease = Schema.Struct(writtenFields)

const ById = Schema.Struct({ businessId: Schema.Number, id: Schema.Number })
const InBusiness = Schema.Struct({ businessId: Schema.Number, ids: Schema.Array(Schema.Number) })
const EventFrom = Schema.Struct({ businessId: Schema.Number, eventId: Schema.Number, at: Schema.Date })
const LeasesState = Schema.Struct({ ...InBusiness.fields, state: Schema.Literals(LEASE_STATES), now: Schema.Date })

export const leaseStatements = (sql: SqlClient.SqlClient) => {
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
          ${"ids" in by ? sql`and l.id = any(${bigintArray(by.ids)})` : sql`and l.booking_id = any(${bigintArray(by.bookingIds)})`}
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
  const setLeasesState = SqlSchema.void({
    Request: LeasesState,
    execute: ({ businessId, ids, state, now }) =>
      sql`update leases set state = ${state}, updated_at = ${now} where business_id = ${businessId} and id = any(${bigintArray(ids)})`
  })
  const setLeasePerson = SqlSchema.void({
    Request: Schema.Struct({ ...ById.fields, personId: Schema.NullOr(Schema.Number), now: Schema.Date }),
    execute: ({ businessId, id, personId, now }) =>
      sql`update leases set person_id = ${personId}, updated_at = ${now} where business_id = ${businessId} and id = ${id}`
  })
  const deleteLease = SqlSchema.void({
    Request: ById,
    execute: ({ businessId, id }) => sql`delete from leases where business_id = ${businessId} and id = ${id}`
  })
  const lockStaffSchedule = SqlSchema.void({
    Request: Schema.Struct({ businessId: Schema.Number, staffId: Schema.Number }),
    execute: ({ businessId, staffId }) => sql`select pg_advisory_xact_lock(hashtextextended(${`appointment:${businessId}:${staffId}`}, 0))`
  })
  const event = SqlSchema.findOneOption({
    Request: ById,
    Result: EventInfo,
    execute: ({ businessId, id }) =>
      sql`select e.id, e.service_id, s.type as service_type from events e
          join services s on s.business_id = e.business_id and s.id = e.service_id
          where e.business_id = ${businessId} and e.id = ${id} and e.deleted_at is null`
  })
  const sessionsFrom = SqlSchema.findAll({
    Request: EventFrom,
    Result: Session,
    execute: ({ businessId, eventId, at }) =>
      sql`select id, start_at from event_occurrences
          where business_id = ${businessId} and event_id = ${eventId} and state = 'active' and start_at >= ${at}
          order by start_at, id`
  })
  const shareEvent = SqlSchema.void({
    Request: Schema.Struct({ businessId: Schema.Number, eventId: Schema.Number }),
    execute: ({ businessId, eventId }) => sql`select 1 from events where business_id = ${businessId} and id = ${eventId} for key share`
  })
  const shareOngoingBookings = SqlSchema.void({
    Request: Schema.Struct({ businessId: Schema.Number, eventId: Schema.Number }),
    execute: ({ businessId, eventId }) =>
      sql`select b.id from bookings b
          where b.business_id = ${businessId} and b.state <> 'expired'
            and exists (select 1 from leases l
                        where l.business_id = b.business_id and l.booking_id = b.id and l.event_id = ${eventId}
                          and l.kind = 'recurring' and l.recurring)
          order by b.id
          for share of b`
  })
  const ongoingLeases = SqlSchema.findAll({
    Request: EventFrom,
    Result: OngoingLease,
    execute: ({ businessId, eventId, at }) =>
      sql`select l.id, l.booking_id, l.person_id, l.start_at, b.state as booking_state
          from leases l
          join bookings b on b.business_id = l.business_id and b.id = l.booking_id
          left join people p on p.business_id = l.business_id and p.id = l.person_id
          where l.business_id = ${businessId} and l.event_id = ${eventId} and l.kind = 'recurring' and l.recurring
            and l.state in ('reserved', 'registered') and l.start_at is not null
            and (b.state = 'completed' or (b.state = 'incomplete' and b.expires_at > ${at}))
            and (l.person_id is null or p.deleted_at is null)
          order by l.id`
  })

  // The leases' rows travel as one JSON array (typed by the record's definition, so the statement
  // is planned once whatever the count), each with its place `i`; their booking is an existing one
  // or inserted by the same statement (no row then when a repeated idempotency token inserted none).
  // Each person's name is a lookup by key: the planner guesses 100 rows from the record set, for
  // which a join would hash every business's people (a scan growing with the whole table).
  const insertLeases = SqlSchema.findAll({
    Request: Schema.Struct({ businessId: Schema.Number, booking: Schema.Union([Schema.Number, BookingInsert]), leases: Schema.String }),
    Result: WrittenLease,
    execute: ({ businessId, booking, leases }) =>
      sql`with booking as (${typeof booking === "number" ? sql`select ${booking}::bigint as id` : insertBookingSql(sql, businessId, booking)}),
               l as (insert into leases (business_id, booking_id, kind, state, person_id, event_occurrence_id, event_id, service_id,
                                         staff_member_id, location_id, start_at, recurring, created_at, updated_at)
                     select ${businessId}, booking.id, r.kind, r.state, r.person_id, r.event_occurrence_id, r.event_id, r.service_id,
                            r.staff_member_id, r.location_id, r.start_at, r.recurring, r.created_at, r.updated_at
                     from booking, jsonb_to_recordset(${leases}::jsonb) as r(
                       i integer, kind text, state text, person_id bigint, event_occurrence_id bigint, event_id bigint, service_id bigint,
                       staff_member_id bigint, location_id bigint, start_at timestamptz, recurring boolean, created_at timestamptz,
                       updated_at timestamptz)
                     order by r.i
                     returning *)
          select l.id, l.booking_id, l.kind, l.state, l.person_id,
                 (select concat_ws(' ', p.first_name, p.last_name) from people p
                  where p.business_id = l.business_id and p.id = l.person_id) as person_name,
                 l.event_occurrence_id, l.event_id, l.service_id, l.staff_member_id, l.location_id, l.start_at, l.recurring,
                 l.created_at, l.updated_at
          from l
          order by l.id`
  })
  return {
    /** Leases of the bookings, each with the occurrences its visits are on. */
    leasesOf: orDie(({ businessId, bookingIds }: { readonly businessId: number; readonly bookingIds: ReadonlyArray<number> }) =>
      bookingIds.length === 0 ? Effect.succeed([] as ReadonlyArray<LeaseRow>) : leasesOf({ businessId, ids: bookingIds })
    ),
    leasesById: orDie((request: typeof InBusiness.Type) =>
      request.ids.length === 0 ? Effect.succeed([] as ReadonlyArray<LeaseRow>) : leasesById(request)
    ),
    /**
     * Inserts leases and answers them as written, in the order given, each with the occurrences
     * its visits will be on (`occurrenceIds`, by start): the booking's answer needs no re-read.
     * `booking`: the id of the leases' booking, or a new booking inserted by the same statement;
     * none answered: its idempotency token was taken, and nothing was written.
     */
    insertLeases: orDie(({ businessId, booking, leases, occurrenceIds }: {
      readonly businessId: number
      readonly booking: number | BookingInsert
      readonly leases: ReadonlyArray<LeaseInsert>
      readonly occurrenceIds: ReadonlyArray<ReadonlyArray<number>>
    }) =>
      leases.length === 0
        ? Effect.succeed([] as ReadonlyArray<LeaseRow>)
        : insertLeases({ businessId, booking, leases: JSON.stringify(leases.map((lease, i) => ({ i, ...lease }))) }).pipe(
          Effect.map((rows): ReadonlyArray<LeaseRow> => rows.map((row, i) => ({ ...row, occurrence_ids: occurrenceIds[i] ?? [] })))
        )
    ),
    setLeasesState: orDie((request: typeof LeasesState.Type) =>
      request.ids.length === 0 ? Effect.void : setLeasesState(request)
    ),
    setLeasePerson: orDie(setLeasePerson),
    deleteLease: orDie(deleteLease),
    /**
     * Serializes appointment leases per staff member for the rest of the transaction, in id
     * order (so two bookings naming the same two staff members cannot wait on each other).
     */
    lockStaffSchedules: orDie(({ businessId, staffIds }: { readonly businessId: number; readonly staffIds: ReadonlyArray<number> }) =>
      Effect.forEach([...new Set(staffIds)].sort((a, b) => a - b), (staffId) => lockStaffSchedule({ businessId, staffId }), { discard: true })
    ),
    /** A live event and its service type; client mode checks visibility separately. */
    event: orUndefined(event),
    /**
     * The event's active sessions starting at or after `at`, by start. The event's key-share
     * lock orders the lease's transaction with a materialization of the event (which locks it
     * for update): sessions it adds are either read here or, committed after this lease, get
     * the lease from ongoing.ts. Never neither.
     */
    sessionsFrom: orDie((request: typeof EventFrom.Type) => Effect.andThen(shareEvent(request), sessionsFrom(request))),
    /**
     * The live ongoing leases of an event (kind recurring, `recurring`), by id: those of
     * completed bookings and of incomplete ones not past `expires_at` (`at`); a lease whose person was
     * deleted is over. Their bookings are share-locked first, in id order: completion, expiry,
     * removal and lease changes hold the booking's update lock, so the leases read afterwards
     * (a new snapshot) are as those left them, and they wait for this transaction in turn.
     */
    ongoingLeases: orDie((request: typeof EventFrom.Type) => Effect.andThen(shareOngoingBookings(request), ongoingLeases(request)))
  }
}
