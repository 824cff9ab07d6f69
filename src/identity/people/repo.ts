import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient, SqlSchema, type Statement } from "effect/sql"
import { PersonRow, PersonWrite } from "./model.ts"
import { listQueries } from "./list-repo.ts"
import { relationsQueries } from "./relations-repo.ts"
import { currentOn, onHoldOn, visitsLeft } from "../../shared/plan-rules.ts"
import { orDie, orUndefined } from "../../shared/statements.ts"
import { bigintArray } from "../../shared/sql-rows.ts"

/**
 * The SQL of people (lists and search: list-repo.ts; relationships and custom field values:
 * relations-repo.ts). Every statement names `business_id`; writes run on the caller's
 * connection, so inside `sql.withTransaction` they commit or roll back together. Deleted people (`deleted_at` set) are left out everywhere
 * except `find` with `includeDeleted`.
 */
const Id = Schema.Struct({ id: Schema.Number })
const Ids = Schema.Array(Schema.Number)
const InBusiness = Schema.Struct({ businessId: Schema.Number, ids: Ids })
const ById = Schema.Struct({ businessId: Schema.Number, id: Schema.Number })

/** Who is who: people by id, and the lookups their references and e-mail addresses are checked by. */
const lookups = (sql: SqlClient.SqlClient, { columns, fromPeople }: { readonly columns: Statement.Fragment; readonly fromPeople: Statement.Fragment }) => {
  const find = SqlSchema.findAll({
    Request: Schema.Struct({ ...InBusiness.fields, includeDeleted: Schema.Boolean, lock: Schema.optional(Schema.Boolean) }),
    Result: PersonRow,
    execute: ({ businessId, ids, includeDeleted, lock }) =>
      sql`select ${columns} from ${fromPeople}
          where p.business_id = ${businessId} and p.id = any(${bigintArray(ids)})
          ${includeDeleted ? sql`` : sql`and p.deleted_at is null`}
          order by p.id
          ${lock === true ? sql`for no key update of p` : sql``}`
  })
  const existingIds = SqlSchema.findAll({
    Request: Schema.Struct({ ...InBusiness.fields, lock: Schema.optional(Schema.Boolean) }),
    Result: Id,
    execute: ({ businessId, ids, lock }) =>
      sql`select id from people where business_id = ${businessId} and id = any(${bigintArray(ids)}) and deleted_at is null
          ${lock === true ? sql`order by id for share` : sql``}`
  })
  const personOfAccount = SqlSchema.findOneOption({
    Request: Schema.Struct({ businessId: Schema.Number, accountId: Schema.Number }),
    Result: Id,
    execute: ({ businessId, accountId }) =>
      sql`select id from people where business_id = ${businessId} and account_id = ${accountId} and deleted_at is null
          order by id limit 1`
  })
  const location = SqlSchema.findOneOption({
    Request: ById,
    Result: Id,
    execute: ({ businessId, id }) => sql`select id from locations where business_id = ${businessId} and id = ${id}`
  })
  const emailTaken = SqlSchema.findOneOption({
    Request: Schema.Struct({ businessId: Schema.Number, email: Schema.String, exceptPersonId: Schema.NullOr(Schema.Number) }),
    Result: Id,
    execute: ({ businessId, email, exceptPersonId }) =>
      sql`select id from people
          where business_id = ${businessId} and email = ${email} and deleted_at is null
          ${exceptPersonId === null ? sql`` : sql`and id <> ${exceptPersonId}`}
          limit 1`
  })
  const idByEmail = SqlSchema.findOneOption({
    Request: Schema.Struct({ businessId: Schema.Number, email: Schema.String }),
    Result: Id,
    execute: ({ businessId, email }) =>
      sql`select id from people where business_id = ${businessId} and lower(email::text) = lower(${email}) and deleted_at is null
          order by id limit 1`
  })
  /**
   * People by id, in id order; `includeDeleted` also finds soft-deleted ones. `lock` (in a
   * transaction): their rows are locked for update, and read as the writer before committed them.
   */
  const findMany = (request: Parameters<typeof find>[0]) =>
    request.ids.length === 0 ? Effect.succeed([] as ReadonlyArray<PersonRow>) : find(request)
  /**
   * Live people among `ids` (to check references). `lock` (in a transaction): their rows are held
   * FOR SHARE, so a deletion (which counts what refers to the person) waits for this transaction,
   * and a deletion committed meanwhile leaves the person out.
   */
  const liveIds = (request: Parameters<typeof existingIds>[0]) =>
    request.ids.length === 0
      ? Effect.succeed(new Set<number>())
      : existingIds(request).pipe(Effect.map((rows) => new Set(rows.map((row) => row.id))))
  return {
    find: orDie(findMany),
    existingIds: orDie(liveIds),
    /** The person of an account in this business (the token's person). */
    personOfAccount: orUndefined(personOfAccount),
    /** The location, when the business has it (a person's home location must exist). */
    location: orUndefined(location),
    /** Another live person of the business with this e-mail address, if any. */
    emailTaken: orUndefined(emailTaken),
    /** The live person of an e-mail address (case-insensitive), if any. */
    idByEmail: orUndefined(idByEmail)
  }
}

