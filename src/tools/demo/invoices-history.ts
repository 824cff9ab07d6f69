import { Effect } from "effect"
import { businessDay, counted, hasRows } from "./business-day.ts"
import { DEMO_PACK } from "./plans-history.ts"

/**
 * The demo's invoices and payments, so the desk's invoice list and a client's invoice answer
 * out of the box:
 *   - every demo plan was sold by a closed invoice on its start date (one item at the plan's
 *     price, the holder its recipient, tied to the plan), paid in full in cash, every third by
 *     check;
 *   - the first expired pack was partly refunded to account credit (three unused classes);
 *   - open invoices for a 10-class pack: the demo client's, two other clients', and one paid in
 *     part in cash.
 * Money: one item per invoice with no override, prorate, discount or coupon, taxed by its
 * product's sales taxes through the money rule of src/billing/invoices/totals.ts, written in SQL below
 * (PRICED): the same tax lines, item and invoice totals the recompute would store; payments are
 * of the total. Deterministic from
 * Clock and the plans' and clients' order; set-based, after the plans (plans-history.ts).
 * Invoice numbers continue the business's counter.
 */

/**
 * The money rule (src/billing/invoices/totals.ts) for an item with no override, prorate, discount or
 * coupon, in SQL: one tax line per sales tax of the product at the tax's own rate (the demo's
 * invoices have no location), half away from zero (PostgreSQL's numeric round):
 * exclusive round(price × rate / 100), added; inclusive price − round(price / (1 + rate / 100)),
 * inside the price. `priced` is `fresh` with included, additional and total.
 */
const PRICED = `lines as (
       select f.item_id, t.id as sales_tax_id, t.name, t.tax_rate, t.inclusive,
              (case when t.inclusive then f.price_cents - round(f.price_cents * 1000000 / (1000000 + t.tax_rate * 10000))
                    else round(f.price_cents * t.tax_rate / 100) end)::int as cents
       from fresh f
       join plan_product_sales_taxes pt on pt.business_id = $1 and pt.plan_product_id = f.plan_product_id
       join sales_taxes t on t.business_id = pt.business_id and t.id = pt.sales_tax_id),
     priced as (
       select f.*, coalesce(x.included, 0)::int as included, coalesce(x.additional, 0)::int as additional,
              f.price_cents + coalesce(x.additional, 0)::int as total
       from fresh f
       left join (select item_id, sum(cents) filter (where inclusive) as included, sum(cents) filter (where not inclusive) as additional
                  from lines group by item_id) x on x.item_id = f.item_id)`
const TAX_LINES = `taxes_made as (
       insert into invoice_item_adjustments (business_id, invoice_item_id, type, name, amount_cents, percent, inclusive, source_type, source_id,
                                             created_at, updated_at)
       select $1, l.item_id, 'TaxAdjustment', l.name, l.cents, l.tax_rate, l.inclusive, 'SalesTax', l.sales_tax_id, f.at, f.at
       from lines l join fresh f on f.item_id = l.item_id join items_made m on m.id = l.item_id
       returning 1)`

/** What a CTE named `fresh` (invoice_id, item_id, k, ...) writes alike: numbers follow the counter. */
const NUMBERS = `base as (select coalesce((select last_number from invoice_numbers where business_id = $1), 0)::bigint as last)`
const BUMP = `numbered as (
       insert into invoice_numbers (business_id, last_number) select $1, base.last + (select count(*) from fresh) from base
       on conflict (business_id) do update set last_number = excluded.last_number
       returning 1)`

/**
 * One closed, paid invoice per plan that no invoice sold yet. $1 business, $2 now, $3 zone.
 */
