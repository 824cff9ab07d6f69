import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { ClientCaller, type FrontCaller, isMemberOf, VisitorCaller } from "../../access/caller.ts"
import { type Page, totalCount } from "../../shared/pagination.ts"
import { memberOn } from "../../shared/plan-rules.ts"
import { orDie } from "../../shared/statements.ts"
import { CategoryRow, type ServiceInsert, ServiceRow } from "./model.ts"
import { bigintArray } from "../../shared/sql-rows.ts"

/**
 * The SQL of services and their categories. Every statement names `business_id`. What client
 * mode may see is one rule (`viewable`), shared with the schedule's other repos through
 * `viewableServiceSql`.
 */
const Id = Schema.Struct({ id: Schema.Number })
const Ids = Schema.Array(Schema.Number)
const PageRequest = Schema.Struct({ limit: Schema.Number, offset: Schema.Number })
const Listed = Schema.Struct({ ...ServiceRow.fields, total_count: Schema.Number })

/**
 * Client mode sees a service when it is not hidden and is for everyone, or for members and
 * the viewer is one. `alias` names the services table in the caller's query.
 */
export const viewableServiceSql = (sql: SqlClient.SqlClient, alias: string, caller: FrontCaller) => {
  const s = sql.literal(alias)
  return sql`(${s}.hidden_at is null and (${s}.visibility = 'Everyone' or (${s}.visibility = 'Members' and ${isMemberOf(caller)})))`
}

/** Which services a read shows: what a client-mode caller may see, or staff's view (hidden ones on request). */
export const ServiceScope = Schema.Union([ClientCaller, VisitorCaller, Schema.TaggedStruct("Staff", { includeHidden: Schema.Boolean })])
export type ServiceScope = typeof ServiceScope.Type

/**
 * A ServiceRow's columns over `services s` joined to its category `c` (`serviceCategoryJoinSql`):
 * the schedule's lookups that answer an occurrence with its service select these too.
 */
export const serviceColumnsSql = (sql: SqlClient.SqlClient) =>
  sql`s.id, s.type, s.name, s.position, s.description, s.description_short, s.instructions,
    s.category_id, c.name as category_name, s.duration_in_minutes, s.calendar_color, s.visibility, s.hidden_at,
    s.online_booking, s.clients_can_book, s.members_can_book, s.client_purchase_disabled, s.require_cc, s.require_plan,
    s.enrollment_window_blackout_minutes, s.booking_window_days, s.free_cancellation_window_in_hours,
    s.maximum_clients, s.drop_in_price_cents, s.number_of_free_visits, s.anonymous_staff, s.show_capacity_to_clients,
    s.show_rooms_to_clients, s.allow_tips, s.no_merchandise_price, s.supports_single_payer, s.created_at, s.updated_at,
    coalesce((select json_agg(ss.staff_member_id order by ss.staff_member_id) from service_staff_members ss
              where ss.business_id = s.business_id and ss.service_id = s.id), '[]') as staff_member_ids`
export const serviceCategoryJoinSql = (sql: SqlClient.SqlClient) =>
  sql`left join service_categories c on c.business_id = s.business_id and c.id = s.category_id`

/** Whether `services s` is within the scope (a condition, true when the scope sees every service). */
export const serviceInScopeSql = (sql: SqlClient.SqlClient, scope: ServiceScope) =>
  scope._tag !== "Staff"
    ? viewableServiceSql(sql, "s", scope)
    : scope.includeHidden
      ? sql`true`
      : sql`s.hidden_at is null`

/** New services and categories (the import, tests): a service's staff are linked with it. */
const serviceWrites = (sql: SqlClient.SqlClient) => {
  const ensureCategory = SqlSchema.findOne({
    Request: Schema.Struct({ businessId: Schema.Number, name: Schema.String, position: Schema.Number }),
    Result: Id,
    execute: ({ businessId, name, position }) =>
      sql`insert into service_categories (business_id, name, position) values (${businessId}, ${name}, ${position})
          on conflict (business_id, name) do update set updated_at = service_categories.updated_at
          returning id`
  })

  const insert = SqlSchema.findOne({
    Request: Schema.Record(Schema.String, Schema.Unknown),
    Result: Id,
    execute: (values) => sql`insert into services ${sql.insert(values)} returning id`
  })

  const linkStaff = SqlSchema.void({
    Request: Schema.Struct({ businessId: Schema.Number, serviceId: Schema.Number, staffMemberIds: Ids }),
    execute: ({ businessId, serviceId, staffMemberIds }) =>
      sql`insert into service_staff_members (business_id, service_id, staff_member_id)
          select ${businessId}, ${serviceId}, m from unnest(${bigintArray(staffMemberIds)}::bigint[]) as m`
  })

  /** A new service; what `service` leaves out takes the defaults below (the import relies on them). */
  const insertService = ({ businessId, service }: { readonly businessId: number; readonly service: ServiceInsert }) =>
    Effect.gen(function* () {
      const { id } = yield* insert({
        business_id: businessId,
        type: service.type,
        name: service.name,
        position: service.position ?? 0,
        description: service.description ?? null,
        description_short: service.description_short ?? null,
        instructions: service.instructions ?? null,
        category_id: service.category_id ?? null,
        duration_in_minutes: service.duration_in_minutes,
        calendar_color: service.calendar_color ?? null,
        visibility: service.visibility ?? "Everyone",
        hidden_at: service.hidden_at ?? null,
        online_booking: service.online_booking ?? true,
        clients_can_book: service.clients_can_book ?? true,
        members_can_book: service.members_can_book ?? true,
        client_purchase_disabled: service.client_purchase_disabled ?? false,
        require_cc: service.require_cc ?? false,
        require_plan: service.require_plan ?? false,
        enrollment_window_blackout_minutes: service.enrollment_window_blackout_minutes ?? 0,
        booking_window_days: service.booking_window_days ?? null,
        free_cancellation_window_in_hours: service.free_cancellation_window_in_hours ?? 0,
        maximum_clients: service.maximum_clients === undefined ? (service.type === "Appointment" ? 1 : null) : service.maximum_clients,
        drop_in_price_cents: service.drop_in_price_cents ?? null,
        number_of_free_visits: service.number_of_free_visits ?? 0,
        anonymous_staff: service.anonymous_staff ?? false,
        show_capacity_to_clients: service.show_capacity_to_clients ?? null,
        show_rooms_to_clients: service.show_rooms_to_clients ?? false,
        allow_tips: service.allow_tips ?? false,
        no_merchandise_price: service.no_merchandise_price ?? null,
        supports_single_payer: service.supports_single_payer ?? false
      })
      const staffMemberIds = [...new Set(service.staff_member_ids ?? [])]
      if (staffMemberIds.length > 0) yield* linkStaff({ businessId, serviceId: id, staffMemberIds })
      return id
    })

  return {
    /** A category by name, created when missing (the import); answers its id. */
    ensureCategory: orDie(ensureCategory),
    insert: orDie(insertService)
  }
}

