import { Array as Arr, Effect, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"

/**
 * The importer's SQL. Every function runs on the caller's connection, so inside
 * `sql.withTransaction` they all commit or roll back together. Rows go in as multi-row
 * inserts, a few hundred a statement (PostgreSQL takes at most 65535 parameters).
 * Database failures are defects here, at the repo boundary.
 */
const CHUNK = 500

const chunked = <A extends object>(rows: ReadonlyArray<A>): ReadonlyArray<Arr.NonEmptyReadonlyArray<Record<string, unknown>>> => {
  const out: Array<Arr.NonEmptyReadonlyArray<Record<string, unknown>>> = []
  for (let i = 0; i < rows.length; i += CHUNK) {
    const chunk: Array<Record<string, unknown>> = rows.slice(i, i + CHUNK).map((row) => Object.fromEntries(Object.entries(row)))
    if (Arr.isReadonlyArrayNonEmpty(chunk)) out.push(chunk)
  }
  return out
}

const IdRow = Schema.Struct({ id: Schema.Number })
const decodeIds = Schema.decodeUnknownEffect(Schema.Array(IdRow))
const decodeKeyedIds = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ id: Schema.Number, key: Schema.String })))
const decodeAccounts = Schema.decodeUnknownEffect(
  Schema.Array(Schema.Struct({ id: Schema.Number, email: Schema.String, inserted: Schema.Boolean }))
)

export const findBusinessId = Effect.fn("ImportRepo.findBusinessId")(function* (subdomain: string) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql`select id from businesses where subdomain = ${subdomain}`.pipe(Effect.flatMap(decodeIds))
  return Option.fromNullishOr(rows[0]?.id)
}, Effect.orDie)

export interface BusinessInsert {
  readonly subdomain: string
  readonly name: string
  readonly time_zone: string
  readonly currency_code: string
  readonly default_locale: string
  readonly franchise_parent_id: number | null
  readonly website: string | null
  readonly email_address: string | null
  readonly phone: string | null
  readonly brand_colors: Readonly<Record<string, string>>
  readonly logo_url: string | null
  readonly cover_photo_url: string | null
}

/** None when the subdomain is taken, also by an import committing concurrently. */
export const insertBusiness = Effect.fn("ImportRepo.insertBusiness")(function* (row: BusinessInsert) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql`
    insert into businesses (subdomain, name, time_zone, currency_code, default_locale, franchise_parent_id,
                            website, email_address, phone, brand_colors, logo_url, cover_photo_url)
    values (${row.subdomain}, ${row.name}, ${row.time_zone}, ${row.currency_code}, ${row.default_locale},
            ${row.franchise_parent_id}, ${row.website}, ${row.email_address}, ${row.phone},
            ${JSON.stringify(row.brand_colors)}::jsonb, ${row.logo_url}, ${row.cover_photo_url})
    on conflict (subdomain) do nothing
    returning id`.pipe(Effect.flatMap(decodeIds))
  return Option.fromNullishOr(rows[0]?.id)
}, Effect.orDie)

export interface LocationInsert {
  readonly business_id: number
  readonly name: string
  readonly slug: string
  readonly address: string | null
  readonly latitude: number | null
  readonly longitude: number | null
  readonly phone: string | null
  readonly description: string | null
  readonly time_zone: string
  readonly show_in_client_mode: boolean
  readonly position: number
}

/**
 * Inserts rows of `table` in chunks and returns the new ids by the value of `keyColumn`,
 * unique in the business (a location's slug, a custom field's name): how later rows refer to them.
 */
const insertReturningIds = (table: string, keyColumn: string, rows: ReadonlyArray<object>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const ids = new Map<string, number>()
    for (const chunk of chunked(rows)) {
      const inserted = yield* sql`insert into ${sql(table)} ${sql.insert(chunk)} returning id, ${sql(keyColumn)}::text as key`.pipe(
        Effect.flatMap(decodeKeyedIds)
      )
      for (const row of inserted) ids.set(row.key, row.id)
    }
    return ids
  })

export const insertLocations = Effect.fn("ImportRepo.insertLocations")(function* (rows: ReadonlyArray<LocationInsert>) {
  return yield* insertReturningIds("locations", "slug", rows)
}, Effect.orDie)

export interface CustomFieldInsert {
  readonly business_id: number
  readonly name: string
  readonly why: string | null
  readonly data_type: string
  readonly multi_select: boolean
  readonly hidden_in_client_mode: boolean
  readonly required: boolean
  readonly position: number
}

export const insertCustomFields = Effect.fn("ImportRepo.insertCustomFields")(function* (
  rows: ReadonlyArray<CustomFieldInsert>
) {
  return yield* insertReturningIds("custom_fields", "name", rows)
}, Effect.orDie)

export interface CustomFieldOptionInsert {
  readonly business_id: number
  readonly custom_field_id: number
  readonly value: string
  readonly position: number
}

export const insertCustomFieldOptions = Effect.fn("ImportRepo.insertCustomFieldOptions")(function* (
  rows: ReadonlyArray<CustomFieldOptionInsert>
) {
  const sql = yield* SqlClient.SqlClient
  for (const chunk of chunked(rows)) yield* sql`insert into custom_field_options ${sql.insert(chunk)}`
}, Effect.orDie)

export interface AccountUpsert {
  readonly email: string
  readonly first_name: string
  readonly last_name: string
  readonly password_hash: string | null
}

/**
 * One account per e-mail address across businesses. An existing account keeps its password
 * and names (an import must not take over someone's login); it only gains what it lacks.
 * Returns every account by lower-cased e-mail, and whether this import created it.
 */
