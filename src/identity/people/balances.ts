import { Context, type Effect } from "effect"

/**
 * Account credit balances for the staff people list (`include_balances`). Account credit is a
 * billing ledger (src/billing/invoices), above people: people declares the question and
 * src/billing/invoices/balances-live.ts answers it; provided in src/app/layers.ts.
 */
export class AccountBalances extends Context.Service<AccountBalances, {
  /** Each person's balance in cents (absent: 0). */
  readonly balances: (businessId: number, personIds: ReadonlyArray<number>) => Effect.Effect<ReadonlyMap<number, number>>
}>()("studio/AccountBalances") {}
