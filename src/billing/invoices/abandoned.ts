import { Clock, Effect } from "effect"
import { InvoicesRepo } from "./repo.ts"

/**
 * Abandoned carts: an invoice left in `cart` or `cart_hidden` and untouched (updated_at) for
 * ABANDONED_CART_HOURS is canceled by a scheduled job (workers/crontab.ts). Canceled, not
 * deleted: its number stays used and the record explains the gap; nothing was paid on a cart.
 * Batches lock their rows (`skip locked`), so two runs never cancel one cart twice and a cart
 * being changed by a request is left to the next run.
 */
export const ABANDONED_CART_HOURS = 24
const BATCH = 500

export const cancelAbandonedCarts = Effect.fn("Invoices.cancelAbandoned")(function* () {
  const repo = yield* InvoicesRepo
  const nowMs = yield* Clock.currentTimeMillis
  const before = new Date(nowMs - ABANDONED_CART_HOURS * 3_600_000)
  let canceled = 0
  for (;;) {
    const batch = yield* repo.cancelAbandoned({ before, now: new Date(nowMs), limit: BATCH })
    canceled += batch.length
    if (batch.length < BATCH) return canceled
  }
})
