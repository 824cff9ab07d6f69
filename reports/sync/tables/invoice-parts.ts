import { franchiseId, franchiseJoin, fullName, localTime } from "./types.ts"

/**
 * The SQL pieces the invoice-based tables share (invoices, invoice_items,
 * invoice_item_transactions), so an invoice-level field has one source and the same value in
 * each. All are written over the invoice `i`; `where` is a condition on it.
 *
 * - `invoiceMoneyCtes`: the CTEs `chosen` (the reported invoices), `pay` and `ref` (settled
 *   sums and failed/voided counts of its payments and refunds) and `autobilled`; `invoiceMoney`
 *   (payments, refunds, outstanding as the Core API answers them) reads `pay` and `ref`.
 * - `invoiceHeaderColumns` / `invoiceHeaderSelect` / `invoiceJoins`: the invoice-level detail
 *   columns (business, payer, dates, creator...) in one order, their expressions, their joins.
 * - `invoiceCountColumns` / `invoiceCountSelect`: failed, refunded and voided transactions.
 */
export const REPORTED_INVOICE_STATES = ["canceled", "closed", "on_hold", "open"] as const

export const invoiceMoneyCtes = (where: string) => `
    chosen as (
      select i.business_id, i.id from invoices i where ${reportedInvoice(where)}),
    pay as (
      select py.business_id, py.invoice_id,
             coalesce(sum(py.amount_cents) filter (where py.state = 'settled'), 0) as settled,
             count(*) filter (where py.state = 'failed') as failed,
             count(*) filter (where py.state = 'voided') as voided
        from payments py where (py.business_id, py.invoice_id) in (select business_id, id from chosen)
       group by 1, 2),
    ref as (
      select rf.business_id, rf.invoice_id,
             coalesce(sum(rf.amount_cents) filter (where rf.state = 'settled'), 0) as settled,
             count(*) filter (where rf.state = 'settled') as refunded,
             count(*) filter (where rf.state = 'failed') as failed,
             count(*) filter (where rf.state = 'voided') as voided
        from refunds rf where (rf.business_id, rf.invoice_id) in (select business_id, id from chosen)
       group by 1, 2),
    autobilled as (
      select distinct mbp.business_id, mbp.invoice_id from membership_billing_periods mbp
       where (mbp.business_id, mbp.invoice_id) in (select business_id, id from chosen))`

/**
 * An invoice's payments, refunds and outstanding amount as the Core API answers them, over the
 * invoice `i` and its `pay` and `ref` rows (joined by `invoiceJoins`). Expressions, not a CTE
 * joined back: a join to a CTE leaves the planner guessing its selectivity, and a guess of a
 * tenth of the rows turned the joins after it into hashes of the wide side, or nested loops.
 */
export const invoiceMoney = {
  payments: "coalesce(pay.settled, 0)",
  refunds: "coalesce(ref.settled, 0)",
  outstanding: `(case when i.state in ('closed', 'canceled') then 0
                      else i.total_cents - coalesce(pay.settled, 0) + coalesce(ref.settled, 0) end)`
} as const

/** The reported invoices as a condition on the invoice `i` (the rows `chosen` holds). */
export const reportedInvoice = (where: string) =>
  `i.state in (${REPORTED_INVOICE_STATES.map((s) => `'${s}'`).join(", ")}) and (${where})`

export const invoiceHeaderColumns: ReadonlyArray<readonly [string, string]> = [
  ["business_id", "BIGINT NOT NULL"],
  ["business_name", "VARCHAR"],
  ["business_subdomain", "VARCHAR"],
  ["franchise_id", "BIGINT"],
  ["currency_code", "VARCHAR"],
  ["time_zone", "VARCHAR NOT NULL"],
  ["invoice_id", "BIGINT NOT NULL"],
  ["invoice_number", "VARCHAR"],
  ["invoice_state", "VARCHAR"],
  ["closed_at", "TIMESTAMPTZ"],
  ["local_closed_at", "TIMESTAMP"],
  ["issued_at", "TIMESTAMPTZ"],
  ["local_issued_at", "TIMESTAMP"],
  ["invoice_due_date", "DATE"],
  ["invoice_autobill", "BOOLEAN"],
  ["created_by_client", "BOOLEAN"],
  ["created_by_name", "VARCHAR"],
  ["commission_recipient_name", "VARCHAR"],
  ["sale_location_name", "VARCHAR"],
  ["invoice_payer_id", "BIGINT"],
  ["invoice_payer_name", "VARCHAR"],
  ["invoice_payer_email", "VARCHAR"],
  ["invoice_payer_phone", "VARCHAR"],
  ["invoice_payer_home_location", "VARCHAR"],
  ["invoice_payer_primary_staff_name_at_sale", "VARCHAR"],
  ["purchase_order_number", "BIGINT"],
  ["purchase_request_cancel_reason", "VARCHAR"],
  ["purchase_request_message", "VARCHAR"],
  ["purchase_request_state", "VARCHAR"]
]

