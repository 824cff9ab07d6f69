import { Effect, Schema } from "effect"
import { type SqlClient, SqlSchema } from "effect/sql"
import { bigintArray, insertRows } from "../../shared/sql-rows.ts"
import { orDie, orUndefined } from "../../shared/statements.ts"
import { OCCURRENCE_STATES, type OccurrenceInsert } from "./model.ts"

/**
 * The materializer's and the appointments' writes to event occurrences, handed out by
 * EventOccurrencesRepo (repo.ts spreads them in). Rows are never deleted: cancelling or deleting
 * an occurrence changes its state (visits refer to it). Bulk inserts stay `sql.insert` of the
 * prepared rows (OccurrenceInsert), chunked: their shape is the model's, and one statement per
 * chunk is the point.
 */
const Id = Schema.Struct({ id: Schema.Number })
const Ids = Schema.Array(Schema.Number)
const Materialized = Schema.Struct({
  id: Schema.Number,
  scheduled_date: Schema.String,
  start_at: Schema.Date,
  end_at: Schema.Date,
  time_zone: Schema.String,
  service_id: Schema.Number,
  location_id: Schema.NullOr(Schema.Number),
  name: Schema.String,
  description: Schema.NullOr(Schema.String),
  capacity: Schema.NullOr(Schema.Number),
  state: Schema.Literals(OCCURRENCE_STATES),
  staff_member_ids: Ids
})
export type MaterializedRow = typeof Materialized.Type
const AppointmentTemplate = Schema.Struct({
  name: Schema.String,
  description: Schema.NullOr(Schema.String),
  duration_in_minutes: Schema.Number,
  type: Schema.String,
  time_zone: Schema.String
})
const ById = Schema.Struct({ businessId: Schema.Number, id: Schema.Number })
const SetState = Schema.Struct({ businessId: Schema.Number, ids: Ids, state: Schema.Literals(OCCURRENCE_STATES), at: Schema.Date })
const Attendance = Schema.Struct({ ...ById.fields, at: Schema.Date })
type Rows = { readonly businessId: number; readonly rows: ReadonlyArray<OccurrenceInsert> }
type Reschedule = typeof ById.Type & { readonly row: OccurrenceInsert; readonly at: Date }

