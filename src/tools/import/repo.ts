import { Array as Arr, Context, Effect, Layer, Option, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import type {
  BusinessInsert,
  LocationInsert,
  CustomFieldInsert,
  CustomFieldOptionInsert,
  AccountUpsert,
  PersonInsert,
  StaffMemberInsert,
  RelationshipInsert,
  FormOfPaymentInsert,
  WaiverInsert,
  SalesTaxInsert,
  PlanProductInsert
} from "./rows.ts"
import { orDie } from "../../shared/statements.ts"

/**
 * The importer's SQL. Every statement runs on the caller's connection, so inside
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

const Id = Schema.Struct({ id: Schema.Number })
const Rows = Schema.Array(Schema.Record(Schema.String, Schema.Unknown))

const PersonSummary = Schema.Struct({
  person_id: Schema.Number,
  email: Schema.String,
  account_id: Schema.NullOr(Schema.Number),
  staff_member_id: Schema.NullOr(Schema.Number),
  role: Schema.NullOr(Schema.String)
})

const idOf = Option.map((row: { readonly id: number }) => row.id)

/** Plain inserts of `table` in chunks. */
const insertAllOf = (sql: SqlClient.SqlClient) => (table: string, rows: ReadonlyArray<object>) =>
  Effect.forEach(chunked(rows), (chunk) => sql`insert into ${sql(table)} ${sql.insert(chunk)}`, { discard: true }).pipe(Effect.orDie)

/** Accounts and people: accounts shared across businesses, person ids drawn first, then the rows. */
const peopleWrites = (sql: SqlClient.SqlClient) => {
  const insertAll = insertAllOf(sql)
  const upsertAccounts = SqlSchema.findAll({
    Request: Rows,
    Result: Schema.Struct({ id: Schema.Number, email: Schema.String, inserted: Schema.Boolean }),
    execute: (rows) =>
      sql`insert into accounts ${sql.insert(rows as Arr.NonEmptyReadonlyArray<Record<string, unknown>>)}
          on conflict (email) do update set
            first_name = case when accounts.first_name = '' then excluded.first_name else accounts.first_name end,
            last_name = case when accounts.last_name = '' then excluded.last_name else accounts.last_name end,
            password_hash = coalesce(accounts.password_hash, excluded.password_hash)
          returning id, email::text as email, (xmax = 0) as inserted`
  })

  const reservePersonIds = SqlSchema.findAll({
    Request: Schema.Struct({ count: Schema.Number }),
    Result: Id,
    execute: ({ count }) => sql`select nextval(pg_get_serial_sequence('people', 'id')) as id from generate_series(1, ${count})`
  })
  return {
    /**
     * One account per e-mail address across businesses. An existing account keeps its password
     * and names (an import must not take over someone's login); it only gains what it lacks.
     * Returns every account by lower-cased e-mail, and whether this import created it.
     */
    upsertAccounts: (rows: ReadonlyArray<AccountUpsert>) =>
      Effect.gen(function* () {
        const accounts = new Map<string, { readonly id: number; readonly inserted: boolean }>()
        for (const chunk of chunked(rows)) {
          for (const row of yield* upsertAccounts(chunk)) accounts.set(row.email.toLowerCase(), { id: row.id, inserted: row.inserted })
        }
        return accounts
      }).pipe(Effect.orDie),

    /**
     * Person ids are drawn from the table's identity sequence before the insert, so the
     * importer knows each person's id (dependents have no natural key to match returned rows by).
     */
    reservePersonIds: orDie(({ count }: { readonly count: number }) =>
      count === 0
        ? Effect.succeed([] as ReadonlyArray<number>)
        : reservePersonIds({ count }).pipe(Effect.map((rows): ReadonlyArray<number> => rows.map((row) => row.id)))
    ),

    insertPeople: (rows: ReadonlyArray<PersonInsert>) => insertAll("people", rows),

    insertStaffMembers: (rows: ReadonlyArray<StaffMemberInsert>) => insertAll("staff_members", rows),

    insertRelationships: (rows: ReadonlyArray<RelationshipInsert>) => insertAll("person_relationships", rows),

    insertWaivers: (rows: ReadonlyArray<WaiverInsert>) => insertAll("waivers", rows),
    insertFormsOfPayment: (rows: ReadonlyArray<FormOfPaymentInsert>) => insertAll("forms_of_payment", rows),
  }
}

/** Lookups of the operator CLI (`business create`, `token`) and the demo seed. */
const lookupStatements = (sql: SqlClient.SqlClient) => {
  const businessId = SqlSchema.findOneOption({
    Request: Schema.Struct({ subdomain: Schema.String }),
    Result: Id,
    execute: ({ subdomain }) => sql`select id from businesses where subdomain = ${subdomain}`
  })

  const accountId = SqlSchema.findOneOption({
    Request: Schema.Struct({ email: Schema.String }),
    Result: Id,
    execute: ({ email }) => sql`select id from accounts where email = ${email}`
  })

  const PersonOfAccount = Schema.Struct({ businessId: Schema.Number, accountId: Schema.Number })
  const personOfAccount = SqlSchema.findOneOption({
    Request: PersonOfAccount,
    Result: Id,
    execute: ({ businessId, accountId }) =>
      sql`select id from people where business_id = ${businessId} and account_id = ${accountId} and deleted_at is null`
  })

  const PersonByEmail = Schema.Struct({ businessId: Schema.Number, email: Schema.String })
  const personByEmail = SqlSchema.findOneOption({
    Request: PersonByEmail,
    Result: PersonSummary,
    execute: ({ businessId, email }) =>
      sql`select p.id as person_id, p.email::text as email, p.account_id, s.id as staff_member_id, s.role
          from people p left join staff_members s on s.business_id = p.business_id and s.person_id = p.id
          where p.business_id = ${businessId} and p.email = ${email} and p.deleted_at is null`
  })

  return {
    findBusinessId: orDie((request: { readonly subdomain: string }) => businessId(request).pipe(Effect.map(idOf))),

    findAccountId: orDie((request: { readonly email: string }) => accountId(request).pipe(Effect.map(idOf))),

    /** The live person of an account in a business. */
    findPersonOfAccount: orDie((request: typeof PersonOfAccount.Type) => personOfAccount(request).pipe(Effect.map(idOf))),

    findPersonByEmail: orDie(personByEmail)
  }
}

const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const insertAll = insertAllOf(sql)

  const insertBusiness = SqlSchema.findOneOption({
    Request: Schema.Struct({
      subdomain: Schema.String,
      name: Schema.String,
      time_zone: Schema.String,
      currency_code: Schema.String,
      default_locale: Schema.String,
      franchise_parent_id: Schema.NullOr(Schema.Number),
      website: Schema.NullOr(Schema.String),
      email_address: Schema.NullOr(Schema.String),
      phone: Schema.NullOr(Schema.String),
      brand_colors: Schema.Record(Schema.String, Schema.String),
      logo_url: Schema.NullOr(Schema.String),
      cover_photo_url: Schema.NullOr(Schema.String)
    }),
    Result: Id,
    execute: (row) =>
      sql`insert into businesses (subdomain, name, time_zone, currency_code, default_locale, franchise_parent_id,
                                  website, email_address, phone, brand_colors, logo_url, cover_photo_url)
          values (${row.subdomain}, ${row.name}, ${row.time_zone}, ${row.currency_code}, ${row.default_locale},
                  ${row.franchise_parent_id}, ${row.website}, ${row.email_address}, ${row.phone},
                  ${JSON.stringify(row.brand_colors)}::jsonb, ${row.logo_url}, ${row.cover_photo_url})
          on conflict (subdomain) do nothing
          returning id`
  })

  const insertKeyed = SqlSchema.findAll({
    Request: Schema.Struct({
      table: Schema.Literals(["locations", "custom_fields", "revenue_categories", "sales_taxes"]),
      keyColumn: Schema.Literals(["slug", "name"]),
      rows: Rows
    }),
    Result: Schema.Struct({ id: Schema.Number, key: Schema.String }),
    execute: ({ table, keyColumn, rows }) =>
      sql`insert into ${sql(table)} ${sql.insert(rows as Arr.NonEmptyReadonlyArray<Record<string, unknown>>)}
          returning id, ${sql(keyColumn)}::text as key`
  })

  /**
   * Inserts rows of `table` in chunks and returns the new ids by the value of `keyColumn`,
   * unique in the business (a location's slug, a custom field's name): how later rows refer to them.
   */
  const insertReturningIds = (
    table: "locations" | "custom_fields" | "revenue_categories" | "sales_taxes",
    keyColumn: "slug" | "name",
    rows: ReadonlyArray<object>
  ) =>
    Effect.gen(function* () {
      const ids = new Map<string, number>()
      for (const chunk of chunked(rows)) {
        for (const row of yield* insertKeyed({ table, keyColumn, rows: chunk })) ids.set(row.key, row.id)
      }
      return ids
    }).pipe(Effect.orDie)

  const insertPlanProduct = SqlSchema.findOne({
    Request: Schema.Record(Schema.String, Schema.Unknown),
    Result: Id,
    execute: (row) => sql`insert into plan_products ${sql.insert(row)} returning id`
  })

  return {
    /** None when the subdomain is taken, also by an import committing concurrently. */
    insertBusiness: (row: BusinessInsert) => insertBusiness(row).pipe(Effect.map(idOf), Effect.orDie),

    insertLocations: (rows: ReadonlyArray<LocationInsert>) => insertReturningIds("locations", "slug", rows),

    insertCustomFields: (rows: ReadonlyArray<CustomFieldInsert>) => insertReturningIds("custom_fields", "name", rows),

    insertCustomFieldOptions: (rows: ReadonlyArray<CustomFieldOptionInsert>) => insertAll("custom_field_options", rows),

    /** The catalog: revenue categories and sales taxes by name, then each plan product and what hangs off it. */
    insertRevenueCategories: (rows: ReadonlyArray<{ readonly business_id: number; readonly name: string }>) =>
      insertReturningIds("revenue_categories", "name", rows),
    insertSalesTaxes: (rows: ReadonlyArray<SalesTaxInsert>) => insertReturningIds("sales_taxes", "name", rows),
    insertPlanProduct: (row: PlanProductInsert) =>
      insertPlanProduct(Object.fromEntries(Object.entries(row))).pipe(Effect.map((inserted) => inserted.id), Effect.orDie),
    insertCatalogLinks: ({ table, rows }: {
      readonly table: "sales_tax_locations" | "plan_product_services" | "plan_product_sales_taxes" | "plan_product_staff_prices"
      readonly rows: ReadonlyArray<object>
    }) => insertAll(table, rows),

    insertMakeUpReasons: (rows: ReadonlyArray<{ readonly business_id: number; readonly name: string; readonly position: number }>) =>
      insertAll("make_up_reasons", rows),
    ...peopleWrites(sql),
    ...lookupStatements(sql)

  }
})

export class ImportRepo extends Context.Service<ImportRepo, Effect.Success<typeof make>>()("studio/ImportRepo") {
  static readonly layer = Layer.effect(ImportRepo)(make)
}
