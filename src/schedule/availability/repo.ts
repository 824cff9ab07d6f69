import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { orDie } from "../../shared/statements.ts"
import { BusyRow, ProviderRow, WorkingHoursRow } from "./model.ts"
import { bigintArray } from "../../shared/sql-rows.ts"

/** The SQL availability reads: providers, their weekly hours, and their booked time. */
const Ids = Schema.Array(Schema.Number)
const Providers = Schema.Struct({ businessId: Schema.Number, serviceId: Schema.Number, clientMode: Schema.Boolean, staffIds: Schema.optional(Ids) })
const HoursOf = Schema.Struct({ businessId: Schema.Number, staffIds: Ids, clientMode: Schema.Boolean, locationIds: Schema.optional(Ids) })
const BusyOf = Schema.Struct({ businessId: Schema.Number, staffIds: Ids, from: Schema.Date, to: Schema.Date })

const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  const providers = SqlSchema.findAll({
    Request: Providers,
    Result: ProviderRow,
    execute: ({ businessId, serviceId, clientMode, staffIds }) =>
      sql`select sm.id from service_staff_members ss
          join staff_members sm on sm.business_id = ss.business_id and sm.id = ss.staff_member_id
          where ss.business_id = ${businessId} and ss.service_id = ${serviceId} and sm.role <> 'demoted'
          ${clientMode ? sql`and not sm.hidden_in_client_mode` : sql``}
          ${staffIds ? sql`and sm.id = any(${bigintArray(staffIds)})` : sql``}
          order by sm.id`
  })

  const workingHours = SqlSchema.findAll({
    Request: HoursOf,
    Result: WorkingHoursRow,
    execute: ({ businessId, staffIds, clientMode, locationIds }) =>
      sql`select h.staff_member_id, h.location_id, h.weekday, to_char(h.start_time, 'HH24:MI') as start_time,
                 to_char(h.end_time, 'HH24:MI') as end_time, l.time_zone
          from staff_working_hours h join locations l on l.business_id = h.business_id and l.id = h.location_id
          where h.business_id = ${businessId} and h.staff_member_id = any(${bigintArray(staffIds)})
          ${clientMode ? sql`and l.show_in_client_mode` : sql``}
          ${locationIds ? sql`and h.location_id = any(${bigintArray(locationIds)})` : sql``}
          order by h.staff_member_id, h.location_id, h.weekday, h.start_time`
  })

  const busy = SqlSchema.findAll({
    Request: BusyOf,
    Result: BusyRow,
    execute: ({ businessId, staffIds, from, to }) =>
      sql`select os.staff_member_id, o.start_at, o.end_at
          from event_occurrences o
          join event_occurrence_staff_members os on os.business_id = o.business_id and os.event_occurrence_id = o.id
          where o.business_id = ${businessId} and os.staff_member_id = any(${bigintArray(staffIds)})
            and o.state in ('active', 'reserved') and o.start_at < ${to} and o.end_at > ${from}
          order by o.start_at`
  })

  return {
    /** Who gives the service; client mode leaves out staff hidden from clients. Demoted staff give nothing. */
    providers: orDie((request: typeof Providers.Type) => providers(request).pipe(Effect.map((rows) => rows.map((row) => row.id)))),
    /** Weekly hours of the staff members, with their location's time zone; client mode only at locations shown to clients. */
    workingHours: orDie((request: typeof HoursOf.Type) =>
      request.staffIds.length === 0 ? Effect.succeed([] as ReadonlyArray<WorkingHoursRow>) : workingHours(request)
    ),
    /** Time the staff members are taken in `[from, to)`: appointments and classes that are active or held. */
    busy: orDie((request: typeof BusyOf.Type) => (request.staffIds.length === 0 ? Effect.succeed([] as ReadonlyArray<BusyRow>) : busy(request)))
  }
})

export class AvailabilityRepo extends Context.Service<AvailabilityRepo, Effect.Success<typeof make>>()("studio/AvailabilityRepo") {
  static readonly layer = Layer.effect(AvailabilityRepo)(make)
}
