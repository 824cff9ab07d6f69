import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { bigintArray, insertRows } from "../../shared/sql-rows.ts"
import { orDie, orUndefined } from "../../shared/statements.ts"
import { CallerView } from "../../access/caller.ts"
import { viewableServiceSql } from "../../catalog/services/repo.ts"
import { staffRefsSql } from "../../catalog/staff-members/repo.ts"
import { EventInput, EventRow } from "./model.ts"

/**
 * The SQL of events. Deleted events (`deleted_at`) are read only by the materializer, which
 * turns their future occurrences into deleted ones. Writes run on the caller's connection, so
 * inside `sql.withTransaction` they commit with the job they enqueue.
 */
const Id = Schema.Struct({ id: Schema.Number })
const Ids = Schema.Array(Schema.Number)
const InEvent = Schema.Struct({ businessId: Schema.Number, id: Schema.Number })

export type EventScope = CallerView

export const EventFilters = Schema.Struct({ ids: Schema.optional(Ids), serviceIds: Schema.optional(Ids) })
export type EventFilters = typeof EventFilters.Type

/** The event's staff become `staffIds`, in that order (repeats dropped). */
const staffWriter = (sql: SqlClient.SqlClient) => {
  const StaffOf = Schema.Struct({ businessId: Schema.Number, eventId: Schema.Number, staffIds: Ids })
  const clearStaff = SqlSchema.void({
    Request: Schema.Struct({ businessId: Schema.Number, eventId: Schema.Number }),
    execute: ({ businessId, eventId }) => sql`delete from event_staff_members where business_id = ${businessId} and event_id = ${eventId}`
  })
  const addStaff = SqlSchema.void({
    Request: StaffOf,
    execute: ({ businessId, eventId, staffIds }) =>
      sql`insert into event_staff_members ${
        sql.insert(insertRows(staffIds.map((staffMemberId, position) => ({
          business_id: businessId,
          event_id: eventId,
          staff_member_id: staffMemberId,
          position
        })))!)
      }`
  })
  return (businessId: number, eventId: number, staffIds: ReadonlyArray<number>) =>
    Effect.gen(function* () {
      yield* clearStaff({ businessId, eventId })
      const unique = [...new Set(staffIds)]
      if (unique.length > 0) yield* addStaff({ businessId, eventId, staffIds: unique })
    })
}

/** New events, replaced schedules and deletes; an event's staff are written with it. */
const eventWrites = (sql: SqlClient.SqlClient) => {
  const writeStaff = staffWriter(sql)
  const columnsOf = (input: EventInput) => ({
    service_id: input.service_id,
    location_id: input.location_id,
    name: input.name,
    description: input.description ?? null,
    frequency: input.frequency,
    // A PostgreSQL array literal: the untyped parameter takes the column's type (smallint[]).
    weekdays: `{${[...new Set(input.weekdays)].sort((a, b) => a - b).join(",")}}`,
    interval_weeks: input.interval_weeks ?? 1,
    start_date: input.start_date,
    end_date: input.end_date ?? null,
    session_count: input.session_count ?? null,
    start_time: input.start_time,
    end_time: input.end_time,
    capacity: input.capacity ?? null
  })

  const Insert = Schema.Struct({ businessId: Schema.Number, input: EventInput })
  const insert = SqlSchema.findOne({
    Request: Insert,
    Result: Id,
    execute: ({ businessId, input }) =>
      sql`insert into events ${sql.insert({ business_id: businessId, ...columnsOf(input) })} returning id`
  })

  const Replace = Schema.Struct({ ...InEvent.fields, input: EventInput })
  const replace = SqlSchema.findAll({
    Request: Replace,
    Result: Id,
    execute: ({ businessId, id, input }) =>
      sql`update events set ${sql.update(columnsOf(input))}, updated_at = now()
          where business_id = ${businessId} and id = ${id} and deleted_at is null
          returning id`
  })

  const SoftDelete = Schema.Struct({ ...InEvent.fields, at: Schema.Date })
  const softDelete = SqlSchema.findAll({
    Request: SoftDelete,
    Result: Id,
    execute: ({ businessId, id, at }) =>
      sql`update events set deleted_at = ${at}, updated_at = ${at}
          where business_id = ${businessId} and id = ${id} and deleted_at is null returning id`
  })

  return {
    /** A new event and its staff; returns its id. */
    insert: orDie(({ businessId, input }: typeof Insert.Type) =>
      Effect.gen(function* () {
        const { id } = yield* insert({ businessId, input })
        yield* writeStaff(businessId, id, input.staff_member_ids)
        return id
      })
    ),
    /** Replaces an event's schedule and staff; false when there is no such live event. */
    replace: orDie(({ businessId, id, input }: typeof Replace.Type) =>
      Effect.gen(function* () {
        const rows = yield* replace({ businessId, id, input })
        if (rows.length === 0) return false
        yield* writeStaff(businessId, id, input.staff_member_ids)
        return true
      })
    ),
    /** Marks a live event deleted; false when there is none. */
    softDelete: orDie((request: typeof SoftDelete.Type) => softDelete(request).pipe(Effect.map((rows) => rows.length > 0)))
  }
}

