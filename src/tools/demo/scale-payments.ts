import { Effect } from "effect"
import type { BusinessStatements } from "./scale-sql.ts"

/**
 * The payments of the scale seed's sales (scale-sales.ts wrote `scale_sales` and the invoices):
 * members pay by card on their autobill form of payment; others by card, cash, check or account
 * credit (credited by an import entry first, so no balance goes below zero). A card is a
 * forms_of_payment row per payer with a fake gateway token and charge ids: never card data.
 * Declined first attempts, voided payments and refunds follow the flags of `scale_sales`.
 * Returns how many payments it wrote.
 */
export const seedPayments = ({ count, run }: BusinessStatements) =>
  Effect.gen(function* () {
    // A card (a fake gateway token and what the spec shows, never card data) for every card payer; members' is their autobill card.
    yield* run(`insert into forms_of_payment (business_id, person_id, type, first_name, last_name, autobill, gateway_token, card_type,
                                              expire_month, expire_year, last_four, created_at, updated_at)
      select $1, p.id, 'creditcard', p.first_name, p.last_name, p.is_member, 'tok_seed_' || $1 || '_' || p.id,
             (array['visa', 'master_card', 'american_express', 'discover'])[1 + (p.id % 4)::int], 1 + (p.id % 12)::int,
             extract(year from $3::timestamptz at time zone $2)::int + 1 + (p.id % 4)::int, lpad(((p.id * 7919) % 10000)::text, 4, '0'), p.joined_at, p.joined_at
      from people p where p.business_id = $1 and p.id in (select person_id from scale_sales where method = 'creditcard')`)

    // Payments: a declined first attempt, a voided one, then the settled payment of the total.
    return yield* count(`with rows as (
        select s.invoice_id, s.person_id, s.method, f.id as form_id, f.card_type, f.last_four, t.total_cents as total, s.state, s.at, s.closed_at,
               s.failed_first, s.voided_extra
        from scale_sales s
        join invoices t on t.business_id = $1 and t.id = s.invoice_id
        left join forms_of_payment f on s.method = 'creditcard' and f.business_id = $1 and f.person_id = s.person_id
        where t.total_cents > 0 and s.method is not null),
      wanted as (
        select r.*, 'failed' as pay_state, r.at as pay_at from rows r where r.failed_first
        union all
        select r.*, 'voided', r.at + interval '30 seconds' from rows r where r.voided_extra
        union all
        select r.*, 'settled', r.closed_at from rows r where r.state = 'closed'),
      made as (
        insert into payments (business_id, invoice_id, person_id, payment_method, payment_type_id, form_of_payment_id, state, amount_cents,
                              description, gateway_transaction_id, error_message, created_at, updated_at, voided_at)
        select $1, w.invoice_id, w.person_id, w.method,
               case w.method when 'creditcard' then 1 when 'cash' then 2 when 'check' then 3 else 5 end, w.form_id, w.pay_state, w.total,
               case w.method when 'creditcard' then w.card_type || ' ending in ' || w.last_four when 'cash' then 'Cash' when 'check' then 'Check'
                             else 'Account credit' end,
               case when w.method = 'creditcard' and w.pay_state <> 'failed' then 'ch_seed_' || $1 || '_' || w.invoice_id || '_' || w.pay_state end,
               case when w.pay_state = 'failed' then 'card_declined' end,
               w.pay_at, case when w.pay_state = 'voided' then w.pay_at + interval '5 minutes' else w.pay_at end,
               case when w.pay_state = 'voided' then w.pay_at + interval '5 minutes' end
        from wanted w
        returning id, invoice_id, person_id, payment_type_id, state, amount_cents, description, created_at)
      , credit as (
        insert into account_credit_entries (business_id, person_id, amount_cents, reason, payment_id, created_at)
        select $1, m.person_id, v.amount, v.reason, case when v.reason = 'payment' then m.id end, v.at
        from made m
        cross join lateral (values (m.amount_cents, 'import', m.created_at - interval '1 day'), (-m.amount_cents, 'payment', m.created_at)) v(amount, reason, at)
        where m.payment_type_id = 5 and m.state = 'settled'
        returning 1)
      , refunded as (
        insert into refunds (business_id, payment_id, invoice_id, payment_type_id, state, amount_cents, description, gateway_transaction_id, created_at)
        select $1, m.id, m.invoice_id, m.payment_type_id, 'settled',
               case when s.refund = 'full' then m.amount_cents else greatest(1, m.amount_cents / 2) end, m.description,
               case when m.payment_type_id = 1 then 're_seed_' || $1 || '_' || m.id end, least($3, m.created_at + interval '3 days')
        from made m join scale_sales s on s.invoice_id = m.invoice_id
        where m.state = 'settled' and s.refund is not null and $2::text is not null
        returning 1)
      select (select count(*) from made)::int as n`)
  })
