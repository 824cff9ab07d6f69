import { invoiceHeaderColumns, invoiceHeaderSelect, invoiceJoins, invoiceMoneyCtes, invoiceTaxShare, reportedInvoice } from "./invoice-parts.ts"
import { transactionColumns, transactionCtes, transactionSelect } from "./transaction-parts.ts"
import { invoiceChanges } from "./invoices.ts"
import type { StoreTable } from "./types.ts"

/**
 * Transactions (`transactions`): one row per payment or refund of a reported invoice, in any
 * state (failed card attempts, declines and autobill retries alike, are rows, with their
 * error_message; voided ones keep their voided_at). Key `<business_id>-<p|r><id>`.
 *
 * The transaction's own fields are transaction-parts.ts's and its invoice's are
 * invoice-parts.ts's, so each has the value invoice_item_transactions gives it. Money is the
 * transaction's whole amount, not an item's share: payments_amount / refunds_amount / net_paid
 * its settled amount (a refund negative; 0 unless settled), its tax the invoice-level ratio rule,
 * round(net paid × expected tax / expected), which is what its invoice_item_transactions rows'
 * tax shares add up to. An invoice whose items are all canceled has transaction rows here and no
 * item rows there.
 *
 * `where` is a condition on the invoice `i`: a changed invoice's transactions are all read again.
 */
export const transactionsTable: StoreTable = {
  name: "transactions",
  changes: invoiceChanges(false),
  columns: [
    ["key", "VARCHAR NOT NULL"],
    ...invoiceHeaderColumns,
    ...transactionColumns,
    ["payments_amount", "BIGINT"],
    ["refunds_amount", "BIGINT"],
    ["net_paid_amount", "BIGINT"],
    ["net_paid_tax_amount", "BIGINT"]
  ],
  select: (where) => `
    with ${invoiceMoneyCtes(where)},${transactionCtes}
    select
      i.business_id || '-' || left(tx.type, 1) || tx.id as key,${invoiceHeaderSelect},${transactionSelect},
      (case when tx.type = 'payment' then tx.settled else 0 end)::bigint as payments_amount,
      (case when tx.type = 'refund' then tx.settled else 0 end)::bigint as refunds_amount,
      tx.settled::bigint as net_paid_amount,
      ${invoiceTaxShare("tx.settled")} as net_paid_tax_amount
    from invoices i
    join moved tx on tx.business_id = i.business_id and tx.invoice_id = i.id${invoiceJoins}
    where ${reportedInvoice(where)}`
}
