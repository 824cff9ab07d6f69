import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { orDie, orUndefined } from "../../shared/statements.ts"
import { BOOKING_COLUMNS, BookingInsert, insertBookingSql } from "./booking-insert.ts"
import { leaseStatements } from "./lease-statements.ts"
import { BOOKING_STATES, BookingRow } from "./model.ts"

/** The SQL of bookings (here) and their leases (lease-statements.ts). Their visits are read and written through src/visits. */
const ById = Schema.Struct({ businessId: Schema.Number, id: Schema.Number })

const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const find = SqlSchema.findOneOption({
    Request: Schema.Struct({ ...ById.fields, lock: Schema.optional(Schema.Boolean) }),
    Result: BookingRow,
    execute: ({ businessId, id, lock }) =>
      sql`select ${sql.literal(BOOKING_COLUMNS)} from bookings b where b.business_id = ${businessId} and b.id = ${id}
          ${lock === true ? sql`for update` : sql``}`
  })
  const byToken = SqlSchema.findOneOption({
    Request: Schema.Struct({ businessId: Schema.Number, scope: Schema.String, token: Schema.String }),
    Result: BookingRow,
    execute: ({ businessId, scope, token }) =>
      sql`select ${sql.literal(BOOKING_COLUMNS)} from bookings b
          where b.business_id = ${businessId} and b.idempotency_scope = ${scope} and b.idempotency_token = ${token}`
  })
  const insert = SqlSchema.findOneOption({
    Request: Schema.Struct({ businessId: Schema.Number, booking: BookingInsert }),
    Result: BookingRow,
    execute: ({ businessId, booking }) => insertBookingSql(sql, businessId, booking)
  })
  const setState = SqlSchema.void({
    Request: Schema.Struct({ ...ById.fields, state: Schema.Literals(BOOKING_STATES), now: Schema.Date }),
    execute: ({ businessId, id, state, now }) =>
      sql`update bookings set state = ${state}, updated_at = ${now},
            completed_at = case when ${state}::text = 'completed' then ${now}::timestamptz else completed_at end,
            expired_at = case when ${state}::text = 'expired' then ${now}::timestamptz else expired_at end
          where business_id = ${businessId} and id = ${id}`
  })
  const remove = SqlSchema.void({
    Request: ById,
    execute: ({ businessId, id }) => sql`delete from bookings where business_id = ${businessId} and id = ${id}`
  })
  const due = SqlSchema.findAll({
    Request: Schema.Struct({ now: Schema.Date, limit: Schema.Number }),
    Result: Schema.Struct({ business_id: Schema.Number, id: Schema.Number }),
    execute: ({ now, limit }) =>
      sql`select business_id, id from bookings where state = 'incomplete' and expires_at <= ${now}
          order by expires_at limit ${limit}`
  })

  return {
    /** One booking; `lock` takes its row lock for the transaction (completion, expiry, removal). */
    find: orUndefined(find),
    byToken: orUndefined(byToken),
    /**
     * Inserts a booking and answers it as written; None when another booking already has its idempotency token (the
     * unique index decides between concurrent repeats: the later one waits for the earlier to
     * commit and then finds the conflict).
     */
    insert: orDie(insert),
    setState: orDie(setState),
    delete: orDie(remove),
    /** Incomplete bookings past their expiry (the sweep for jobs that were lost), oldest first. */
    due: orDie(due),
    ...leaseStatements(sql)
  }
})

export class BookingsRepo extends Context.Service<BookingsRepo, Effect.Success<typeof make>>()("studio/BookingsRepo") {
  static readonly layer = Layer.effect(BookingsRepo)(make)
}