export const upsertAccounts = Effect.fn("ImportRepo.upsertAccounts")(function* (rows: ReadonlyArray<AccountUpsert>) {
  const sql = yield* SqlClient.SqlClient
  const accounts = new Map<string, { readonly id: number; readonly inserted: boolean }>()
  for (const chunk of chunked(rows)) {
    const upserted = yield* sql`
      insert into accounts ${sql.insert(chunk)}
      on conflict (email) do update set
        first_name = case when accounts.first_name = '' then excluded.first_name else accounts.first_name end,
        last_name = case when accounts.last_name = '' then excluded.last_name else accounts.last_name end,
        password_hash = coalesce(accounts.password_hash, excluded.password_hash)
      returning id, email::text as email, (xmax = 0) as inserted`.pipe(Effect.flatMap(decodeAccounts))
    for (const row of upserted) accounts.set(row.email.toLowerCase(), { id: row.id, inserted: row.inserted })
  }
  return accounts
}, Effect.orDie)

/**
 * Person ids are drawn from the table's identity sequence before the insert, so the
 * importer knows each person's id (dependents have no natural key to match returned rows by).
 */
export const reservePersonIds = Effect.fn("ImportRepo.reservePersonIds")(function* (count: number) {
  if (count === 0) return [] as ReadonlyArray<number>
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql`select nextval(pg_get_serial_sequence('people', 'id')) as id
                          from generate_series(1, ${count})`.pipe(Effect.flatMap(decodeIds))
  return rows.map((row) => row.id)
}, Effect.orDie)

export interface PersonInsert {
  readonly business_id: number
  readonly id: number
  readonly account_id: number | null
  readonly first_name: string
  readonly middle_name: string | null
  readonly last_name: string
  readonly email: string | null
  readonly phone: string | null
  readonly birthdate: string | null
  readonly is_member: boolean
  readonly location_id: number | null
}

export const insertPeople = Effect.fn("ImportRepo.insertPeople")(function* (rows: ReadonlyArray<PersonInsert>) {
  const sql = yield* SqlClient.SqlClient
  for (const chunk of chunked(rows)) yield* sql`insert into people ${sql.insert(chunk)}`
}, Effect.orDie)

export interface StaffMemberInsert {
  readonly business_id: number
  readonly person_id: number
  readonly role: string
  readonly bio: string | null
  readonly hidden_in_client_mode: boolean
}

export const insertStaffMembers = Effect.fn("ImportRepo.insertStaffMembers")(function* (
  rows: ReadonlyArray<StaffMemberInsert>
) {
  const sql = yield* SqlClient.SqlClient
  for (const chunk of chunked(rows)) yield* sql`insert into staff_members ${sql.insert(chunk)}`
}, Effect.orDie)

export interface RelationshipInsert {
  readonly business_id: number
  readonly provider_id: number
  readonly dependent_id: number
}

export const insertRelationships = Effect.fn("ImportRepo.insertRelationships")(function* (
  rows: ReadonlyArray<RelationshipInsert>
) {
  const sql = yield* SqlClient.SqlClient
  for (const chunk of chunked(rows)) yield* sql`insert into person_relationships ${sql.insert(chunk)}`
}, Effect.orDie)

export interface WaiverInsert {
  readonly business_id: number
  readonly person_id: number
  readonly name: string
  readonly type: "Waiver" | "GuardianWaiver"
  readonly signer_id: number | null
  readonly signing_url: string | null
  readonly accepted: boolean
}

export const insertWaivers = Effect.fn("ImportRepo.insertWaivers")(function* (rows: ReadonlyArray<WaiverInsert>) {
  const sql = yield* SqlClient.SqlClient
  for (const chunk of chunked(rows)) yield* sql`insert into waivers ${sql.insert(chunk)}`
}, Effect.orDie)

export const insertMakeUpReasons = Effect.fn("ImportRepo.insertMakeUpReasons")(function* (
  rows: ReadonlyArray<{ readonly business_id: number; readonly name: string; readonly position: number }>
) {
  const sql = yield* SqlClient.SqlClient
  for (const chunk of chunked(rows)) yield* sql`insert into make_up_reasons ${sql.insert(chunk)}`
}, Effect.orDie)

// Lookups of the operator CLI (`business create`, `token`).

const PersonSummary = Schema.Struct({
  person_id: Schema.Number,
  email: Schema.String,
  account_id: Schema.NullOr(Schema.Number),
  staff_member_id: Schema.NullOr(Schema.Number),
  role: Schema.NullOr(Schema.String)
})
const decodePersonSummaries = Schema.decodeUnknownEffect(Schema.Array(PersonSummary))

export const findAccountId = Effect.fn("ImportRepo.findAccountId")(function* (email: string) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql`select id from accounts where email = ${email}`.pipe(Effect.flatMap(decodeIds))
  return Option.fromNullishOr(rows[0]?.id)
}, Effect.orDie)

/** The live person of an account in a business. */
export const findPersonOfAccount = Effect.fn("ImportRepo.findPersonOfAccount")(function* (businessId: number, accountId: number) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql`select id from people
                          where business_id = ${businessId} and account_id = ${accountId} and deleted_at is null`.pipe(
    Effect.flatMap(decodeIds)
  )
  return Option.fromNullishOr(rows[0]?.id)
}, Effect.orDie)

export const findPersonByEmail = Effect.fn("ImportRepo.findPersonByEmail")(function* (businessId: number, email: string) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql`
    select p.id as person_id, p.email::text as email, p.account_id, s.id as staff_member_id, s.role
    from people p left join staff_members s on s.business_id = p.business_id and s.person_id = p.id
    where p.business_id = ${businessId} and p.email = ${email} and p.deleted_at is null`.pipe(
    Effect.flatMap(decodePersonSummaries)
  )
  return Option.fromNullishOr(rows[0])
}, Effect.orDie)