/** Writes of people (and the account an e-mail address gets), on the caller's connection. */
const writes = (sql: SqlClient.SqlClient) => {
  const accountForEmail = SqlSchema.findOne({
    Request: Schema.Struct({ email: Schema.String, firstName: Schema.String, lastName: Schema.String }),
    Result: Id,
    execute: ({ email, firstName, lastName }) =>
      sql`insert into accounts (email, first_name, last_name) values (${email}, ${firstName}, ${lastName})
          on conflict (email) do update set email = accounts.email
          returning id`
  })
  const insert = SqlSchema.findOneOption({
    Request: Schema.Struct({ businessId: Schema.Number, write: PersonWrite }),
    Result: Id,
    execute: ({ businessId, write }) =>
      sql`insert into people ${sql.insert({ business_id: businessId, ...defined(write) })}
          on conflict (business_id, email) where email is not null and deleted_at is null do nothing
          returning id`
  })
  const update = SqlSchema.void({
    Request: Schema.Struct({ ...ById.fields, write: PersonWrite }),
    execute: ({ businessId, id, write }) => {
      const fields = defined(write)
      return sql`update people set updated_at = now()
                 ${Object.keys(fields).length > 0 ? sql`, ${sql.update(fields)}` : sql``}
                 where business_id = ${businessId} and id = ${id}`
    }
  })
  const touch = SqlSchema.void({
    Request: InBusiness,
    execute: ({ businessId, ids }) => sql`update people set updated_at = now() where business_id = ${businessId} and id = any(${bigintArray(ids)})`
  })
  const restore = SqlSchema.void({
    Request: ById,
    execute: ({ businessId, id }) =>
      sql`update people set deleted_at = null, updated_at = now()
          where business_id = ${businessId} and id = ${id} and deleted_at is not null`
  })
  const softDelete = SqlSchema.void({
    Request: ById,
    execute: ({ businessId, id }) =>
      sql`update people set deleted_at = now(), updated_at = now()
          where business_id = ${businessId} and id = ${id} and deleted_at is null`
  })

  /** Bumps `updated_at` of people whose representation changed through another record. */
  const touchMany = (request: typeof InBusiness.Type) => (request.ids.length === 0 ? Effect.void : touch(request))
  return {
    /** The account of an e-mail address, created (without a password) when there is none. */
    accountForEmail: orDie(accountForEmail),
    /** Undefined when a live person of the business already has the e-mail address. */
    insert: orUndefined(insert),
    update: orDie(update),
    touch: orDie(touchMany),
    /**
     * Undoes a soft delete. The unique e-mail index decides whether the address is still free,
     * so its SqlError reaches the caller, who answers the taken address.
     */
    restore: (request: typeof ById.Type) => restore(request).pipe(Effect.catchTag("SchemaError", Effect.die)),
    /** Soft delete: the record stays (reports, history), its e-mail address is free again. */
    softDelete: orDie(softDelete)
  }
}

