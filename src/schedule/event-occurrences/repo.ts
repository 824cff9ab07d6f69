import { Context, Effect, Layer, Option, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { insertRows } from "../../shared/sql-rows.ts"
import { Audience, SERVICE_TYPES, type Viewer } from "../../catalog/services/model.ts"
import { MATERIALIZE_TASK } from "../events/service.ts"
import { viewableServiceSql } from "../../catalog/services/repo.ts"
import { clientVisibleStaffSql, staffRefsSql } from "../../catalog/staff-members/repo.ts"
import { OCCURRENCE_STATES, type OccurrenceInsert, OccurrenceRow, type OccurrenceState } from "./model.ts"

/**
 * The SQL of event occurrences: the lists and lookups of both modes, the checks that filter
 * ids exist, and the materializer's writes. Rows are never deleted: cancelling or deleting an
 * occurrence changes its state (visits refer to it).
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

/** Client mode: viewable group classes and courses at locations shown to clients. */
export type OccurrenceScope = Audience

export const OccurrenceFilters = Schema.Struct({
  /** Occurrences starting from `from` to `to`, both inclusive; undefined: no bound. */
  from: Schema.UndefinedOr(Schema.Date),
  to: Schema.UndefinedOr(Schema.Date),
  ids: Schema.optional(Ids),
  states: Schema.Array(Schema.Literals(OCCURRENCE_STATES)),
  staffMemberIds: Schema.optional(Ids),
  serviceIds: Schema.optional(Ids),
  eventIds: Schema.optional(Ids),
  locationIds: Schema.optional(Ids),
  serviceTypes: Schema.optional(Schema.Array(Schema.Literals(SERVICE_TYPES)))
})
export type OccurrenceFilters = typeof OccurrenceFilters.Type

/** The tables a filter's ids are checked against. */
export const FILTER_TABLES = ["staff_members", "services", "events", "locations"] as const
export type FilterTable = (typeof FILTER_TABLES)[number]

const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  // An occurrence of an event whose change is still being applied: its materialization job
  // (one per event, keyed, deleted by graphile-worker once done) is waiting or running. A job
  // that used up its attempts no longer counts: nothing will apply it.
  const pendingMaterialization = sql`(o.event_id is not null and exists (
    select 1 from graphile_worker._private_jobs j
    where j.key = ${MATERIALIZE_TASK} || ':' || o.business_id || ':' || o.event_id and j.attempts < j.max_attempts))`
  const columns = sql`o.id, o.event_id, o.scheduled_date::text as scheduled_date, o.service_id, s.type as service_type,
    o.location_id, o.name, o.description, o.start_at, o.end_at, o.time_zone, o.state, o.capacity, o.booked_for_person_id,
    o.attendance_complete, ${pendingMaterialization} as updating,
    ${staffRefsSql(sql, { table: "event_occurrence_staff_members", column: "event_occurrence_id" }, "o")} as staff`
  const from = sql`event_occurrences o
    join services s on s.business_id = o.business_id and s.id = o.service_id
    left join locations l on l.business_id = o.business_id and l.id = o.location_id`
  const clientVisible = (viewer: Viewer) =>
    sql`s.type in ('GroupClass', 'Course') and ${viewableServiceSql(sql, "s", viewer)} and (l.id is null or l.show_in_client_mode)`

  const list = SqlSchema.findAll({
    Request: Schema.Struct({ businessId: Schema.Number, filters: OccurrenceFilters, scope: Audience }),
    Result: OccurrenceRow,
    execute: ({ businessId, filters, scope }) =>
      sql`select ${columns} from ${from}
          where o.business_id = ${businessId}
            ${filters.from ? sql`and o.start_at >= ${filters.from}` : sql``}
            ${filters.to ? sql`and o.start_at <= ${filters.to}` : sql``}
            and o.state = any(${filters.states})
            ${scope._tag === "Client" ? sql`and ${clientVisible(scope.viewer)}` : sql``}
            ${filters.ids ? sql`and o.id = any(${filters.ids})` : sql``}
            ${filters.serviceIds ? sql`and o.service_id = any(${filters.serviceIds})` : sql``}
            ${filters.eventIds ? sql`and o.event_id = any(${filters.eventIds})` : sql``}
            ${filters.locationIds ? sql`and o.location_id = any(${filters.locationIds})` : sql``}
            ${filters.serviceTypes ? sql`and s.type = any(${filters.serviceTypes})` : sql``}
            ${filters.staffMemberIds
              ? sql`and exists (select 1 from event_occurrence_staff_members f
                                where f.business_id = o.business_id and f.event_occurrence_id = o.id
                                  and f.staff_member_id = any(${filters.staffMemberIds}))`
              : sql``}
          order by o.start_at, o.id`
  })

  const find = SqlSchema.findOneOption({
    Request: Schema.Struct({ businessId: Schema.Number, id: Schema.Number, scope: Audience, appointmentsOf: Schema.NullOr(Schema.Number) }),
    Result: OccurrenceRow,
    execute: ({ businessId, id, scope, appointmentsOf }) =>
      sql`select ${columns} from ${from}
          where o.business_id = ${businessId} and o.id = ${id}
          ${scope._tag === "Client"
            ? sql`and ((${clientVisible(scope.viewer)}) or (s.type = 'Appointment' and o.booked_for_person_id = ${appointmentsOf}))`
            : sql``}`
  })

  const existingIds = SqlSchema.findAll({
    Request: Schema.Struct({ businessId: Schema.Number, table: Schema.Literals(FILTER_TABLES), ids: Ids, scope: Audience }),
    Result: Id,
    execute: ({ businessId, table, ids, scope }) => {
      switch (table) {
        case "staff_members":
          return sql`select id from staff_members where business_id = ${businessId} and id = any(${ids})
                     ${scope._tag === "Client" ? sql`and ${clientVisibleStaffSql(sql, "staff_members")}` : sql``}`
        case "locations":
          return sql`select id from locations where business_id = ${businessId} and id = any(${ids})
                     ${scope._tag === "Client" ? sql`and show_in_client_mode` : sql``}`
        case "services":
          return sql`select s.id from services s where s.business_id = ${businessId} and s.id = any(${ids})
                     ${scope._tag === "Client" ? sql`and ${viewableServiceSql(sql, "s", scope.viewer)}` : sql``}`
        case "events":
          return sql`select e.id from events e join services s on s.business_id = e.business_id and s.id = e.service_id
                     where e.business_id = ${businessId} and e.id = any(${ids}) and e.deleted_at is null
                     ${scope._tag === "Client" ? sql`and ${viewableServiceSql(sql, "s", scope.viewer)}` : sql``}`
      }
    }
  })

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
    Request: Schema.Number,
    Result: Id,
    execute: (count) => sql`select nextval(pg_get_serial_sequence('event_occurrences', 'id')) as id from generate_series(1, ${count})`
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
    Request: Schema.Struct({ businessId: Schema.Number, ids: Ids, state: Schema.Literals(OCCURRENCE_STATES), at: Schema.Date }),
    Result: Id,
    execute: ({ businessId, ids, state, at }) =>
      sql`update event_occurrences set state = ${state}, updated_at = ${at},
            canceled_at = case when ${state}::text = 'canceled' then ${at}::timestamptz else canceled_at end,
            deleted_at = case when ${state}::text = 'deleted' then ${at}::timestamptz else deleted_at end
          where business_id = ${businessId} and id = any(${ids}) returning id`
  })

  const attendanceCompleted = SqlSchema.findAll({
    Request: Schema.Struct({ businessId: Schema.Number, id: Schema.Number, at: Schema.Date }),
    Result: Schema.Struct({ id: Schema.Number }),
    execute: ({ businessId, id, at }) => sql`
      update event_occurrences set attendance_complete = true, updated_at = ${at}
       where business_id = ${businessId} and id = ${id} and not attendance_complete returning id`
  })

  return {
    /** Marks the occurrence's attendance complete; false when it already was (nothing changed). */
    completeAttendance: (businessId: number, id: number, at: Date) =>
      attendanceCompleted({ businessId, id, at }).pipe(Effect.map((rows) => rows.length > 0), Effect.orDie),

    /** Occurrences in the filters, by start then id. */
    list: (businessId: number, filters: OccurrenceFilters, scope: OccurrenceScope) =>
      list({ businessId, filters, scope }).pipe(Effect.orDie),

    /**
     * One occurrence in any state. Client mode finds the viewable group classes and courses,
     * and appointments booked for `appointmentsOf` (the token's person).
     */
    find: (businessId: number, id: number, scope: OccurrenceScope, appointmentsOf: number | null = null) =>
      find({ businessId, id, scope, appointmentsOf }).pipe(Effect.map(Option.getOrUndefined), Effect.orDie),

    /** Which of `ids` exist in `table` for the scope (client mode: what clients may see). */
    existingIds: (businessId: number, table: FilterTable, ids: ReadonlyArray<number>, scope: OccurrenceScope) =>
      ids.length === 0
        ? Effect.succeed(new Set<number>())
        : existingIds({ businessId, table, ids, scope }).pipe(Effect.map((rows) => new Set(rows.map((row) => row.id))), Effect.orDie),

    /** The occurrences an event has from `fromDate` on (any state), by scheduled date. */
    materializedFrom: (businessId: number, eventId: number, fromDate: string) =>
      materializedFrom({ businessId, eventId, fromDate }).pipe(Effect.orDie),

    /**
     * Inserts occurrences with their staff; returns the new ids in order. Ids are drawn from
     * the identity first, so the staff rows of every occurrence go in one statement.
     */
    insert: (businessId: number, rows: ReadonlyArray<OccurrenceInsert>) =>
      Effect.gen(function* () {
        if (rows.length === 0) return [] as ReadonlyArray<number>
        const ids = (yield* nextIds(rows.length)).map((row) => row.id)
        for (let i = 0; i < rows.length; i += 500) {
          const chunk = rows.slice(i, i + 500).map(({ staff_member_ids: _, ...columns }, j) => ({
            business_id: businessId,
            id: ids[i + j]!,
            ...columns
          }))
          const values = insertRows(chunk)
          if (values) yield* sql`insert into event_occurrences ${sql.insert(values)}`
        }
        const staff = rows.flatMap((row, i) =>
          [...new Set(row.staff_member_ids)].map((staffMemberId, position) => ({
            business_id: businessId,
            event_occurrence_id: ids[i]!,
            staff_member_id: staffMemberId,
            position
          }))
        )
        for (let i = 0; i < staff.length; i += 1000) {
          const values = insertRows(staff.slice(i, i + 1000))
          if (values) yield* sql`insert into event_occurrence_staff_members ${sql.insert(values)}`
        }
        return ids
      }).pipe(Effect.orDie),

    /** Makes an occurrence that has not started match its changed event. */
    reschedule: (businessId: number, id: number, row: OccurrenceInsert, at: Date) =>
      Effect.gen(function* () {
        yield* sql`update event_occurrences set
                     start_at = ${row.start_at}, end_at = ${row.end_at}, time_zone = ${row.time_zone},
                     location_id = ${row.location_id}, name = ${row.name}, description = ${row.description},
                     capacity = ${row.capacity}, service_id = ${row.service_id}, updated_at = ${at}
                   where business_id = ${businessId} and id = ${id}`
        yield* replaceStaff(businessId, id, row.staff_member_ids)
      }).pipe(Effect.orDie),

    /** What an appointment on a service at a location copies: name, duration, time zone. */
    appointmentTemplate: (businessId: number, serviceId: number, locationId: number | null) =>
      appointmentTemplate({ businessId, serviceId, locationId }).pipe(Effect.map(Option.getOrUndefined), Effect.orDie),

    /** Sets the state (cancel, delete, restore); the row stays. Returns how many changed. */
    setState: (businessId: number, ids: ReadonlyArray<number>, state: OccurrenceState, at: Date) =>
      ids.length === 0
        ? Effect.succeed(0)
        : setState({ businessId, ids, state, at }).pipe(Effect.map((rows) => rows.length), Effect.orDie)
  }

  function replaceStaff(businessId: number, occurrenceId: number, staffIds: ReadonlyArray<number>) {
    return Effect.gen(function* () {
      yield* sql`delete from event_occurrence_staff_members where business_id = ${businessId} and event_occurrence_id = ${occurrenceId}`
      const rows = insertRows([...new Set(staffIds)].map((staffMemberId, position) => ({
        business_id: businessId,
        event_occurrence_id: occurrenceId,
        staff_member_id: staffMemberId,
        position
      })))
      if (rows) yield* sql`insert into event_occurrence_staff_members ${sql.insert(rows)}`
    })
  }
})

export class EventOccurrencesRepo extends Context.Service<EventOccurrencesRepo, Effect.Success<typeof make>>()(
  "studio/EventOccurrencesRepo"
) {
  static readonly layer = Layer.effect(EventOccurrencesRepo)(make)
}
