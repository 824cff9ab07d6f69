import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { insertRows } from "../shared/sql-rows.ts"
import type { Audience } from "../services/model.ts"
import { viewableServiceSql } from "../services/repo.ts"
import { staffRefsSql } from "../staff-members/repo.ts"
import { type EventInput, EventRow } from "./model.ts"

/**
 * The SQL of events. Deleted events (`deleted_at`) are read only by the materializer, which
 * turns their future occurrences into deleted ones. Writes run on the caller's connection, so
 * inside `sql.withTransaction` they commit with the job they enqueue.
 */
const decodeRows = Schema.decodeUnknownEffect(Schema.Array(EventRow))
const decodeIds = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ id: Schema.Number })))
const decodeKeys = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ business_id: Schema.Number, id: Schema.Number })))

export type EventScope = Audience

export interface EventFilters {
  readonly ids?: ReadonlyArray<number> | undefined
  readonly serviceIds?: ReadonlyArray<number> | undefined
}

const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  const columns = sql`e.id, e.service_id, s.type as service_type, e.location_id, e.name, e.description, e.frequency,
    array_to_json(e.weekdays) as weekdays, e.interval_weeks, e.start_date::text as start_date, e.end_date::text as end_date,
    e.session_count, to_char(e.start_time, 'HH24:MI') as start_time, to_char(e.end_time, 'HH24:MI') as end_time,
    coalesce(e.capacity, s.maximum_clients) as capacity, coalesce(l.time_zone, b.time_zone) as time_zone,
    e.materialized_through::text as materialized_through, e.deleted_at, e.created_at, e.updated_at,
    ${staffRefsSql(sql, { table: "event_staff_members", key: "event_id" }, "e")} as staff`
  const from = sql`events e
    join businesses b on b.id = e.business_id
    join services s on s.business_id = e.business_id and s.id = e.service_id
    left join locations l on l.business_id = e.business_id and l.id = e.location_id`
  const scoped = (scope: EventScope) =>
    scope._tag === "Client"
      ? sql`and ${viewableServiceSql(sql, "s", scope.viewer)} and (l.id is null or l.show_in_client_mode)`
      : sql``

  const writeStaff = (businessId: number, eventId: number, staffIds: ReadonlyArray<number>) =>
    Effect.gen(function* () {
      yield* sql`delete from event_staff_members where business_id = ${businessId} and event_id = ${eventId}`
      const rows = insertRows([...new Set(staffIds)].map((staffMemberId, position) => ({
        business_id: businessId,
        event_id: eventId,
        staff_member_id: staffMemberId,
        position
      })))
      if (rows) yield* sql`insert into event_staff_members ${sql.insert(rows)}`
    })

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

  return {
    /** Live events in scope, by id. */
    list: (businessId: number, filters: EventFilters, scope: EventScope) =>
      sql`select ${columns} from ${from}
          where e.business_id = ${businessId} and e.deleted_at is null ${scoped(scope)}
          ${filters.ids ? sql`and e.id = any(${filters.ids})` : sql``}
          ${filters.serviceIds ? sql`and e.service_id = any(${filters.serviceIds})` : sql``}
          order by e.id`.pipe(Effect.flatMap(decodeRows), Effect.orDie),

    /** An event, deleted or not, locked until the transaction ends (one materialization at a time). */
    lockForMaterialize: (businessId: number, id: number) =>
      sql`select ${columns} from ${from}
          where e.business_id = ${businessId} and e.id = ${id}
          for update of e`.pipe(
        Effect.flatMap(decodeRows),
        Effect.map((rows) => rows[0]),
        Effect.orDie
      ),

    setMaterializedThrough: (businessId: number, id: number, date: string) =>
      sql`update events set materialized_through = ${date}::date where business_id = ${businessId} and id = ${id}`.pipe(
        Effect.asVoid,
        Effect.orDie
      ),

    /** Live events of every business whose occurrences stop before `date`: the daily extension's work. */
    materializedBefore: (date: string) =>
      sql`select business_id, id from events
          where deleted_at is null and (materialized_through is null or materialized_through < ${date}::date)
          order by business_id, id`.pipe(Effect.flatMap(decodeKeys), Effect.orDie),

    insert: (businessId: number, input: EventInput) =>
      Effect.gen(function* () {
        const [row] = yield* sql`insert into events ${sql.insert({ business_id: businessId, ...columnsOf(input) })}
                                 returning id`.pipe(Effect.flatMap(decodeIds))
        yield* writeStaff(businessId, row!.id, input.staff_member_ids)
        return row!.id
      }).pipe(Effect.orDie),

    /** Replaces an event's schedule; false when there is no such live event. */
    replace: (businessId: number, id: number, input: EventInput) =>
      Effect.gen(function* () {
        const rows = yield* sql`update events set ${sql.update(columnsOf(input))}, updated_at = now()
                                where business_id = ${businessId} and id = ${id} and deleted_at is null
                                returning id`.pipe(Effect.flatMap(decodeIds))
        if (rows.length === 0) return false
        yield* writeStaff(businessId, id, input.staff_member_ids)
        return true
      }).pipe(Effect.orDie),

    softDelete: (businessId: number, id: number, at: Date) =>
      sql`update events set deleted_at = ${at}, updated_at = ${at}
          where business_id = ${businessId} and id = ${id} and deleted_at is null returning id`.pipe(
        Effect.flatMap(decodeIds),
        Effect.map((rows) => rows.length > 0),
        Effect.orDie
      )
  }
})

export class EventsRepo extends Context.Service<EventsRepo, Effect.Success<typeof make>>()("studio/EventsRepo") {
  static readonly layer = Layer.effect(EventsRepo)(make)
}
