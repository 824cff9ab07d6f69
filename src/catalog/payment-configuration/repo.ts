import { Context, Effect, Layer, Option, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { orDie } from "../../shared/statements.ts"
import { DEFAULT_PAYMENT_CONFIGURATION, PaymentConfigurationRow } from "./model.ts"

const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const find = SqlSchema.findOneOption({
    Request: Schema.Struct({ businessId: Schema.Number }),
    Result: PaymentConfigurationRow,
    execute: ({ businessId }) =>
      sql`select accepted_types, external_methods, accepted_card_types, cvv_required, address_required, postal_required
          from payment_configurations where business_id = ${businessId}`
  })
  /** The business's configuration, or the defaults when it has none of its own. */
  const orDefaults = (request: Parameters<typeof find>[0]) =>
    find(request).pipe(Effect.map((row) => Option.getOrElse(row, () => DEFAULT_PAYMENT_CONFIGURATION)))
  return { find: orDie(orDefaults) }
})

export class PaymentConfigurationRepo extends Context.Service<PaymentConfigurationRepo, Effect.Success<typeof make>>()(
  "studio/PaymentConfigurationRepo"
) {
  static readonly layer = Layer.effect(PaymentConfigurationRepo)(make)
}
