import { invoiceItemColumns, invoiceItemCtes, invoiceItemJoins, invoiceItemSelect, itemShare, itemTaxShare } from "./invoice-item-parts.ts"
import { invoiceCountColumns, invoiceCountSelect, invoiceHeaderColumns,
  invoiceMoney, invoiceMoneyColumns, invoiceHeaderSelect, invoiceJoins, invoiceMoneyCtes } from "./invoice-parts.ts"
import { invoiceChanges } from "./invoices.ts"
import type { StoreTable } from "./types.ts"

/**
 * Invoice items (`invoice_items`): one row per live item (invoice-item-parts.ts: canceled items
 * are out, as they are out of the totals) of the invoices the invoices resource reports. The
 * invoice-level fields are the invoices table's own pieces (invoice-parts.ts), so they carry the
 * same values; failed, refunded and voided transactions are the invoice's counts.
 *
 * The item's money, signed as the invoices resource's:
 * - gross: the item's price (inclusive tax is in it); adjustments: its override, prorate and
 *   credit adjustments; coupons: its Discount lines from the coupon; discounts: its other
 *   discounts; expected: its total; expected tax: its exclusive plus inclusive tax lines. So
 *   gross + adjustments + discounts + coupons + exclusive tax = expected, and the items of an
 *   invoice add up to the invoice's figures.
 * - payments, refunds (negative), net paid, outstanding and their tax splits: the invoice's
 *   amounts shared over its live items by expected amount, cumulative rounding (see
 *   invoice-item-parts.ts): an invoice's items always add up to the invoice's amount to the cent.
 */
export const invoiceItemsTable: StoreTable = {
  name: "invoice_items",
  changes: invoiceChanges(false),
  newestFirstBy: "closed_at",
  newestRowsBy: "invoice_item_id",
  columns: [
    ["key", "VARCHAR NOT NULL"],
    ...invoiceHeaderColumns,
    ...invoiceItemColumns,
    ...invoiceMoneyColumns,
    ...invoiceCountColumns
  ],
  select: (where) => `
    with ${invoiceMoneyCtes(where)},${invoiceItemCtes}
    select
      i.business_id || '-' || it.id as key,${invoiceHeaderSelect},${invoiceItemSelect},
      it.price_cents::bigint as gross_amount,
      it.adjustment_total_cents::bigint as adjustments_amount,
      (it.discount_total_cents - coalesce(ia.coupons, 0))::bigint as discounts_amount,
      coalesce(ia.coupons, 0)::bigint as coupons_amount,
      lv.total as expected_amount,
      lv.tax as expected_tax_amount,
      ${itemShare(invoiceMoney.payments)} as payments_amount,
      (-${itemShare(invoiceMoney.refunds)}) as refunds_amount,
      ${itemShare(invoiceMoney.payments)} - ${itemShare(invoiceMoney.refunds)} as net_paid_amount,
      ${itemTaxShare(`(${invoiceMoney.payments} - ${invoiceMoney.refunds})`)} as net_paid_tax_amount,
      ${itemShare(invoiceMoney.outstanding)} as outstanding_amount,
      ${itemTaxShare(invoiceMoney.outstanding)} as outstanding_tax_amount,${invoiceCountSelect}
    from live lv
    join invoice_items it on it.business_id = lv.business_id and it.id = lv.id
    join invoices i on i.business_id = it.business_id and i.id = it.invoice_id${invoiceJoins}${invoiceItemJoins}`
}
