import { businessesToday } from "./types.ts"
import { invoiceTaxShare, REPORTED_INVOICE_STATES } from "./invoice-parts.ts"

/** The business's calendar date at the sync (invoice due dates are such dates). */
/** The business's calendar date today (`businessesToday`, joined as `b`). */
const today = "b.today"

/**
 * The money of a client row (reports/sync/tables/clients.ts), as CTEs of its SELECT keyed by
 * (business_id, person_id): `pm` lifetime net paid and its revenue part, `li` the last invoice,
 * `credit` the account credit balance. `where` is the clients' condition on the person `p`.
 *
 * - Invoices counted: the invoices resource's (out of the checkout: open, on hold, closed,
 *   canceled), the person being their payer. Net paid = settled payments − settled refunds
 *   (failed and voided ones count for nothing); revenue = net paid less its tax share, invoice
 *   by invoice by the invoices resource's ratio rule, so a client's revenue_amount is the sum of
 *   their invoices' net_paid_revenue_amount.
 * - The last invoice: the latest due on or before today (by due date, then id), open or closed
 *   (canceled, on hold and carts left out); unpaid when open with an amount outstanding.
 * - Account credit: the ledger's balance (as the Core API's include_balances).
 */
export const clientMoneyCtes = (where: string) => `-- Their invoices, each with its net paid.
    inv as (
      select i.business_id, i.person_id, i.id, i.state, i.invoice_date, i.total_cents,
             i.additional_tax_total_cents, i.included_tax_total_cents,
             coalesce((select sum(py.amount_cents) from payments py
                        where py.business_id = i.business_id and py.invoice_id = i.id and py.state = 'settled'), 0)
           - coalesce((select sum(rf.amount_cents) from refunds rf
                        where rf.business_id = i.business_id and rf.invoice_id = i.id and rf.state = 'settled'), 0) as net_paid
      from invoices i
      where i.state in (${REPORTED_INVOICE_STATES.map((s) => `'${s}'`).join(", ")})
        and (i.business_id, i.person_id) in (select p.business_id, p.id from people p where ${where})
      offset 0),
    pm as (
      select i.business_id, i.person_id, sum(i.net_paid) as net_paid,
             sum(i.net_paid - ${invoiceTaxShare("i.net_paid")}) as revenue
      from inv i group by 1, 2),
    li as (
      select distinct on (i.business_id, i.person_id) i.business_id, i.person_id, i.id, i.total_cents, i.invoice_date,
             (i.state = 'open' and i.total_cents - i.net_paid > 0) as unpaid
      from inv i join ${businessesToday} b on b.id = i.business_id
      where i.state in ('open', 'closed') and i.invoice_date <= ${today}
      order by i.business_id, i.person_id, i.invoice_date desc, i.id desc),
    credit as (
      select e.business_id, e.person_id, sum(e.amount_cents) as balance
      from account_credit_entries e
      where (e.business_id, e.person_id) in (select p.business_id, p.id from people p where ${where})
      group by 1, 2)`

/**
 * Payers whose money may have changed since `$1` (a part of clients' changedPeopleSql): invoices
 * written (closed, paid, refunded, voided: logged by trigger in report_invoice_changes, 0022;
 * account credit moves with a payment or a refund, so it is logged there too), forms of payment
 * stored or edited, and invoices that fell due since in the businesses whose day turned (the
 * last invoice turns with the day). A form of payment removed, and account credit imported, show
 * at the nightly rebuild.
 */
export const changedPayersSql = `
  select i.business_id, i.person_id from report_invoice_changes c
    join invoices i on i.business_id = c.business_id and i.id = c.invoice_id where c.changed_at > $1
  union
  select f.business_id, f.person_id from forms_of_payment f where f.updated_at > $1
  union
  select i.business_id, i.person_id
    from ${businessesToday} b
    join invoices i on i.business_id = b.id
     and i.invoice_date > ($1::timestamptz at time zone b.time_zone)::date and i.invoice_date <= ${today}
   where ($1::timestamptz at time zone b.time_zone)::date < ${today} and i.state in ('open', 'closed')`