const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  const columns = sql`e.id, e.service_id, s.type as service_type, e.location_id, e.name, e.description, e.frequency,
    array_to_json(e.weekdays) as weekdays, e.interval_weeks, e.start_date::text as start_date, e.end_date::text as end_date,
    e.session_count, to_char(e.start_time, 'HH24:MI') as start_time, to_char(e.end_time, 'HH24:MI') as end_time,
    coalesce(e.capacity, s.maximum_clients) as capacity, coalesce(l.time_zone, b.time_zone) as time_zone,
    e.materialized_through::text as materialized_through, e.deleted_at, e.created_at, e.updated_at,
    ${staffRefsSql(sql, { table: "event_staff_members", column: "event_id" }, "e")} as staff`
  const from = sql`events e
    join businesses b on b.id = e.business_id
    join services s on s.business_id = e.business_id and s.id = e.service_id
    left join locations l on l.business_id = e.business_id and l.id = e.location_id`
  const scoped = (scope: EventScope) =>
    scope._tag !== "Staff"
      ? sql`and ${viewableServiceSql(sql, "s", scope)} and (l.id is null or l.show_in_client_mode)`
      : sql``

  const list = SqlSchema.findAll({
    Request: Schema.Struct({ businessId: Schema.Number, ...EventFilters.fields, scope: CallerView }),
    Result: EventRow,
    execute: ({ businessId, ids, serviceIds, scope }) =>
      sql`select ${columns} from ${from}
          where e.business_id = ${businessId} and e.deleted_at is null ${scoped(scope)}
          ${ids ? sql`and e.id = any(${bigintArray(ids)})` : sql``}
          ${serviceIds ? sql`and e.service_id = any(${bigintArray(serviceIds)})` : sql``}
          order by e.id`
  })

  // The lock alone, then the event read by a statement of its own: a read in the locking statement
  // keeps its older snapshot, so its staff (a subquery) would miss an update committed while it waited.
  const lockEvent = SqlSchema.findAll({
    Request: InEvent,
    Result: Id,
    execute: ({ businessId, id }) => sql`select e.id from events e where e.business_id = ${businessId} and e.id = ${id} for update of e`
  })
  const eventForMaterialize = SqlSchema.findOneOption({
    Request: InEvent,
    Result: EventRow,
    execute: ({ businessId, id }) =>
      sql`select ${columns} from ${from}
          where e.business_id = ${businessId} and e.id = ${id}`
  })

  const setMaterializedThrough = SqlSchema.void({
    Request: Schema.Struct({ ...InEvent.fields, date: Schema.String }),
    execute: ({ businessId, id, date }) =>
      sql`update events set materialized_through = ${date}::date where business_id = ${businessId} and id = ${id}`
  })

  const materializedBefore = SqlSchema.findAll({
    Request: Schema.Struct({ date: Schema.String }),
    Result: Schema.Struct({ business_id: Schema.Number, id: Schema.Number }),
    execute: ({ date }) =>
      sql`select business_id, id from events
          where deleted_at is null and (materialized_through is null or materialized_through < ${date}::date)
          order by business_id, id`
  })

  return {
    ...eventWrites(sql),
    /** Live events in scope (`ids`, `serviceIds` narrow them), by id. */
    list: orDie(list),
    /** An event, deleted or not, locked until the transaction ends (one materialization at a time). */
    lockForMaterialize: orUndefined((request: typeof InEvent.Type) => Effect.andThen(lockEvent(request), eventForMaterialize(request))),
    setMaterializedThrough: orDie(setMaterializedThrough),
    /** Live events of every business whose occurrences stop before `date`: the daily extension's work. */
    materializedBefore: orDie(materializedBefore)
  }
})

export class EventsRepo extends Context.Service<EventsRepo, Effect.Success<typeof make>>()("studio/EventsRepo") {
  static readonly layer = Layer.effect(EventsRepo)(make)
}
