import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { BusinessRow } from "../business/model.ts"
import { type Page, totalCount } from "../shared/pagination.ts"
import { AccountRow } from "./model.ts"

const decodeAccounts = Schema.decodeUnknownEffect(Schema.Array(AccountRow))
const decodeBusinesses = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ ...BusinessRow.fields, total_count: Schema.Number })))

const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  return {
    find: (accountId: number) =>
      sql`select id, email, first_name, last_name, email_confirmed_at from accounts where id = ${accountId}`.pipe(
        Effect.flatMap(decodeAccounts),
        Effect.map((rows) => rows[0]),
        Effect.orDie
      ),

    /** The businesses where the account has a (not deleted) person, by name. */
    businesses: (accountId: number, page: Page) =>
      Effect.gen(function* () {
        const rows = yield* sql`
          select b.id, b.name, b.subdomain, b.default_locale, b.currency_code, b.website, b.email_address, b.phone,
                 b.time_zone, false as is_franchise, count(*) over () as total_count
          from businesses b
          where exists (select 1 from people p where p.business_id = b.id and p.account_id = ${accountId} and p.deleted_at is null)
          order by b.name, b.id limit ${page.limit} offset ${page.offset}`.pipe(Effect.flatMap(decodeBusinesses))
        const total = yield* totalCount(rows, page, sql<{ readonly n: number }>`
          select count(distinct p.business_id) as n from people p where p.account_id = ${accountId} and p.deleted_at is null`)
        return { rows, total }
      }).pipe(Effect.orDie),

    /** The account's people, one per business, with the business they belong to. */
    people: (accountId: number) =>
      sql`select p.business_id, b.subdomain, p.id as person_id
          from people p join businesses b on b.id = p.business_id
          where p.account_id = ${accountId} and p.deleted_at is null
          order by b.name, b.id, p.id`.pipe(
        Effect.flatMap(
          Schema.decodeUnknownEffect(
            Schema.Array(Schema.Struct({ business_id: Schema.Number, subdomain: Schema.String, person_id: Schema.Number }))
          )
        ),
        Effect.orDie
      )
  }
})

export class AccountsRepo extends Context.Service<AccountsRepo, Effect.Success<typeof make>>()("studio/AccountsRepo") {
  static readonly layer = Layer.effect(AccountsRepo)(make)
}