/** What the client-mode `Caller` constructors (callers.ts) read. */
const callerStatements = (sql: SqlClient.SqlClient) => {
  /**
   * What a client-mode caller carries (src/access/caller.ts), in one round trip: the person's
   * live dependents (by id) and whether the person is a member on `date` (members see
   * members-only services; the plans' rule, `memberOn`).
   */
  const clientStanding = SqlSchema.findOne({
    Request: Schema.Struct({ businessId: Schema.Number, personId: Schema.Number, date: Schema.String }),
    Result: Schema.Struct({ dependents: Ids, is_member: Schema.Boolean }),
    execute: ({ businessId, personId, date }) =>
      sql`select coalesce((select json_agg(p.id order by p.id) from person_relationships r
                           join people p on p.business_id = r.business_id and p.id = r.dependent_id
                           where r.business_id = ${businessId} and r.provider_id = ${personId} and p.deleted_at is null), '[]') as dependents,
                 exists (select 1 from people pe where pe.business_id = ${businessId} and pe.id = ${personId}
                           and ${memberOn(sql, businessId, sql`pe.id`, date)}) as is_member`
  })
  return { clientStanding: orDie(clientStanding) }
}

const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  const columns = serviceColumnsSql(sql)
  const from = sql`services s ${serviceCategoryJoinSql(sql)}`
  const scoped = (scope: ServiceScope) => sql`and ${serviceInScopeSql(sql, scope)}`

  const list = SqlSchema.findAll({
    Request: Schema.Struct({ businessId: Schema.Number, scope: ServiceScope, page: PageRequest }),
    Result: Listed,
    execute: ({ businessId, scope, page }) =>
      sql`select ${columns}, count(*) over () as total_count
          from ${from}
          where s.business_id = ${businessId} ${scoped(scope)}
          order by s.position, s.id
          limit ${page.limit} offset ${page.offset}`
  })

  const findMany = SqlSchema.findAll({
    Request: Schema.Struct({ businessId: Schema.Number, ids: Ids, scope: ServiceScope }),
    Result: ServiceRow,
    execute: ({ businessId, ids, scope }) =>
      sql`select ${columns} from ${from}
          where s.business_id = ${businessId} and s.id = any(${bigintArray(ids)}) ${scoped(scope)}
          order by s.id`
  })

  const categories = SqlSchema.findAll({
    Request: Schema.Struct({ businessId: Schema.Number, ids: Ids }),
    Result: CategoryRow,
    execute: ({ businessId, ids }) =>
      sql`select id, name, position, description, description_short from service_categories
          where business_id = ${businessId} and id = any(${bigintArray(ids)})
          order by position, id`
  })

  const counted = SqlSchema.findAll({
    Request: Schema.Struct({ businessId: Schema.Number, scope: ServiceScope }),
    Result: Schema.Struct({ n: Schema.Number }),
    execute: ({ businessId, scope }) => sql`select count(*) as n from services s where s.business_id = ${businessId} ${scoped(scope)}`
  })

  /** One page by position then id. */
  const page = ({ page, ...request }: { readonly businessId: number; readonly scope: ServiceScope; readonly page: Page }) =>
    Effect.gen(function* () {
      const rows = yield* list({ ...request, page })
      const total = yield* totalCount(rows, page, counted(request))
      return { rows: rows as ReadonlyArray<ServiceRow>, total }
    })
  /** Services by id within the scope, in id order. */
  const byIds = (request: Parameters<typeof findMany>[0]) =>
    request.ids.length === 0 ? Effect.succeed([] as ReadonlyArray<ServiceRow>) : findMany(request)
  const categoriesOf = (request: Parameters<typeof categories>[0]) =>
    request.ids.length === 0 ? Effect.succeed([] as ReadonlyArray<CategoryRow>) : categories(request)
  return {
    list: orDie(page),
    findMany: orDie(byIds),
    categories: orDie(categoriesOf),
    ...serviceWrites(sql),
    ...callerStatements(sql)
  }
})

export class ServicesRepo extends Context.Service<ServicesRepo, Effect.Success<typeof make>>()("studio/ServicesRepo") {
  static readonly layer = Layer.effect(ServicesRepo)(make)
}
