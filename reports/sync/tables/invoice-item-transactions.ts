import { invoiceItemColumns, invoiceItemCtes, invoiceItemJoins, invoiceItemSelect, itemShare, itemTaxShare } from "./invoice-item-parts.ts"
import { invoiceHeaderColumns, invoiceHeaderSelect, invoiceJoins, invoiceMoneyCtes } from "./invoice-parts.ts"
import { transactionColumns, transactionCtes, transactionSelect } from "./transaction-parts.ts"

import { invoiceChanges } from "./invoices.ts"
import type { StoreTable } from "./types.ts"

/**
 * Invoice item transactions (`invoice_item_transactions`): one row per transaction (a payment
 * or a refund of a reported invoice, in any state) and live item of its invoice; the
 * transaction's own fields are transaction-parts.ts's, as the transactions table's.
 *
 * A transaction's money is shared over the invoice's live items by the items' rule
 * (invoice-item-parts.ts, cumulative rounding), so a transaction's rows add up to it exactly; its
 * tax split likewise adds up to round(amount × expected tax / expected).
 */

export const invoiceItemTransactionsTable: StoreTable = {
  name: "invoice_item_transactions",
  changes: invoiceChanges(false),
  columns: [
    ["key", "VARCHAR NOT NULL"],
    ...invoiceHeaderColumns,
    ...invoiceItemColumns,
    ...transactionColumns,
    ["payments_amount", "BIGINT"],
    ["refunds_amount", "BIGINT"],
    ["net_paid_amount", "BIGINT"],
    ["net_paid_tax_amount", "BIGINT"]
  ],
  select: (where) => `
    with ${invoiceMoneyCtes(where)},${invoiceItemCtes},${transactionCtes}
    select
      i.business_id || '-' || left(tx.type, 1) || tx.id || '-' || it.id as key,${invoiceHeaderSelect},${invoiceItemSelect},${transactionSelect},
      case when tx.type = 'payment' then ${itemShare("tx.settled")} else 0 end as payments_amount,
      case when tx.type = 'refund' then ${itemShare("tx.settled")} else 0 end as refunds_amount,
      ${itemShare("tx.settled")} as net_paid_amount,
      ${itemTaxShare("tx.settled")} as net_paid_tax_amount
    from live lv
    join invoice_items it on it.business_id = lv.business_id and it.id = lv.id
    join invoices i on i.business_id = it.business_id and i.id = it.invoice_id
    -- Joined to the invoice's columns, which have statistics: joined to \`live\` (a CTE to a CTE)
    -- the planner guessed a few dozen rows and chose nested loops.
    join moved tx on tx.business_id = i.business_id and tx.invoice_id = i.id${invoiceJoins}${invoiceItemJoins}`
}