const invoicePlans = (businessId: number, now: Date, timeZone: string) =>
  counted(
    `with fresh as materialized (
       select pl.id as plan_id, pl.plan_product_id, pl.name, pl.description, pl.price_cents, pl.start_date, pp.person_id,
              least($2::timestamptz, (pl.start_date + time '10:00') at time zone $3) as at,
              row_number() over (order by pl.start_date, pl.id) as k,
              nextval(pg_get_serial_sequence('invoices', 'id')) as invoice_id,
              nextval(pg_get_serial_sequence('invoice_items', 'id')) as item_id
       from plans pl
       join plan_people pp on pp.business_id = pl.business_id and pp.plan_id = pl.id and pp.is_primary
       where pl.business_id = $1 and pl.price_cents > 0 and pl.plan_product_id is not null
         and not exists (select 1 from invoice_item_recipients r where r.business_id = $1 and r.plan_id = pl.id)),
     ${PRICED},
     ${NUMBERS},
     invoices_made as (
       insert into invoices (business_id, id, invoice_number, state, invoice_date, person_id, currency, closed_at,
                             subtotal_cents, included_tax_total_cents, additional_tax_total_cents, total_cents, created_at, updated_at)
       select $1, f.invoice_id, (base.last + f.k)::text, 'closed', f.start_date, f.person_id, b.currency_code, f.at,
              f.price_cents, f.included, f.additional, f.total, f.at, f.at
       from priced f cross join base join businesses b on b.id = $1
       returning id),
     items_made as (
       insert into invoice_items (business_id, id, invoice_id, kind, plan_product_id, name, description, start_date, price_cents,
                                  included_tax_total_cents, additional_tax_total_cents, total_cents, created_at, updated_at)
       select $1, f.item_id, f.invoice_id, 'plan', f.plan_product_id, f.name, f.description, f.start_date, f.price_cents,
              f.included, f.additional, f.total, f.at, f.at
       from priced f join invoices_made m on m.id = f.invoice_id
       returning id),
     ${TAX_LINES},
     recipients_made as (
       insert into invoice_item_recipients (business_id, invoice_item_id, person_id, plan_id)
       select $1, f.item_id, f.person_id, f.plan_id from fresh f join items_made m on m.id = f.item_id
       returning 1),
     payments_made as (
       insert into payments (business_id, invoice_id, person_id, payment_method, payment_type_id, state, amount_cents, description,
                             created_at, updated_at)
       select $1, f.invoice_id, f.person_id, case when f.k % 3 = 0 then 'check' else 'cash' end, case when f.k % 3 = 0 then 3 else 2 end,
              'settled', f.total, case when f.k % 3 = 0 then 'Check' else 'Cash' end, f.at, f.at
       from priced f join invoices_made m on m.id = f.invoice_id
       returning 1),
     ${BUMP}
     select (select count(*) from invoices_made)::int + 0 * (select count(*) from recipients_made)::int
            + 0 * (select count(*) from payments_made)::int + 0 * (select count(*) from numbered)::int
            + 0 * (select count(*) from taxes_made)::int as n`,
    [businessId, now, timeZone]
  )

/**
 * The first expired pack's sale refunded in part (three of its ten classes) to the holder's
 * account credit: a settled refund and its credit entry. $1 business, $2 today, $3 now.
 */
const refundToCredit = (businessId: number, today: string, now: Date) =>
  counted(
    `with target as (
       select p.id as payment_id, p.invoice_id, p.person_id, p.amount_cents,
              nextval(pg_get_serial_sequence('refunds', 'id')) as refund_id
       from plans pl
       join invoice_item_recipients r on r.business_id = pl.business_id and r.plan_id = pl.id
       join invoice_items t on t.business_id = r.business_id and t.id = r.invoice_item_id
       join payments p on p.business_id = t.business_id and p.invoice_id = t.invoice_id and p.state = 'settled'
       where pl.business_id = $1 and pl.type = 'Pack' and pl.count = 10 and pl.end_date < $2::date
         and not exists (select 1 from refunds x where x.business_id = $1 and x.payment_id = p.id)
       order by pl.id
       limit 1),
     refunds_made as (
       insert into refunds (business_id, id, payment_id, invoice_id, payment_type_id, state, amount_cents, description, created_at)
       select $1, t.refund_id, t.payment_id, t.invoice_id, 5, 'settled', t.amount_cents * 3 / 10, 'Account credit', $3 from target t
       returning id, amount_cents),
     credit_made as (
       insert into account_credit_entries (business_id, person_id, amount_cents, reason, refund_id, created_at)
       select $1, t.person_id, m.amount_cents, 'refund', m.id, $3 from target t join refunds_made m on m.id = t.refund_id
       returning 1)
     select (select count(*) from refunds_made)::int + 0 * (select count(*) from credit_made)::int as n`,
    [businessId, today, now]
  )

