import { Effect } from "effect"
import { businessMoney, CurrentBusiness } from "../../access/tenant.ts"
import type { InvoiceRow } from "./rows.ts"
import { ofInvoices } from "./payments-wire.ts"
import { InvoiceRefusals } from "./refusals.ts"

/**
 * The paid-items guard: what an invoice holds of its payers' money is its settled payments less
 * their settled refunds. While that is above zero the invoice's items, prorates and discounts
 * and the settings that move its total (coupon, location: the local tax rate) stay as they were
 * paid for: a 422 until the payments are
 * voided or refunded in full. Failed and voided payments and voided refunds count for nothing.
 * Runs on the locked invoice, and payments lock it too, so a payment and a change never cross.
 */
export const requireUnpaid = Effect.fn("Invoices.requireUnpaid")(function* (invoice: InvoiceRow) {
  const business = yield* CurrentBusiness
  const price = yield* businessMoney
  const money = (yield* ofInvoices(business.id, [invoice], price)).get(invoice.id)
  const held = (money?.payments ?? [])
    .filter((payment) => payment.state === "settled")
    .reduce(
      (sum, payment) =>
        sum + payment.amount_cents - payment.refunds.filter((refund) => refund.state === "settled").reduce((r, refund) => r + refund.amount_cents, 0),
      0
    )
  if (held > 0) return yield* InvoiceRefusals.invoiceHasPayments.fail({ id: invoice.id, amount: price(held) })
})
