import { Effect } from "effect"
import { seedPayments } from "./scale-payments.ts"
import { businessStatements, hash, inclusiveTaxOf, percentOf } from "./scale-sql.ts"

/**
 * The sales of one `studio seed scale` business: years of invoices, their items and adjustments,
 * payments, refunds and account credit, written set-based inside PostgreSQL in the business's
 * seeding transaction (no row crosses the wire), in the Core API's tables and by its rules so the
 * report sync reads them as it reads real sales:
 *
 * - Catalog: two sales taxes (Sales Tax 8.875 % exclusive on memberships, Amusement Tax 5 %
 *   inclusive on packs and drop-ins, both on the Intro Month), revenue categories, a 10 % coupon,
 *   and the products: 10-Class and 5-Class Packs, a Drop-in (single_visit_pass) and an Intro Month
 *   (prepaid). There are no retail products in the Core API: drop-ins and the prepaid Intro Month
 *   stand in for retail sales.
 * - Members: the sale invoice of their membership (the plan item, its signup fee, a prorate for
 *   one in five), then one renewal invoice a month while the plan runs, each with its
 *   membership_billing_periods row as automatic billing writes it; 6 % of renewals are declined
 *   once (a failed card payment) and paid by the retry a day later; a renewal of the last day
 *   may still be open after its declined first attempt.
 * - Other clients: 60 % buy a drop-in per class (16 to 44 over their year), the others packs
 *   (1 to 4, an Intro Month first for some); 6 % of pack sales carry the coupon. A sale creates its plan when
 *   closed (Pack or Prepaid, its holder, the recipient's plan_id). About 1 % are canceled, 0.5 %
 *   on hold, and some of the last two days' still open.
 * - Payments: members pay by card (their autobill form of payment); others by card (55 %), cash,
 *   check or account credit (credited by an import entry first). Cards are a forms_of_payment
 *   row per payer with a fake gateway token and charge ids: never card data. About 3 % of paid
 *   sales are refunded (half of them in full), 1 % carry a voided payment, 2 % of card sales
 *   are declined once.
 *
 * Amounts follow src/billing/invoices/totals.ts on integers: prorate, then the coupon's percent
 * (rounded half away from zero), then each tax on what is left (exclusive added, inclusive
 * inside the price), so item total = price + adjustments + discounts + exclusive tax and each
 * invoice's totals are the sums of its items'. "Random" choices are hashes of ids.
 */
export interface SalesCounts {
  readonly invoices: number
  readonly invoiceItems: number
  readonly payments: number
  readonly refunds: number
}