/** What other records say about people: what keeps one from being deleted, and memberships. */
const standing = (sql: SqlClient.SqlClient) => {
  const deleteBlockers = SqlSchema.findOne({
    Request: Schema.Struct({ ...ById.fields, today: Schema.String }),
    Result: Schema.Struct({
      is_staff: Schema.Boolean,
      dependents: Schema.Number,
      active_plans: Schema.Array(Schema.String),
      open_invoices: Schema.Array(Schema.String)
    }),
    execute: ({ businessId, id, today }) =>
      sql`select exists (select 1 from staff_members s where s.business_id = ${businessId} and s.person_id = ${id}) as is_staff,
                 (select count(*) from person_relationships r
                  join people d on d.business_id = r.business_id and d.id = r.dependent_id and d.deleted_at is null
                  where r.business_id = ${businessId} and r.provider_id = ${id}) as dependents,
                 (select coalesce(json_agg(ap.name order by ap.id), '[]'::json) from plan_people app
                  join plans ap on ap.business_id = app.business_id and ap.id = app.plan_id
                  where app.business_id = ${businessId} and app.person_id = ${id} and ${currentOn(sql, "ap", today)}
                    and (ap.count is null or ${visitsLeft(sql, "ap", id, today)} > 0)) as active_plans,
                 -- Open invoices: issued and not settled (open or on hold), where the person is the payer.
                 (select coalesce(json_agg(oi.invoice_number order by oi.id), '[]'::json) from invoices oi
                  where oi.business_id = ${businessId} and oi.person_id = ${id} and oi.state in ('open', 'on_hold')) as open_invoices`
  })
  // The membership of each person today (business-local at `now`): the newest current
  // consider_member plan not on hold.
  const memberships = SqlSchema.findAll({
    Request: Schema.Struct({ ...InBusiness.fields, now: Schema.Date }),
    Result: Schema.Struct({ person_id: Schema.Number, membership: Schema.String }),
    execute: ({ businessId, ids, now }) => {
      const today = sql`(${now}::timestamptz at time zone (select time_zone from businesses where id = ${businessId}))::date`
      return sql`select distinct on (mp.person_id) mp.person_id, m.name as membership
          from plan_people mp join plans m on m.business_id = mp.business_id and m.id = mp.plan_id
          where mp.business_id = ${businessId} and mp.person_id = any(${bigintArray(ids)}) and m.consider_member
            and ${currentOn(sql, "m", today)} and not ${onHoldOn(sql, "m", today)}
          order by mp.person_id, m.start_date desc, m.id desc`
    }
  })
  /**
   * Each member's current membership name, today in the business's zone at `now` (the plan
   * rules' member: a current consider_member plan not on hold); people without one are absent.
   */
  const membershipsOf = (request: Parameters<typeof memberships>[0]) =>
    request.ids.length === 0
      ? Effect.succeed(new Map<number, string>())
      : memberships(request).pipe(Effect.map((rows) => new Map(rows.map((row) => [row.person_id, row.membership]))))

  return {
    /** What keeps a person from being deleted, among the records that exist so far. */
    deleteBlockers: orDie(deleteBlockers),
    memberships: orDie(membershipsOf)
  }
}

const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  const columns = sql`p.id, p.business_id, p.account_id, p.pronoun, p.first_name, p.middle_name, p.last_name,
    p.email::text as email, p.phone, p.address, p.birthdate, p.guardian_name, p.guardian_email, p.profile_photo_url,
    p.joined_at, p.time_zone, p.location_id, l.name as location_name, l.slug as location_slug,
    p.hidden_at, p.deleted_at, p.created_at, p.updated_at`
  const fromPeople = sql`people p left join locations l on l.business_id = p.business_id and l.id = p.location_id`

  return {
    ...relationsQueries(sql),
    ...listQueries(sql, { columns, fromPeople }),
    ...lookups(sql, { columns, fromPeople }),
    ...writes(sql),
    ...standing(sql)
  }
})

/** The keys of a write that are set (undefined means "leave unchanged"). */
const defined = (write: PersonWrite): Record<string, unknown> =>
  Object.fromEntries(Object.entries(write).filter(([, value]) => value !== undefined))

export class PeopleRepo extends Context.Service<PeopleRepo, Effect.Success<typeof make>>()("studio/PeopleRepo") {
  static readonly layer = Layer.effect(PeopleRepo)(make)
}