/**
 * Open invoices for the 10-class pack: the demo client's, the second and fifth clients', and the
 * seventh client's paid in part (a third, in cash). $1 business, $2 today, $3 now, $4 demo client's e-mail.
 */
const openInvoices = (businessId: number, today: string, now: Date, demoClientEmail: string) =>
  counted(
    `with clients as (
       select p.id as person_id, row_number() over (order by p.id)::int as n, p.email = $4 as demo_client
       from people p
       where p.business_id = $1 and p.deleted_at is null and p.email is not null
         and not exists (select 1 from staff_members s where s.business_id = p.business_id and s.person_id = p.id)),
     product as (
       select id, name, description, price_cents from plan_products
       where business_id = $1 and deleted_at is null and kind = 'pack' and name = '${DEMO_PACK}' and price_cents > 0
       order by id limit 1),
     fresh as materialized (
       select c.person_id, c.n, pr.id as plan_product_id, pr.name, pr.description, pr.price_cents,
              $3::timestamptz - (c.n % 5 + 1) * interval '1 day' as at,
              row_number() over (order by c.demo_client desc, c.n) as k,
              nextval(pg_get_serial_sequence('invoices', 'id')) as invoice_id,
              nextval(pg_get_serial_sequence('invoice_items', 'id')) as item_id
       from clients c cross join product pr
       where c.demo_client or c.n in (2, 5, 7)),
     ${PRICED},
     ${NUMBERS},
     invoices_made as (
       insert into invoices (business_id, id, invoice_number, state, invoice_date, person_id, currency, subtotal_cents,
                             included_tax_total_cents, additional_tax_total_cents, total_cents, created_at, updated_at)
       select $1, f.invoice_id, (base.last + f.k)::text, 'open', $2::date, f.person_id, b.currency_code, f.price_cents,
              f.included, f.additional, f.total, f.at, f.at
       from priced f cross join base join businesses b on b.id = $1
       returning id),
     items_made as (
       insert into invoice_items (business_id, id, invoice_id, kind, plan_product_id, name, description, start_date, price_cents,
                                  included_tax_total_cents, additional_tax_total_cents, total_cents, created_at, updated_at)
       select $1, f.item_id, f.invoice_id, 'plan', f.plan_product_id, f.name, f.description, $2::date, f.price_cents,
              f.included, f.additional, f.total, f.at, f.at
       from priced f join invoices_made m on m.id = f.invoice_id
       returning id),
     ${TAX_LINES},
     recipients_made as (
       insert into invoice_item_recipients (business_id, invoice_item_id, person_id)
       select $1, f.item_id, f.person_id from fresh f join items_made m on m.id = f.item_id
       returning 1),
     payments_made as (
       insert into payments (business_id, invoice_id, person_id, payment_method, payment_type_id, state, amount_cents, description,
                             created_at, updated_at)
       select $1, f.invoice_id, f.person_id, 'cash', 2, 'settled', f.total / 3, 'Cash', f.at, f.at
       from priced f join invoices_made m on m.id = f.invoice_id where f.n = 7
       returning 1),
     ${BUMP}
     select (select count(*) from invoices_made)::int + 0 * (select count(*) from recipients_made)::int
            + 0 * (select count(*) from payments_made)::int + 0 * (select count(*) from numbered)::int
            + 0 * (select count(*) from taxes_made)::int as n`,
    [businessId, today, now, demoClientEmail]
  )

/** Seeds the invoices while the demo has none; answers how many invoices and refunds it wrote. */
export const seedDemoInvoices = (businessId: number, nowMs: number, demoClientEmail: string) =>
  Effect.gen(function* () {
    if (yield* hasRows("invoices", businessId)) return { invoices: 0, refunds: 0 }
    const { now, timeZone, today } = yield* businessDay(businessId, nowMs)
    const sold = yield* invoicePlans(businessId, now, timeZone)
    const refunds = yield* refundToCredit(businessId, today, now)
    const open = yield* openInvoices(businessId, today, now, demoClientEmail)
    return { invoices: sold + open, refunds }
  }).pipe(Effect.orDie)