export const occurrenceWrites = (sql: SqlClient.SqlClient) => {
  const materializedFrom = SqlSchema.findAll({
    Request: Schema.Struct({ businessId: Schema.Number, eventId: Schema.Number, fromDate: Schema.String }),
    Result: Materialized,
    execute: ({ businessId, eventId, fromDate }) =>
      sql`select o.id, o.scheduled_date::text as scheduled_date, o.start_at, o.end_at, o.time_zone, o.service_id, o.location_id,
                 o.name, o.description, o.capacity, o.state,
                 coalesce((select json_agg(s.staff_member_id order by s.position) from event_occurrence_staff_members s
                           where s.business_id = o.business_id and s.event_occurrence_id = o.id), '[]') as staff_member_ids
          from event_occurrences o
          where o.business_id = ${businessId} and o.event_id = ${eventId} and o.scheduled_date >= ${fromDate}::date
          order by o.scheduled_date`
  })
  const nextIds = SqlSchema.findAll({
    Request: Schema.Struct({ count: Schema.Number }),
    Result: Id,
    execute: ({ count }) => sql`select nextval(pg_get_serial_sequence('event_occurrences', 'id')) as id from generate_series(1, ${count})`
  })
  const appointmentTemplate = SqlSchema.findOneOption({
    Request: Schema.Struct({ businessId: Schema.Number, serviceId: Schema.Number, locationId: Schema.NullOr(Schema.Number) }),
    Result: AppointmentTemplate,
    execute: ({ businessId, serviceId, locationId }) =>
      sql`select s.name, s.description, s.duration_in_minutes, s.type, coalesce(l.time_zone, b.time_zone) as time_zone
          from services s join businesses b on b.id = s.business_id
          left join locations l on l.business_id = s.business_id and l.id = ${locationId}
          where s.business_id = ${businessId} and s.id = ${serviceId}`
  })
  const setState = SqlSchema.findAll({
    Request: SetState,
    Result: Id,
    execute: ({ businessId, ids, state, at }) =>
      sql`update event_occurrences set state = ${state}, updated_at = ${at},
            canceled_at = case when ${state}::text = 'canceled' then ${at}::timestamptz else canceled_at end,
            deleted_at = case when ${state}::text = 'deleted' then ${at}::timestamptz else deleted_at end
          where business_id = ${businessId} and id = any(${bigintArray(ids)}) returning id`
  })
  // Active is checked again here: the request's check read the occurrence before this statement, and
  // a cancellation committed in between must not get its attendance completed (and its pays enqueued).
  const attendanceCompleted = SqlSchema.findAll({
    Request: Attendance,
    Result: Id,
    execute: ({ businessId, id, at }) => sql`
      update event_occurrences set attendance_complete = true, updated_at = ${at}
       where business_id = ${businessId} and id = ${id} and not attendance_complete and state = 'active' returning id`
  })
  const clearStaff = SqlSchema.void({
    Request: ById,
    execute: ({ businessId, id }) => sql`delete from event_occurrence_staff_members where business_id = ${businessId} and event_occurrence_id = ${id}`
  })
  const rescheduled = SqlSchema.void({
    Request: Schema.Struct({
      ...ById.fields,
      start_at: Schema.Date,
      end_at: Schema.Date,
      time_zone: Schema.String,
      location_id: Schema.NullOr(Schema.Number),
      name: Schema.String,
      description: Schema.NullOr(Schema.String),
      capacity: Schema.NullOr(Schema.Number),
      service_id: Schema.Number,
      at: Schema.Date
    }),
    execute: (row) =>
      sql`update event_occurrences set
            start_at = ${row.start_at}, end_at = ${row.end_at}, time_zone = ${row.time_zone},
            location_id = ${row.location_id}, name = ${row.name}, description = ${row.description},
            capacity = ${row.capacity}, service_id = ${row.service_id}, updated_at = ${row.at}
          where business_id = ${row.businessId} and id = ${row.id}`
  })

  const claimUpcoming = SqlSchema.findAll({
    Request: Schema.Struct({ businessId: Schema.Number, from: Schema.Date, until: Schema.Date, limit: Schema.Number }),
    Result: Id,
    execute: ({ businessId, from, until, limit }) =>
      sql`with due as (
            select id from event_occurrences
            where business_id = ${businessId} and state = 'active' and upcoming_notified_at is null
              and start_at > ${from} and start_at <= ${until}
            order by start_at, id
            limit ${limit}
            for update skip locked
          )
          update event_occurrences o set upcoming_notified_at = ${from}
          from due where o.business_id = ${businessId} and o.id = due.id
          returning o.id`
  })
  const setAppointmentPerson = SqlSchema.void({
    Request: Schema.Struct({ businessId: Schema.Number, occurrenceId: Schema.Number, personId: Schema.NullOr(Schema.Number), now: Schema.Date }),
    execute: ({ businessId, occurrenceId, personId, now }) =>
      sql`update event_occurrences set booked_for_person_id = ${personId}, updated_at = ${now}
          where business_id = ${businessId} and id = ${occurrenceId} and event_id is null`
  })

  /** The staff rows of occurrences, in their order per occurrence (repeats dropped), 1000 a statement. */
  const insertStaff = (businessId: number, staffOf: ReadonlyArray<readonly [occurrenceId: number, staffIds: ReadonlyArray<number>]>) =>
    Effect.gen(function* () {
      const staff = staffOf.flatMap(([occurrenceId, staffIds]) =>
        [...new Set(staffIds)].map((staffMemberId, position) => ({
          business_id: businessId,
          event_occurrence_id: occurrenceId,
          staff_member_id: staffMemberId,
          position
        }))
      )
      for (let i = 0; i < staff.length; i += 1000) {
        const values = insertRows(staff.slice(i, i + 1000))
        if (values) yield* sql`insert into event_occurrence_staff_members ${sql.insert(values)}`
      }
    })

  return {
    /**
     * Up to `limit` active occurrences starting in (`from`, `until`] not yet announced as
     * upcoming, marked announced at `from`, by id. Call it inside the transaction that emits their
     * events: the rows stay locked until it commits, and a concurrent run skips them (SKIP
     * LOCKED) and then finds them marked, so each occurrence is announced once.
     */
    claimUpcoming: orDie((request: Parameters<typeof claimUpcoming>[0]) =>
      claimUpcoming(request).pipe(Effect.map((rows): ReadonlyArray<number> => rows.map((row) => row.id).sort((a, b) => a - b)))
    ),
    /** An appointment's attendee follows its lease's person (availability and client lookups read it). */
    setAppointmentPerson: orDie(setAppointmentPerson),
    /** Marks the occurrence's attendance complete; false when it already was (nothing changed). */
    completeAttendance: orDie((request: typeof Attendance.Type) => attendanceCompleted(request).pipe(Effect.map((rows) => rows.length > 0))),
    /** The occurrences an event has from `fromDate` on (any state), by scheduled date. */
    materializedFrom: orDie(materializedFrom),
    /**
     * Inserts occurrences with their staff; returns the new ids in order. Ids are drawn from
     * the identity first, so the staff rows of every occurrence go in one statement.
     */
    insert: orDie(({ businessId, rows }: Rows) =>
      Effect.gen(function* () {
        if (rows.length === 0) return [] as ReadonlyArray<number>
        const ids = (yield* nextIds({ count: rows.length })).map((row) => row.id)
        for (let i = 0; i < rows.length; i += 500) {
          const chunk = rows.slice(i, i + 500).map(({ staff_member_ids: _, ...columns }, j) => ({
            business_id: businessId,
            id: ids[i + j]!,
            ...columns
          }))
          const values = insertRows(chunk)
          if (values) yield* sql`insert into event_occurrences ${sql.insert(values)}`
        }
        yield* insertStaff(businessId, rows.map((row, i) => [ids[i]!, row.staff_member_ids] as const))
        return ids as ReadonlyArray<number>
      })
    ),
    /** Makes an occurrence that has not started match its changed event (its staff too). */
    reschedule: orDie(({ businessId, id, row, at }: Reschedule) =>
      Effect.gen(function* () {
        const { start_at, end_at, time_zone, location_id, name, description, capacity, service_id } = row
        yield* rescheduled({ businessId, id, start_at, end_at, time_zone, location_id, name, description, capacity, service_id, at })
        yield* clearStaff({ businessId, id })
        yield* insertStaff(businessId, [[id, row.staff_member_ids]])
      })
    ),
    /** What an appointment on a service at a location copies: name, duration, time zone. */
    appointmentTemplate: orUndefined(appointmentTemplate),
    /** Sets the state (cancel, delete, restore); the row stays. Returns how many changed. */
    setState: orDie((request: typeof SetState.Type) =>
      request.ids.length === 0 ? Effect.succeed(0) : setState(request).pipe(Effect.map((rows) => rows.length))
    )
  }
}
