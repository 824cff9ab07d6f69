import {
  invoiceCountColumns,
  invoiceCountSelect,
  invoiceHeaderColumns,
  invoiceMoneyColumns,
  invoiceHeaderSelect,
  invoiceJoins,
  invoiceMoney,
  invoiceMoneyCtes,
  invoiceTaxShare,
  reportedInvoice
} from "./invoice-parts.ts"
import { type ChangeScope, changeLog, inLogs } from "./change-scope.ts"
import type { StoreTable } from "./types.ts"

/**
 * Invoices whose row may have changed since `$1`, as `(business_id, id)`: every write to an
 * invoice, its items and their adjustments, its payments, refunds and billing periods is logged
 * by trigger in `report_invoice_changes` (migration 0022; payments and refunds do not touch the
 * invoice's `updated_at`, and refunds have none); plus the invoices of payers, creators and
 * commission recipients whose person record changed (names, e-mail, phone, home location), and
 * of sale locations edited. A payer's home location renamed shows at the nightly rebuild.
 */
export const changedInvoicesSql = `
  with changed_people as (select p.business_id, p.id from people p where p.updated_at > $1),
       changed_staff as (select sm.business_id, sm.id from staff_members sm
                          where (sm.business_id, sm.person_id) in (select business_id, id from changed_people))
  select c.business_id, c.invoice_id from report_invoice_changes c where c.changed_at > $1
  union
  select i.business_id, i.id from invoices i
   where (i.business_id, i.person_id) in (select business_id, id from changed_people)
      or (i.business_id, i.created_by_person_id) in (select business_id, id from changed_people)
      or (i.business_id, i.created_by_staff_member_id) in (select business_id, id from changed_staff)
      or (i.business_id, i.commission_recipient_id) in (select business_id, id from changed_staff)
      or (i.business_id, i.location_id) in (select l.business_id, l.id from locations l where l.updated_at > $1)`

export const changedInvoices = changeLog("report_changed_invoices", changedInvoicesSql)

/**
 * A changed invoice's rows in the four invoice tables (invoices, their items, item transactions
 * and transactions; `i` is the invoice) are all read again and replace all its rows of the
 * store: a canceled item, or an invoice's last item gone, leaves no fresh row to replace its old
 * one by key, and an invoice deleted with its uncompleted booking leaves none at all.
 */
export const invoiceChanges = (metrics: boolean): ChangeScope => ({
  logs: [changedInvoices],
  where: inLogs("(i.business_id, i.id)", [changedInvoices]),
  replaces: {
    kind: "within",
    rows: (alias) => `EXISTS (SELECT 1 FROM invoice_scope s WHERE s.business_id = ${alias}.business_id AND s.invoice_id = ${alias}.invoice_id)`
  },
  scope: {
    name: "invoice_scope",
    columns: [["business_id", "BIGINT"], ["invoice_id", "BIGINT"]],
    sql: `select business_id, id as invoice_id from ${changedInvoices.table}`
  },
  metrics
})

/**
 * Invoices (`invoices`): one row per invoice that left the checkout, i.e. in state open,
 * on_hold, closed or canceled. Carts (`cart`, `cart_hidden`) are a checkout in progress, not an
 * issued invoice, and the spec's `invoice_state` has no value for them: they are not reported
 * until they leave the cart (a cart canceled as abandoned does show, as `canceled`, since its
 * number is spent).
 *
 * Money follows the Core API's rules (src/billing/invoices/totals.ts, src/billing/invoices/payments-model.ts), all in
 * cents, signed as stored: reductions (discounts, coupons, prorates) and refunds are negative, so
 * gross + adjustments + discounts + coupons + exclusive tax = expected, and
 * net_paid = payments + refunds.
 *
 * - gross: the items' prices (inclusive tax is in the price); expected: the invoice total;
 *   expected tax: its exclusive plus its inclusive tax lines.
 * - coupons: Discount lines whose source is a Coupon; discounts: the other discounts;
 *   adjustments: the rest of the invoice's adjustment total (override, prorate, credit).
 * - payments / refunds: settled ones only (failed and voided ones are counted apart).
 * - outstanding: total − settled payments + settled refunds while open or on hold, 0 once closed
 *   or canceled (as the Core API answers).
 * - revenue / tax splits of net paid and outstanding: the spec's ratio rule at invoice level,
 *   tax = round(amount × expected_tax / expected), revenue = amount − tax, so the two always add up.
 *
 * `where` is a condition on the invoice `i`.
 */

export const invoicesTable: StoreTable = {
  name: "invoices",
  changes: invoiceChanges(true),
  newestFirstBy: "closed_at",
  newestRowsBy: "invoice_id",
  columns: [
    ["key", "VARCHAR NOT NULL"],
    ...invoiceHeaderColumns,
    ...invoiceMoneyColumns,
    ...invoiceCountColumns
  ],
  select: (where) => `
    with ${invoiceMoneyCtes(where)},
    cpn as (
      -- Coupon lines of the live items (a canceled item is out of the totals).
      select it.business_id, it.invoice_id, sum(ad.amount_cents) as coupons
        from invoice_items it
        join invoice_item_adjustments ad on ad.business_id = it.business_id and ad.invoice_item_id = it.id
       where (it.business_id, it.invoice_id) in (select business_id, id from chosen)
         and it.canceled_at is null and ad.type = 'Discount' and ad.source_type = 'Coupon'
       group by 1, 2)
    select
      i.business_id || '-' || i.id as key,${invoiceHeaderSelect},
      i.subtotal_cents::bigint as gross_amount,
      i.adjustment_total_cents::bigint as adjustments_amount,
      (i.discount_total_cents - coalesce(cpn.coupons, 0))::bigint as discounts_amount,
      coalesce(cpn.coupons, 0)::bigint as coupons_amount,
      i.total_cents::bigint as expected_amount,
      (i.additional_tax_total_cents + i.included_tax_total_cents)::bigint as expected_tax_amount,
      ${invoiceMoney.payments}::bigint as payments_amount,
      (-${invoiceMoney.refunds})::bigint as refunds_amount,
      (${invoiceMoney.payments} - ${invoiceMoney.refunds})::bigint as net_paid_amount,
      ${invoiceTaxShare(`(${invoiceMoney.payments} - ${invoiceMoney.refunds})`)} as net_paid_tax_amount,
      ${invoiceMoney.outstanding}::bigint as outstanding_amount,
      ${invoiceTaxShare(invoiceMoney.outstanding)} as outstanding_tax_amount,${invoiceCountSelect}
    from invoices i${invoiceJoins}
    left join cpn on cpn.business_id = i.business_id and cpn.invoice_id = i.id
    where ${reportedInvoice(where)}`
}
