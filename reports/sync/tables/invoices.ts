import { businessColumns, franchiseId, franchiseJoin, fullName, localTime, type StoreTable } from "./types.ts"

/**
 * Invoices (`invoices`): one row per invoice that left the checkout, i.e. in state open,
 * on_hold, closed or canceled. Carts (`cart`, `cart_hidden`) are a checkout in progress, not an
 * issued invoice, and the spec's `invoice_state` has no value for them: they are not reported
 * until they leave the cart (a cart canceled as abandoned does show, as `canceled`, since its
 * number is spent).
 *
 * Money follows the Core API's rules (src/invoices/totals.ts, src/invoices/payments.ts), all in
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
export const REPORTED_INVOICE_STATES = ["canceled", "closed", "on_hold", "open"] as const

const split = (amount: string) =>
  `case when i.total_cents = 0 then 0::bigint
        else round(${amount}::numeric * (i.additional_tax_total_cents + i.included_tax_total_cents) / i.total_cents)::bigint end`

export const invoicesTable: StoreTable = {
  name: "invoices",
  businessIdSql: "i.business_id",
  columns: [
    ["key", "VARCHAR NOT NULL"],
    ...businessColumns,
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
    ["purchase_request_state", "VARCHAR"],
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
    ["failed_transactions", "BIGINT"],
    ["refunded_transactions", "BIGINT"],
    ["voided_transactions", "BIGINT"]
  ],
  select: (where) => `
    with chosen as (
      select i.business_id, i.id from invoices i
       where i.state in (${REPORTED_INVOICE_STATES.map((s) => `'${s}'`).join(", ")}) and (${where})),
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
    cpn as (
      -- Coupon lines of the live items (a canceled item is out of the totals).
      select it.business_id, it.invoice_id, sum(ad.amount_cents) as coupons
        from invoice_items it
        join invoice_item_adjustments ad on ad.business_id = it.business_id and ad.invoice_item_id = it.id
       where (it.business_id, it.invoice_id) in (select business_id, id from chosen)
         and it.canceled_at is null and ad.type = 'Discount' and ad.source_type = 'Coupon'
       group by 1, 2),
    money as (
      select i.business_id, i.id,
             coalesce(pay.settled, 0) as payments,
             coalesce(ref.settled, 0) as refunds,
             case when i.state in ('closed', 'canceled') then 0
                  else i.total_cents - coalesce(pay.settled, 0) + coalesce(ref.settled, 0) end as outstanding
        from invoices i
        left join pay on pay.business_id = i.business_id and pay.invoice_id = i.id
        left join ref on ref.business_id = i.business_id and ref.invoice_id = i.id
       where (i.business_id, i.id) in (select business_id, id from chosen))
    select
      i.business_id || '-' || i.id as key,
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
      exists (select 1 from membership_billing_periods mbp
               where mbp.business_id = i.business_id and mbp.invoice_id = i.id) as invoice_autobill,
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
      'not_applicable' as purchase_request_state, -- the spec's value for an invoice that is no purchase request
      i.subtotal_cents::bigint as gross_amount,
      i.adjustment_total_cents::bigint as adjustments_amount,
      (i.discount_total_cents - coalesce(cpn.coupons, 0))::bigint as discounts_amount,
      coalesce(cpn.coupons, 0)::bigint as coupons_amount,
      i.total_cents::bigint as expected_amount,
      (i.additional_tax_total_cents + i.included_tax_total_cents)::bigint as expected_tax_amount,
      m.payments::bigint as payments_amount,
      (-m.refunds)::bigint as refunds_amount,
      (m.payments - m.refunds)::bigint as net_paid_amount,
      ${split("(m.payments - m.refunds)")} as net_paid_tax_amount,
      m.outstanding::bigint as outstanding_amount,
      ${split("m.outstanding")} as outstanding_tax_amount,
      (coalesce(pay.failed, 0) + coalesce(ref.failed, 0))::bigint as failed_transactions,
      coalesce(ref.refunded, 0)::bigint as refunded_transactions,
      (coalesce(pay.voided, 0) + coalesce(ref.voided, 0))::bigint as voided_transactions
    from invoices i
    join money m on m.business_id = i.business_id and m.id = i.id
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
    left join cpn on cpn.business_id = i.business_id and cpn.invoice_id = i.id`
}

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
