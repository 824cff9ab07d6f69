import { Effect, Layer } from "effect"
import { AccountBalances } from "../../identity/people/balances.ts"
import { PaymentsRepo } from "./payments-repo.ts"

/** People's AccountBalances port: the sum of each person's account credit ledger. */
export const AccountBalancesLive = Layer.effect(AccountBalances)(
  Effect.gen(function* () {
    const repo = yield* PaymentsRepo
    return { balances: (businessId, personIds) => repo.balances({ businessId, ids: personIds }) }
  })
)
