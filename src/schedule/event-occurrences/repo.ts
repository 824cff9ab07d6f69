import { Context, Effect, Layer, Option, Schema, Struct } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { orDie, orUndefined } from "../../shared/statements.ts"
import { CallerView, type FrontCaller } from "../../access/caller.ts"
import { SERVICE_TYPES, ServiceRow } from "../../catalog/services/model.ts"
import { MATERIALIZE_TASK } from "../events/service.ts"
import { ServiceScope, serviceCategoryJoinSql, serviceColumnsSql, serviceInScopeSql, viewableServiceSql } from "../../catalog/services/repo.ts"
import { clientVisibleStaffSql, staffRefsSql } from "../../catalog/staff-members/repo.ts"
import { OCCURRENCE_STATES, OccurrenceRow } from "./model.ts"
import { occurrenceWrites } from "./write-statements.ts"
import { bigintArray } from "../../shared/sql-rows.ts"

/**
 * The SQL of event occurrences: the lists and lookups of both modes and the checks that filter
 * ids exist (here), and the materializer's writes (write-statements.ts). Rows are never deleted: cancelling or deleting an
 * occurrence changes its state (visits refer to it).
 */
const Id = Schema.Struct({ id: Schema.Number })
const Ids = Schema.Array(Schema.Number)

/** An occurrence's own columns (prefixed) beside its service's (ServiceRow's names): `findWithService`. */
const OccurrenceWithServiceRow = Schema.Struct({
  occurrence_id: Schema.Number,
  occurrence_event_id: Schema.NullOr(Schema.Number),
  occurrence_start_at: Schema.Date,
  occurrence_end_at: Schema.Date,
  service_in_scope: Schema.Boolean,
  ...ServiceRow.fields
})
const SERVICE_ROW_KEYS = Object.keys(ServiceRow.fields) as Array<keyof typeof ServiceRow.fields>

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

