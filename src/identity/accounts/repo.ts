import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { BusinessRow } from "../business/model.ts"
import { type Page, totalCount } from "../../shared/pagination.ts"
import { orDie, orUndefined } from "../../shared/statements.ts"
import { AccountRow } from "./model.ts"

/** Accounts stand above businesses: their statements name the account, and reach people only through it. */
const OfAccount = Schema.Struct({ accountId: Schema.Number })

const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  const find = SqlSchema.findOneOption({
    Request: OfAccount,
    Result: AccountRow,
    execute: ({ accountId }) => sql`select id, email, first_name, last_name, email_confirmed_at from accounts where id = ${accountId}`
  })
  const businesses = SqlSchema.findAll({
    Request: Schema.Struct({ accountId: Schema.Number, limit: Schema.Number, offset: Schema.Number }),
    Result: Schema.Struct({ ...BusinessRow.fields, total_count: Schema.Number }),
    execute: ({ accountId, limit, offset }) =>
      sql`select b.id, b.name, b.subdomain, b.default_locale, b.currency_code, b.website, b.email_address, b.phone,
                 b.time_zone, false as is_franchise, count(*) over () as total_count
          from businesses b
          where exists (select 1 from people p where p.business_id = b.id and p.account_id = ${accountId} and p.deleted_at is null)
          order by b.name, b.id limit ${limit} offset ${offset}`
  })
  const businessCount = SqlSchema.findAll({
    Request: OfAccount,
    Result: Schema.Struct({ n: Schema.Number }),
    execute: ({ accountId }) =>
      sql`select count(distinct p.business_id) as n from people p where p.account_id = ${accountId} and p.deleted_at is null`
  })
  const people = SqlSchema.findAll({
    Request: OfAccount,
    Result: Schema.Struct({ business_id: Schema.Number, subdomain: Schema.String, person_id: Schema.Number }),
    execute: ({ accountId }) =>
      sql`select p.business_id, b.subdomain, p.id as person_id
          from people p join businesses b on b.id = p.business_id
          where p.account_id = ${accountId} and p.deleted_at is null
          order by b.name, b.id, p.id`
  })
  /** The businesses where the account has a (not deleted) person, by name. */
  const businessesOf = ({ accountId, page }: typeof OfAccount.Type & { readonly page: Page }) =>
    Effect.gen(function* () {
      const rows = yield* businesses({ accountId, limit: page.limit, offset: page.offset })
      return { rows, total: yield* totalCount(rows, page, businessCount({ accountId })) }
    })

  return {
    find: orUndefined(find),
    businesses: orDie(businessesOf),
    /** The account's people, one per business, with the business they belong to. */
    people: orDie(people)
  }
})

export class AccountsRepo extends Context.Service<AccountsRepo, Effect.Success<typeof make>>()("studio/AccountsRepo") {
  static readonly layer = Layer.effect(AccountsRepo)(make)
}