export const invoiceHeaderSelect = `
      i.business_id,
      b.name as business_name,
      b.subdomain as business_subdomain,
      ${franchiseId("b")} as franchise_id,
      i.currency as currency_code,
      coalesce(l.time_zone, b.time_zone) as time_zone,
      i.id as invoice_id,
      i.invoice_number,
      i.state as invoice_state,
      i.closed_at,
      ${localTime("i.closed_at", "coalesce(l.time_zone, b.time_zone)")} as local_closed_at,
      -- Invoices are issued when created (a cart is reported once it leaves the checkout).
      i.created_at as issued_at,
      ${localTime("i.created_at", "coalesce(l.time_zone, b.time_zone)")} as local_issued_at,
      -- The invoice's own date is when it falls due (the Core API has no separate due date).
      i.invoice_date as invoice_due_date,
      ab.invoice_id is not null as invoice_autobill,
      i.created_by_staff_member_id is null as created_by_client,
      coalesce(${fullName("csp")}, ${fullName("cp")}) as created_by_name,
      ${fullName("crp")} as commission_recipient_name,
      l.name as sale_location_name,
      i.person_id as invoice_payer_id,
      ${fullName("p")} as invoice_payer_name,
      p.email::text as invoice_payer_email,
      p.phone as invoice_payer_phone,
      hl.name as invoice_payer_home_location,
      null::text as invoice_payer_primary_staff_name_at_sale, -- people have no primary staff member yet
      null::bigint as purchase_order_number, -- the Core API has no purchase requests
      null::text as purchase_request_cancel_reason, -- nor their cancel reasons
      null::text as purchase_request_message, -- nor their messages
      -- the spec's value for an invoice that is no purchase request
      'not_applicable' as purchase_request_state`

/** The joins `invoiceHeaderSelect` and the money columns read, after `from invoices i`. */
export const invoiceJoins = `
    join businesses b on b.id = i.business_id
    ${franchiseJoin("b")}
    join people p on p.business_id = i.business_id and p.id = i.person_id
    left join locations hl on hl.business_id = p.business_id and hl.id = p.location_id
    left join locations l on l.business_id = i.business_id and l.id = i.location_id
    left join staff_members cs on cs.business_id = i.business_id and cs.id = i.created_by_staff_member_id
    left join people csp on csp.business_id = cs.business_id and csp.id = cs.person_id
    left join people cp on cp.business_id = i.business_id and cp.id = i.created_by_person_id
    left join staff_members cr on cr.business_id = i.business_id and cr.id = i.commission_recipient_id
    left join people crp on crp.business_id = cr.business_id and crp.id = cr.person_id
    left join pay on pay.business_id = i.business_id and pay.invoice_id = i.id
    left join ref on ref.business_id = i.business_id and ref.invoice_id = i.id
    left join autobilled ab on ab.business_id = i.business_id and ab.invoice_id = i.id`

/** The money columns, in cents, as the invoice and item tables select them (in this order). */
export const invoiceMoneyColumns: ReadonlyArray<readonly [string, string]> = [
  ["gross_amount", "BIGINT"],
  ["adjustments_amount", "BIGINT"],
  ["discounts_amount", "BIGINT"],
  ["coupons_amount", "BIGINT"],
  ["expected_amount", "BIGINT"],
  ["expected_tax_amount", "BIGINT"],
  ["payments_amount", "BIGINT"],
  ["refunds_amount", "BIGINT"],
  ["net_paid_amount", "BIGINT"],
  ["net_paid_tax_amount", "BIGINT"],
  ["outstanding_amount", "BIGINT"],
  ["outstanding_tax_amount", "BIGINT"],
]

export const invoiceCountColumns: ReadonlyArray<readonly [string, string]> = [
  ["failed_transactions", "BIGINT"],
  ["refunded_transactions", "BIGINT"],
  ["voided_transactions", "BIGINT"]
]

export const invoiceCountSelect = `
      (coalesce(pay.failed, 0) + coalesce(ref.failed, 0))::bigint as failed_transactions,
      coalesce(ref.refunded, 0)::bigint as refunded_transactions,
      (coalesce(pay.voided, 0) + coalesce(ref.voided, 0))::bigint as voided_transactions`

/**
 * The invoice-level tax share of an amount (the spec's ratio rule): round(amount × expected tax /
 * expected), half away from zero (on both engines: see invoice-item-parts.ts); revenue is the
 * amount less it, so the two always add up.
 */
export const invoiceTaxShare = (amount: string) =>
  `case when i.total_cents = 0 then 0::bigint
        else round(${amount}::numeric * (i.additional_tax_total_cents + i.included_tax_total_cents) / i.total_cents)::bigint end`