/** The ids a list's filters name, checked against what the caller may see (a 400 names the missing). */
const filterStatements = (sql: SqlClient.SqlClient) => {
  const Existing = Schema.Struct({ businessId: Schema.Number, table: Schema.Literals(FILTER_TABLES), ids: Ids, scope: CallerView })
  const existingIds = SqlSchema.findAll({
    Request: Existing,
    Result: Id,
    execute: ({ businessId, table, ids, scope }) => {
      switch (table) {
        case "staff_members":
          return sql`select id from staff_members where business_id = ${businessId} and id = any(${bigintArray(ids)})
                     ${scope._tag !== "Staff" ? sql`and ${clientVisibleStaffSql(sql, "staff_members")}` : sql``}`
        case "locations":
          return sql`select id from locations where business_id = ${businessId} and id = any(${bigintArray(ids)})
                     ${scope._tag !== "Staff" ? sql`and show_in_client_mode` : sql``}`
        case "services":
          return sql`select s.id from services s where s.business_id = ${businessId} and s.id = any(${bigintArray(ids)})
                     ${scope._tag !== "Staff" ? sql`and ${viewableServiceSql(sql, "s", scope)}` : sql``}`
        case "events":
          return sql`select e.id from events e join services s on s.business_id = e.business_id and s.id = e.service_id
                     where e.business_id = ${businessId} and e.id = any(${bigintArray(ids)}) and e.deleted_at is null
                     ${scope._tag !== "Staff" ? sql`and ${viewableServiceSql(sql, "s", scope)}` : sql``}`
      }
    }
  })

  return {
    /** Which of `ids` exist in `table` for the scope (client mode: what clients may see). */
    existingIds: orDie((request: typeof Existing.Type) =>
      request.ids.length === 0
        ? Effect.succeed(new Set<number>() as ReadonlySet<number>)
        : existingIds(request).pipe(Effect.map((rows): ReadonlySet<number> => new Set(rows.map((row) => row.id))))
    )
  }
}

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
  const clientVisible = (caller: FrontCaller) =>
    sql`s.type in ('GroupClass', 'Course') and ${viewableServiceSql(sql, "s", caller)} and (l.id is null or l.show_in_client_mode)`

  const list = SqlSchema.findAll({
    Request: Schema.Struct({ businessId: Schema.Number, ...OccurrenceFilters.fields, scope: CallerView }),
    Result: OccurrenceRow,
    execute: ({ businessId, scope, ...filters }) =>
      sql`select ${columns} from ${from}
          where o.business_id = ${businessId}
            ${filters.from ? sql`and o.start_at >= ${filters.from}` : sql``}
            ${filters.to ? sql`and o.start_at <= ${filters.to}` : sql``}
            and o.state = any(${filters.states})
            ${scope._tag !== "Staff" ? sql`and ${clientVisible(scope)}` : sql``}
            ${filters.ids ? sql`and o.id = any(${bigintArray(filters.ids)})` : sql``}
            ${filters.serviceIds ? sql`and o.service_id = any(${bigintArray(filters.serviceIds)})` : sql``}
            ${filters.eventIds ? sql`and o.event_id = any(${bigintArray(filters.eventIds)})` : sql``}
            ${filters.locationIds ? sql`and o.location_id = any(${bigintArray(filters.locationIds)})` : sql``}
            ${filters.serviceTypes ? sql`and s.type = any(${filters.serviceTypes})` : sql``}
            ${filters.staffMemberIds
              ? sql`and exists (select 1 from event_occurrence_staff_members f
                                where f.business_id = o.business_id and f.event_occurrence_id = o.id
                                  and f.staff_member_id = any(${bigintArray(filters.staffMemberIds)}))`
              : sql``}
          order by o.start_at, o.id`
  })

  const Find = Schema.Struct({ businessId: Schema.Number, id: Schema.Number, scope: CallerView, appointmentsOf: Schema.NullOr(Schema.Number) })
  /** What `find` sees of one occurrence: client mode, the viewable ones and the person's own appointments. */
  const findable = ({ scope, appointmentsOf }: typeof Find.Type) =>
    scope._tag !== "Staff"
      ? sql`and ((${clientVisible(scope)}) or (s.type = 'Appointment' and o.booked_for_person_id = ${appointmentsOf}))`
      : sql``
  const find = SqlSchema.findOneOption({
    Request: Find,
    Result: OccurrenceRow,
    execute: (request) =>
      sql`select ${columns} from ${from}
          where o.business_id = ${request.businessId} and o.id = ${request.id} ${findable(request)}`
  })
  const findWithService = SqlSchema.findOneOption({
    Request: Schema.Struct({ ...Find.fields, serviceScope: ServiceScope }),
    Result: OccurrenceWithServiceRow,
    execute: ({ serviceScope, ...request }) =>
      sql`select o.id as occurrence_id, o.event_id as occurrence_event_id, o.start_at as occurrence_start_at,
                 o.end_at as occurrence_end_at, ${serviceInScopeSql(sql, serviceScope)} as service_in_scope, ${serviceColumnsSql(sql)}
          from ${from} ${serviceCategoryJoinSql(sql)}
          where o.business_id = ${request.businessId} and o.id = ${request.id} ${findable(request)}`
  })

  return {
    /** Occurrences in the filters (OccurrenceFilters' fields), by start then id. */
    list: orDie(list),
    /**
     * One occurrence in any state. Client mode finds the viewable group classes and courses,
     * and appointments booked for `appointmentsOf` (the token's person).
     */
    find: orUndefined(({ appointmentsOf = null, ...request }: Omit<typeof Find.Type, "appointmentsOf"> & { readonly appointmentsOf?: number | null }) =>
      find({ ...request, appointmentsOf })
    ),
    /**
     * What a lease of one occurrence asks, in one statement: the occurrence as `find` sees it, and
     * its service as the services' `findMany` would answer it for `serviceScope` (undefined when
     * outside it).
     */
    findWithService: orUndefined(({ appointmentsOf = null, ...request }: Omit<typeof Find.Type, "appointmentsOf"> & {
      readonly appointmentsOf?: number | null
      readonly serviceScope: ServiceScope
    }) =>
      findWithService({ ...request, appointmentsOf }).pipe(Effect.map(Option.map((row) => ({
        occurrence: {
          id: row.occurrence_id,
          event_id: row.occurrence_event_id,
          service_id: row.id,
          service_type: row.type,
          start_at: row.occurrence_start_at,
          end_at: row.occurrence_end_at
        },
        service: row.service_in_scope ? Struct.pick(row, SERVICE_ROW_KEYS) : undefined
      }))))
    ),
    ...filterStatements(sql),
    ...occurrenceWrites(sql)
  }
})

export class EventOccurrencesRepo extends Context.Service<EventOccurrencesRepo, Effect.Success<typeof make>>()(
  "studio/EventOccurrencesRepo"
) {
  static readonly layer = Layer.effect(EventOccurrencesRepo)(make)
}
