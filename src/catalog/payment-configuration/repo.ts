import { Context, Effect, Layer, Option, Schema } from "effect"
import { SqlClient, SqlSchema, type Statement } from "effect/sql"
import { orDie } from "../../shared/statements.ts"
import { DEFAULT_PAYMENT_CONFIGURATION, PaymentConfigurationRow } from "./model.ts"

/**
 * A business's own configuration row (none: it has none of its own), for a statement that reads it beside what it
 * locks (a payment reads it with its invoice: src/billing/invoices/repo.ts `findToPay`). `businessId`: a value or a
 * column of the enclosing query.
 */
export const paymentConfigurationSql = (sql: SqlClient.SqlClient, businessId: Statement.Fragment | number) =>
  sql`select accepted_types, external_methods, accepted_card_types, cvv_required, address_required, postal_required
      from payment_configurations where business_id = ${businessId}`

/** The configuration a business pays by: its own row, or the defaults when it has none. */
export const paymentConfigurationOf = (row: Option.Option<PaymentConfigurationRow>): PaymentConfigurationRow =>
  Option.getOrElse(row, () => DEFAULT_PAYMENT_CONFIGURATION)

const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const find = SqlSchema.findOneOption({
    Request: Schema.Struct({ businessId: Schema.Number }),
    Result: PaymentConfigurationRow,
    execute: ({ businessId }) => paymentConfigurationSql(sql, businessId)
  })
  /** The business's configuration, or the defaults when it has none of its own. */
  const orDefaults = (request: Parameters<typeof find>[0]) =>
    find(request).pipe(Effect.map(paymentConfigurationOf))
  return { find: orDie(orDefaults) }
})

export class PaymentConfigurationRepo extends Context.Service<PaymentConfigurationRepo, Effect.Success<typeof make>>()(
  "studio/PaymentConfigurationRepo"
) {
  static readonly layer = Layer.effect(PaymentConfigurationRepo)(make)
}