/** Statements get `$1` the business id, `$2` its time zone, `$3` now. */
export const seedSales = (businessId: number, timeZone: string, now: Date) =>
  Effect.gen(function* () {
    const statements = yield* businessStatements(businessId, timeZone, now)
    const { count, run } = statements
    const today = `($3::timestamptz at time zone $2)::date`

    // Catalog: taxes, categories, coupon and the products sold besides the membership.
    yield* run(`insert into sales_taxes (business_id, name, tax_rate, inclusive)
      values ($1, 'Sales Tax', 8.875, false), ($1, 'Amusement Tax', 5, true)`)
    yield* run(`insert into revenue_categories (business_id, name) values ($1, 'Memberships'), ($1, 'Class Packs'), ($1, 'Drop-ins')`)
    yield* run(`insert into coupons (business_id, code, name, description, discount_percent)
      values ($1, 'WELCOME10', 'Welcome 10 %', 'Ten percent off a pack', 10)`)
    yield* run(`update plan_products set revenue_category_id = (select id from revenue_categories where business_id = $1 and name = 'Memberships')
      where business_id = $1 and kind = 'membership'`)
    yield* run(`insert into plan_products (business_id, kind, name, description, price_cents, count, commitment_length, commitment_unit, revenue_category_id)
      select $1, p.kind, p.name, p.description, p.price, p.count, p.months, 'month',
             (select id from revenue_categories where business_id = $1 and name = p.category)
      from (values ('pack', '10-Class Pack', 'Ten classes, valid six months.', 18000, 10, 6, 'Class Packs'),
                   ('pack', '5-Class Pack', 'Five classes, valid three months.', 9500, 5, 3, 'Class Packs'),
                   ('single_visit_pass', 'Drop-in', 'One class.', 2200, 1, 1, 'Drop-ins'),
                   ('prepaid', 'Intro Month', 'A month of classes for new clients.', 9900, null, 1, 'Class Packs'))
           p(kind, name, description, price, count, months, category)`)
    yield* run(`insert into plan_product_sales_taxes (business_id, plan_product_id, sales_tax_id)
      select $1, pp.id, t.id from plan_products pp join sales_taxes t on t.business_id = pp.business_id
      where pp.business_id = $1 and (
        (t.name = 'Sales Tax' and pp.kind in ('membership', 'prepaid')) or (t.name = 'Amusement Tax' and pp.kind <> 'membership'))`)
    yield* run(`create temporary table scale_products on commit drop as
      select pp.id, pp.kind, pp.name, pp.description, pp.price_cents, pp.count, pp.commitment_length, coalesce(pp.signup_fee_cents, 0) as signup_fee_cents,
             ex.id as ex_tax_id, coalesce(round(ex.tax_rate * 10000), 0)::bigint as ex_scaled, ex.tax_rate as ex_rate,
             inc.id as inc_tax_id, coalesce(round(inc.tax_rate * 10000), 0)::bigint as inc_scaled, inc.tax_rate as inc_rate
      from plan_products pp
      left join (plan_product_sales_taxes pe join sales_taxes ex on ex.business_id = pe.business_id and ex.id = pe.sales_tax_id and not ex.inclusive)
        on pe.business_id = pp.business_id and pe.plan_product_id = pp.id
      left join (plan_product_sales_taxes pi join sales_taxes inc on inc.business_id = pi.business_id and inc.id = pi.sales_tax_id and inc.inclusive)
        on pi.business_id = pp.business_id and pi.plan_product_id = pp.id
      where pp.business_id = $1`)

    // One row per invoice to write. kind: sale | renewal (memberships) | pack (every other sale).
    yield* run(`create temporary table scale_sales (
        invoice_id bigint primary key, person_id bigint not null, at timestamptz not null, kind text not null, product_id bigint not null,
        plan_id bigint, period_start date, state text not null, closed_at timestamptz, canceled_at timestamptz, coupon boolean not null,
        prorate integer not null, method text, failed_first boolean not null, refund text, voided_extra boolean not null, online boolean not null
      ) on commit drop`)
    // Members: the sale (period 0) and one renewal a month while the plan runs, up to today.
    yield* run(`insert into scale_sales
      select nextval(pg_get_serial_sequence('invoices', 'id')), m.person_id, m.at, m.kind, m.plan_product_id, m.plan_id, m.period_start,
             case when m.last_open then 'open' else 'closed' end,
             case when m.last_open then null when m.failed then least($3, m.at + interval '1 day') else least($3, m.at + interval '2 minutes') end,
             null, false, m.prorate, 'creditcard', m.failed or m.last_open, null, false, false
      from (
        select pp.person_id, pl.id as plan_id, pl.plan_product_id, ps.period_start,
               case when g = 0 then 'sale' else 'renewal' end as kind,
               case when g = 0 then pl.created_at
                    else least($3 - interval '1 minute', (ps.period_start + time '07:00') at time zone $2) end as at,
               case when g = 0 and ${hash("pl.id * 7")} < 0.2 then (pl.price_cents * (1 + floor(${hash("pl.id * 11")} * 20)::int)) / 30 else 0 end as prorate,
               g > 0 and ${hash("pl.id * 13 + g * 7")} < 0.06 and ps.period_start < ${today} - 1 as failed,
               g > 0 and ps.period_start >= ${today} - 1 and ${hash("pl.id * 13 + g * 7")} < 0.5 as last_open
        from plans pl
        join plan_people pp on pp.business_id = pl.business_id and pp.plan_id = pl.id and pp.is_primary
        cross join lateral (select least(${today}, coalesce(pl.end_date, ${today})) as bound) b
        cross join lateral generate_series(0, (extract(year from age(b.bound, pl.start_date)) * 12 + extract(month from age(b.bound, pl.start_date)))::int) g
        cross join lateral (select (pl.start_date + make_interval(months => g))::date as period_start) ps
        where pl.business_id = $1 and pl.type = 'Membership' and ps.period_start <= b.bound
        offset 0) m`)
    // Everyone else: drop-ins or packs over the year after joining, up to now.
    yield* run(`insert into scale_sales
      select nextval(pg_get_serial_sequence('invoices', 'id')), s.person_id, s.at, 'pack', s.product_id,
             case when s.state = 'closed' then nextval(pg_get_serial_sequence('plans', 'id')) end, null, s.state,
             case when s.state = 'closed' then least($3, s.at + interval '1 minute') end,
             case when s.state = 'canceled' then least($3, s.at + interval '1 hour') end,
             s.buyer = 'pack' and s.u between 0.2 and 0.26, 0, s.method,
             s.method = 'creditcard' and s.v < 0.02,
             case when s.state = 'closed' and s.method <> 'credit' and s.w < 0.015 then 'full'
                  when s.state = 'closed' and s.method <> 'credit' and s.w < 0.03 then 'half' end,
             s.state = 'closed' and s.method <> 'credit' and s.w between 0.5 and 0.51, s.w > 0.6
      from (
        -- offset 0 keeps each subquery's columns computed once per row (not inlined into every use).
        select h.*,
               case when h.v < 0.55 then 'creditcard' when h.v < 0.8 then 'cash' when h.v < 0.9 then 'check' else 'credit' end as method,
               case when h.u < 0.01 then 'canceled' when h.u < 0.015 then 'on_hold'
                    when (h.at at time zone $2)::date >= ${today} - 2 and h.u < 0.1 then 'open'
                    else 'closed' end as state
        from (
          select b.person_id, b.buyer, g, b.at0 + make_interval(secs => (g * 365.0 / b.n + ${hash("b.person_id * 19 + g * 3")}) * 86400) as at,
                 case when b.buyer = 'dropin' then (select id from scale_products where kind = 'single_visit_pass')
                      when g = 0 and ${hash("b.person_id * 7")} < 0.3 then (select id from scale_products where kind = 'prepaid')
                      when (b.person_id + g) % 3 = 0 then (select id from scale_products where name = '5-Class Pack')
                      else (select id from scale_products where name = '10-Class Pack') end as product_id,
                 ${hash("b.person_id * 37 + g * 11")} as u, ${hash("b.person_id * 41 + g * 13")} as v, ${hash("b.person_id * 43 + g * 17")} as w
          from (
            select p.id as person_id, p.joined_at as at0,
                   case when x.h < 0.6 then 'dropin' else 'pack' end as buyer,
                   case when x.h < 0.6 then 16 + floor(${hash("p.id * 5")} * 29) else 1 + floor(${hash("p.id * 5")} * 4) end::int as n
            from scale_clients c join people p on p.business_id = $1 and p.id = c.person_id
            cross join lateral (select ${hash("p.id * 3")} as h) x
            where not p.is_member) b
          cross join lateral generate_series(0, b.n - 1) g
          offset 0) h
        where h.at <= $3
        offset 0) s`)

    yield* run(`analyze scale_sales`)
    // Items: the plan line (at the plan's own price for memberships) and a membership sale's signup fee, with their amounts.
    yield* run(`create temporary table scale_lines on commit drop as
      with raw as (
        select s.invoice_id, 'plan' as kind, 0 as ord, pr.id as product_id, pr.name, pr.description,
               coalesce(pl.price_cents, pr.price_cents) as price, least(s.prorate, coalesce(pl.price_cents, pr.price_cents)) as prorate,
               case when s.coupon then 10 else 0 end as coupon_percent, pr.ex_tax_id, pr.ex_scaled, pr.ex_rate, pr.inc_tax_id, pr.inc_scaled, pr.inc_rate
        from scale_sales s join scale_products pr on pr.id = s.product_id
        left join plans pl on s.kind <> 'pack' and pl.business_id = $1 and pl.id = s.plan_id
        union all
        select s.invoice_id, 'signup_fee', 1, pr.id, pr.name || ' (signup fee)', pr.description, pr.signup_fee_cents, 0, 0,
               pr.ex_tax_id, pr.ex_scaled, pr.ex_rate, pr.inc_tax_id, pr.inc_scaled, pr.inc_rate
        from scale_sales s join scale_products pr on pr.id = s.product_id
        where s.kind = 'sale' and pr.signup_fee_cents > 0),
      numbered as (select nextval(pg_get_serial_sequence('invoice_items', 'id')) as item_id, raw.* from raw),
      coupon as (select *, ${percentOf("price - prorate", "coupon_percent * 10000")} as coupon_cents from numbered),
      taxed as (
        select *, ${percentOf("price - prorate - coupon_cents", "ex_scaled")} as ex_cents,
               ${inclusiveTaxOf("price - prorate - coupon_cents", "inc_scaled")} as inc_cents
        from coupon)
      select t.*, case when t.kind = 'signup_fee' then max(t.item_id) filter (where t.kind = 'plan') over (partition by t.invoice_id) end as parent_item_id,
             t.price - t.prorate - t.coupon_cents + t.ex_cents as total
      from taxed t`)

    yield* run(`analyze scale_lines`)
    const invoices = yield* count(`with made as (
        insert into invoices (business_id, id, invoice_number, state, invoice_date, person_id, currency, location_id, coupon_id,
                              created_by_staff_member_id, created_by_person_id, closed_at, canceled_at, subtotal_cents, discount_total_cents,
                              adjustment_total_cents, included_tax_total_cents, additional_tax_total_cents, total_cents, created_at, updated_at)
        select $1, s.invoice_id, row_number() over (order by s.at, s.invoice_id)::text, s.state, (s.at at time zone $2)::date, s.person_id,
               b.currency_code, (array(select id from locations where business_id = $1 order by position))[1 + (s.person_id % 2)::int],
               case when s.coupon then (select id from coupons where business_id = $1 and code = 'WELCOME10') end,
               case when s.kind = 'pack' and not s.online then (select id from staff_members where business_id = $1 and role = 'primary_owner') end,
               case when s.kind = 'pack' and s.online then s.person_id end,
               s.closed_at, s.canceled_at, t.subtotal, t.discounts, t.adjustments, t.included, t.additional, t.total,
               s.at, coalesce(s.canceled_at, s.closed_at, s.at)
        from scale_sales s
        join businesses b on b.id = $1
        join (select invoice_id, sum(price) as subtotal, -sum(coupon_cents) as discounts, -sum(prorate) as adjustments,
                     sum(inc_cents) as included, sum(ex_cents) as additional, sum(total) as total
              from scale_lines group by 1) t on t.invoice_id = s.invoice_id
        returning 1)
      select count(*)::int as n from made`)
    yield* run(`insert into invoice_numbers (business_id, last_number) values ($1, ${invoices})
      on conflict (business_id) do update set last_number = invoice_numbers.last_number + excluded.last_number`)

    // Pack plans, created by closing their sale.
    yield* run(`insert into plans (business_id, id, plan_product_id, type, name, description, price_cents, count, start_date, end_date,
                                   created_at, updated_at)
      select $1, s.plan_id, pr.id, case when pr.kind = 'prepaid' then 'Prepaid' else 'Pack' end, pr.name, pr.description, pr.price_cents, pr.count,
             (s.closed_at at time zone $2)::date, ((s.closed_at at time zone $2)::date + make_interval(months => pr.commitment_length))::date - 1,
             s.closed_at, s.closed_at
      from scale_sales s join scale_products pr on pr.id = s.product_id
      where s.kind = 'pack' and s.plan_id is not null`)
    yield* run(`insert into plan_people (business_id, plan_id, person_id, is_primary)
      select $1, plan_id, person_id, true from scale_sales where kind = 'pack' and plan_id is not null`)

    const invoiceItems = yield* count(`with made as (
        insert into invoice_items (business_id, id, invoice_id, kind, parent_item_id, plan_product_id, name, description, start_date, price_cents,
                                   adjustment_total_cents, discount_total_cents, included_tax_total_cents, additional_tax_total_cents, total_cents,
                                   created_at, updated_at)
        select $1, l.item_id, l.invoice_id, l.kind, l.parent_item_id, l.product_id, l.name, l.description, (s.at at time zone $2)::date, l.price,
               -l.prorate, -l.coupon_cents, l.inc_cents, l.ex_cents, l.total, s.at, s.at
        from scale_lines l join scale_sales s on s.invoice_id = l.invoice_id
        order by l.item_id
        returning 1)
      select count(*)::int as n from made`)
    yield* run(`insert into invoice_item_recipients (business_id, invoice_item_id, person_id, position, plan_id)
      select $1, l.item_id, s.person_id, 1, case when l.kind = 'plan' and (s.state = 'closed' or s.kind = 'renewal') then s.plan_id end
      from scale_lines l join scale_sales s on s.invoice_id = l.invoice_id`)
    yield* run(`insert into invoice_item_adjustments (business_id, invoice_item_id, type, name, requested_cents, amount_cents, percent, inclusive,
                                                      source_type, source_id, created_at, updated_at)
      select $1, a.item_id, a.type, a.name, a.requested, a.amount, a.percent, a.inclusive, a.source_type, a.source_id, s.at, s.at
      from (
        select item_id, invoice_id, 'ProrateAdjustment' as type, 'Prorate' as name, prorate as requested, -prorate as amount, null::numeric as percent,
               false as inclusive, null as source_type, null::bigint as source_id
        from scale_lines where prorate > 0
        union all
        select item_id, invoice_id, 'Discount', 'Welcome 10 %', null, -coupon_cents, null, false, 'Coupon',
               (select id from coupons where business_id = $1 and code = 'WELCOME10')
        from scale_lines where coupon_cents > 0
        union all
        select item_id, invoice_id, 'TaxAdjustment', 'Sales Tax', null, ex_cents, ex_rate, false, 'SalesTax', ex_tax_id
        from scale_lines where ex_tax_id is not null
        union all
        select item_id, invoice_id, 'TaxAdjustment', 'Amusement Tax', null, inc_cents, inc_rate, true, 'SalesTax', inc_tax_id
        from scale_lines where inc_tax_id is not null) a
      join scale_sales s on s.invoice_id = a.invoice_id`)

    // Automatic billing's period rows for the renewals.
    yield* run(`insert into membership_billing_periods (business_id, plan_id, period_start, invoice_id, person_id, state, attempts, next_attempt_at,
                                                        created_at, updated_at)
      select $1, s.plan_id, s.period_start, s.invoice_id, s.person_id, case when s.state = 'open' then 'open' else 'paid' end,
             case when s.failed_first and s.state = 'closed' then 2 else 1 end,
             case when s.state = 'open' then s.at + interval '1 day' end, s.at, coalesce(s.closed_at, s.at)
      from scale_sales s where s.kind = 'renewal'`)

    const payments = yield* seedPayments(statements)
    const refunds = yield* count(`select count(*)::int as n from refunds where business_id = $1`)
    return { invoices, invoiceItems, payments, refunds } satisfies SalesCounts
  })
