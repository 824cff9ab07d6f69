import { Array as Arr, Context, Effect, Layer, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { type Page, totalCount } from "../../shared/pagination.ts"
import { orDie } from "../../shared/statements.ts"
import { StaffMemberRow, type WorkingHoursInsert } from "./model.ts"
import { bigintArray } from "../../shared/sql-rows.ts"

const WorkingHours = Schema.Struct({
  staff_member_id: Schema.Number,
  location_id: Schema.Number,
  weekday: Schema.Number,
  start_time: Schema.String,
  end_time: Schema.String
})

/**
 * The SQL of staff members. What client mode may see is one rule (`clientVisibleStaffSql`),
 * shared with the schedule's other repos like the staff of an event or occurrence (`staffRefsSql`).
 */
const Listed = Schema.Struct({ ...StaffMemberRow.fields, total_count: Schema.Number })
const PageRequest = Schema.Struct({ limit: Schema.Number, offset: Schema.Number })

/**
 * Client mode shows a staff member unless hidden in client mode or demoted (no longer working
 * here). `alias` names the staff_members table in the caller's query.
 */
export const clientVisibleStaffSql = (sql: SqlClient.SqlClient, alias: string) => {
  const s = sql.literal(alias)
  return sql`(not ${s}.hidden_in_client_mode and ${s}.role <> 'demoted')`
}

/**
 * The staff of an event or occurrence as a JSON array of `StaffRefRow`, in their position order:
 * `link` is the table tying them to `owner` (the caller's alias of the event or occurrence) by its `column`.
 */
export const staffRefsSql = (
  sql: SqlClient.SqlClient,
  link: { readonly table: "event_staff_members" | "event_occurrence_staff_members"; readonly column: "event_id" | "event_occurrence_id" },
  owner: string
) =>
  sql`coalesce((select json_agg(json_build_object('id', sm.id, 'first_name', p.first_name, 'last_name', p.last_name,
                                                  'hidden', sm.hidden_in_client_mode) order by l.position, sm.id)
                from ${sql.literal(link.table)} l
                join staff_members sm on sm.business_id = l.business_id and sm.id = l.staff_member_id
                join people p on p.business_id = sm.business_id and p.id = sm.person_id
                where l.business_id = ${sql.literal(owner)}.business_id and l.${sql.literal(link.column)} = ${sql.literal(owner)}.id), '[]')`

export const StaffScope = Schema.Struct({ clientVisibleOnly: Schema.Boolean })
export type StaffScope = typeof StaffScope.Type

const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const columns = sql`s.id, s.person_id, s.role, s.bio, s.hidden_in_client_mode, p.first_name, p.middle_name, p.last_name,
    p.email::text as email, p.phone, p.profile_photo_url`
  const from = sql`staff_members s join people p on p.business_id = s.business_id and p.id = s.person_id`
  const visible = (scope: StaffScope) =>
    scope.clientVisibleOnly ? sql`and ${clientVisibleStaffSql(sql, "s")}` : sql``

  const list = SqlSchema.findAll({
    Request: Schema.Struct({ businessId: Schema.Number, scope: StaffScope, page: PageRequest }),
    Result: Listed,
    execute: ({ businessId, scope, page }) =>
      sql`select ${columns}, count(*) over () as total_count
          from ${from}
          where s.business_id = ${businessId} ${visible(scope)}
          order by lower(p.first_name), lower(p.last_name), s.id
          limit ${page.limit} offset ${page.offset}`
  })

  const findMany = SqlSchema.findAll({
    Request: Schema.Struct({ businessId: Schema.Number, ids: Schema.Array(Schema.Number), scope: StaffScope }),
    Result: StaffMemberRow,
    execute: ({ businessId, ids, scope }) =>
      sql`select ${columns} from ${from}
          where s.business_id = ${businessId} and s.id = any(${bigintArray(ids)}) ${visible(scope)}
          order by s.id`
  })

  const counted = SqlSchema.findAll({
    Request: Schema.Struct({ businessId: Schema.Number, scope: StaffScope }),
    Result: Schema.Struct({ n: Schema.Number }),
    execute: ({ businessId, scope }) => sql`select count(*) as n from staff_members s where s.business_id = ${businessId} ${visible(scope)}`
  })

  const refs = SqlSchema.findAll({
    Request: Schema.Struct({ businessId: Schema.Number }),
    Result: Schema.Struct({ id: Schema.Number, person_id: Schema.Number }),
    execute: ({ businessId }) => sql`select id, person_id from staff_members where business_id = ${businessId}`
  })

  const workingHours = SqlSchema.void({
    Request: Schema.Struct({ businessId: Schema.Number, rows: Schema.NonEmptyArray(WorkingHours) }),
    execute: ({ businessId, rows }) =>
      sql`insert into staff_working_hours ${sql.insert(Arr.map(rows, (row): Record<string, unknown> => ({ business_id: businessId, ...row })))}`
  })

  const page = ({ page, ...request }: { readonly businessId: number; readonly scope: StaffScope; readonly page: Page }) =>
    Effect.gen(function* () {
      const rows = yield* list({ ...request, page })
      const total = yield* totalCount(rows, page, counted(request))
      return { rows: rows as ReadonlyArray<StaffMemberRow>, total }
    })
  /** Staff members by id within the scope, in id order. */
  const byIds = (request: Parameters<typeof findMany>[0]) =>
    request.ids.length === 0 ? Effect.succeed([] as ReadonlyArray<StaffMemberRow>) : findMany(request)
  /** Staff member id by person id: the import names staff by e-mail, hence by person. */
  const idsByPerson = (request: Parameters<typeof refs>[0]) =>
    refs(request).pipe(Effect.map((rows) => new Map(rows.map((row) => [row.person_id, row.id]))))
  const insertWorkingHours = ({ businessId, rows }: { readonly businessId: number; readonly rows: ReadonlyArray<WorkingHoursInsert> }) =>
    Arr.isReadonlyArrayNonEmpty(rows) ? workingHours({ businessId, rows }) : Effect.void

  return {
    list: orDie(page),
    findMany: orDie(byIds),
    idsByPerson: orDie(idsByPerson),
    insertWorkingHours: orDie(insertWorkingHours)
  }
})

export class StaffMembersRepo extends Context.Service<StaffMembersRepo, Effect.Success<typeof make>>()("studio/StaffMembersRepo") {
  static readonly layer = Layer.effect(StaffMembersRepo)(make)
}
