import type pg from "pg"

/**
 * The write path's floor: the rows the service writes for a command, written by one database
 * function in one round trip, with the same locks and rules (bench-only; never in sql/). The
 * service's throughput is measured against it in the same run (bench/bookings.ts).
 *
 * `bench_book`: a staff booking of one event-occurrence lease, completed at once. It locks the
 * occurrence, refuses a second visit of the person and a full occurrence (the places taken, as
 * the visits' triggers count them), and inserts the booking, its lease and its visit in their
 * final states.
 *
 * `bench_book_rules`: the same booking with the reads and rules the service applies to it, as one
 * function: the person's check, the occurrence with its service (the class and timing rules), the
 * admission lock of the service (`lock_occurrences_for_admission`: state, duplicate, capacity),
 * the same three rows, the waitlist's move and the auto-pay candidates query. It measures what a
 * rewrite of the booking's rules into one database function could reach (the floor server's
 * BOOK_FUNCTION); it builds no answer and enqueues nothing (the bench has no webhook subscriber).
 *
 * `bench_checkout`: a staff sale of one pack to a payer, paid in cash for the total: the
 * invoice number (the business's counter row, locked), the closed invoice with its totals,
 * its item, the settled payment, the pack's plan and its holder, the item's recipient.
 *
 * `bench_invoice_rules` and `bench_pay_rules`: the same sale as the service makes it, one
 * function per request, with what the service reads and applies: the invoice's create (its
 * people and its product with the product's taxes, the payer live and the product on sale, then
 * the number, the open invoice, its item and recipient, answered with its items) and the cash
 * payment (the invoice locked, then read with its settled payments and refunds, its sale lines
 * and the payment configuration; the amount within what is outstanding; the plan sold with its
 * holder; the payment, the plan tied to the recipient and the invoice closed; answered with its
 * payer). They measure what a rewrite of the checkout's rules into one database function per
 * request could reach (the floor server's CHECKOUT_FUNCTIONS=rules).
 *
 * The three functions with the rules plan their statements generically, as the service's write
 * transactions do (src/platform/transactions.ts); the two baselines keep PostgreSQL's default.
 */
const BOOK = `
create or replace function bench_book(p_business bigint, p_occurrence bigint, p_person bigint, p_staff bigint) returns bigint
language plpgsql as $$
declare
  o record;
  taken int;
  booking bigint;
  lease bigint;
  visit bigint;
begin
  select id, service_id, event_id, capacity, start_at into o from event_occurrences
  where business_id = p_business and id = p_occurrence for no key update;
  if not found then raise exception 'no such occurrence'; end if;
  if exists (select 1 from visits where business_id = p_business and event_occurrence_id = p_occurrence and person_id = p_person) then
    raise exception 'already booked';
  end if;
  select coalesce((select p.taken from event_occurrence_places p
                    where p.business_id = p_business and p.event_occurrence_id = p_occurrence), 0) into taken;
  if o.capacity is not null and taken >= o.capacity then raise exception 'full'; end if;
  insert into bookings (business_id, state, created_by_staff_member_id, expires_at, completed_at)
  values (p_business, 'completed', p_staff, now() + interval '10 minutes', now()) returning id into booking;
  insert into leases (business_id, booking_id, kind, state, person_id, event_occurrence_id, event_id, service_id, start_at)
  values (p_business, booking, 'event_occurrence', 'registered', p_person, p_occurrence, o.event_id, o.service_id, o.start_at)
  returning id into lease;
  insert into visits (business_id, event_occurrence_id, person_id, state, booking_id, lease_id, created_by_staff_member_id, registered_at)
  values (p_business, p_occurrence, p_person, 'registered', booking, lease, p_staff, now()) returning id into visit;
  return visit;
end $$`

const BOOK_RULES = `
create or replace function bench_book_rules(p_business bigint, p_occurrence bigint, p_person bigint, p_staff bigint) returns bigint
language plpgsql set plan_cache_mode = force_generic_plan as $$
declare
  o record;
  svc record;
  booking bigint;
  lease bigint;
  visit bigint;
  plan bigint;
begin
  -- the lease's person exists (the service's people check)
  perform 1 from people where business_id = p_business and id = p_person and deleted_at is null;
  if not found then raise exception 'no such person'; end if;
  -- the occurrence with its service, as the service reads it (timing rules on it)
  select o2.id as occurrence_id, o2.event_id, o2.start_at, o2.end_at, s.id, s.type, s.online_booking, s.enrollment_window_blackout_minutes,
         coalesce((select json_agg(ss.staff_member_id order by ss.staff_member_id) from service_staff_members ss
                   where ss.business_id = s.business_id and ss.service_id = s.id), '[]') as staff_member_ids
    into svc
    from event_occurrences o2 join services s on s.business_id = o2.business_id and s.id = o2.service_id
    left join locations l on l.business_id = o2.business_id and l.id = o2.location_id
    left join service_categories c on c.business_id = s.business_id and c.id = s.category_id
    where o2.business_id = p_business and o2.id = p_occurrence;
  if not found or svc.type <> 'GroupClass' then raise exception 'not a class'; end if;
  if coalesce(svc.end_at, svc.start_at) <= now() then raise exception 'past'; end if;
  -- the admission lock, the capacity and duplicate rules
  select * into o from lock_occurrences_for_admission(p_business, array[p_occurrence], array[p_person]);
  if o.state in ('canceled', 'deleted') then raise exception 'canceled'; end if;
  if p_person = any(o.visitors) then raise exception 'already booked'; end if;
  if o.capacity is not null and o.taken + 1 > o.capacity then raise exception 'full'; end if;
  insert into bookings as b (business_id, state, person_id, created_by_staff_member_id, idempotency_token, idempotency_scope, request_digest, expires_at, completed_at, created_at, updated_at)
  values (p_business, 'completed', null, p_staff, null, null, null, now() + interval '10 minutes', now(), now(), now())
  returning id into booking;
  insert into leases (business_id, booking_id, kind, state, person_id, event_occurrence_id, event_id, service_id, start_at, created_at, updated_at)
  values (p_business, booking, 'event_occurrence', 'registered', p_person, p_occurrence, o.event_id, o.service_id, o.start_at, now(), now())
  returning id into lease;
  update waitlist_entries w set state = 'enrolled', enrolled_at = now(), updated_at = now()
  where w.business_id = p_business and w.event_occurrence_id = p_occurrence and w.person_id = p_person and w.state in ('pending', 'waiting');
  insert into visits (business_id, event_occurrence_id, person_id, state, booking_id, lease_id, notify_client, created_by_staff_member_id, registered_at, created_at, updated_at)
  values (p_business, p_occurrence, p_person, 'registered', booking, lease, true, p_staff, now(), now(), now()) returning id into visit;
  -- auto-pay: the person's suitable plan, if any (the service's candidate query)
  select p.id into plan from plans p where p.business_id = p_business and (exists (select 1 from plan_people hp where hp.business_id = p.business_id and hp.plan_id = p.id and hp.person_id = p_person)
    and ((p.start_date <= o.local_date::date and (p.end_date is null or p.end_date >= o.local_date::date) and p.deactivated_at is null)
    and not exists (select 1 from plan_holds h where h.business_id = p.business_id and h.plan_id = p.id and h.start_date <= o.local_date::date and (h.end_date is null or h.end_date >= o.local_date::date))
    and (p.count is null or (p.count + p.rollover_count - (select count(*)::int from punches pu where pu.business_id = p.business_id and pu.plan_id = p.id and (p.visits_shared or pu.person_id = p_person) and (p.limit_period is null or date_trunc(p.limit_period, pu.visit_date) = date_trunc(p.limit_period, o.local_date::date)))) > 0))
    and ((not exists (select 1 from plan_product_services ps where ps.business_id = p.business_id and ps.plan_product_id = p.plan_product_id) or exists (select 1 from plan_product_services ps where ps.business_id = p.business_id and ps.plan_product_id = p.plan_product_id and ps.service_id = o.service_id))
    and (p.location_id is null or p.location_id = o.location_id) and (p.staff_member_id is null or p.staff_member_id = any(o.staff_member_ids))))
    order by p.end_date asc nulls last, p.id asc limit 1;
  return visit;
end $$`

const CHECKOUT = `
create or replace function bench_checkout(p_business bigint, p_payer bigint, p_product bigint) returns bigint
language plpgsql as $$
declare
  product record;
  currency text;
  number bigint;
  invoice bigint;
  item bigint;
  plan bigint;
begin
  select id, name, description, price_cents, count, commitment_length, commitment_unit into product
  from plan_products where business_id = p_business and id = p_product;
  select currency_code into currency from businesses where id = p_business;
  insert into invoice_numbers (business_id, last_number) values (p_business, 1)
  on conflict (business_id) do update set last_number = invoice_numbers.last_number + 1 returning last_number into number;
  insert into invoices (business_id, invoice_number, state, invoice_date, person_id, currency, closed_at, subtotal_cents, total_cents, created_at, updated_at)
  values (p_business, 'B' || number, 'closed', current_date, p_payer, currency, now(), product.price_cents, product.price_cents, now(), now())
  returning id into invoice;
  insert into invoice_items (business_id, invoice_id, kind, plan_product_id, name, description, price_cents, total_cents)
  values (p_business, invoice, 'plan', p_product, product.name, product.description, product.price_cents, product.price_cents)
  returning id into item;
  insert into payments (business_id, invoice_id, person_id, payment_method, payment_type_id, state, amount_cents, description, created_at, updated_at)
  values (p_business, invoice, p_payer, 'cash', 2, 'settled', product.price_cents, 'Cash', now(), now());
  insert into plans (business_id, plan_product_id, type, name, description, price_cents, count, visits_shared, start_date, end_date, created_at, updated_at)
  values (p_business, p_product, 'Pack', product.name, product.description, product.price_cents, product.count, true, current_date,
          (current_date + make_interval(months => product.commitment_length))::date - 1, now(), now())
  returning id into plan;
  insert into plan_people (business_id, plan_id, person_id, is_primary) values (p_business, plan, p_payer, true);
  insert into invoice_item_recipients (business_id, invoice_item_id, person_id, plan_id) values (p_business, item, p_payer, plan);
  return invoice;
end $$`

const CHECKOUT_RULES = `
create or replace function bench_invoice_rules(p_business bigint, p_payer bigint, p_product bigint, p_staff_person bigint) returns table (id bigint, total_cents int)
language plpgsql set plan_cache_mode = force_generic_plan as $$
declare
  people_read json;
  products_read json;
  product record;
  number bigint;
  inv record;
  item bigint;
  items json;
begin
  -- the create's one read: its people and its products with their taxes
  select (select coalesce(json_agg(x), '[]') from (
            select pe.id, concat_ws(' ', pe.first_name, pe.last_name) as name, pe.email::text as email, pe.deleted_at is null as live
            from people pe where pe.business_id = p_business and pe.id = any(array[p_payer, p_staff_person])) x),
         (select coalesce(json_agg(x), '[]') from (
            select pp.id, pp.kind, pp.name, pp.description, pp.price_cents, pp.signup_fee_cents, pp.staff_specific_pricing, pp.suspended,
                   pp.count, pp.limit_period, pp.commitment_length, pp.commitment_unit, pp.consider_member, pp.terms,
                   pp.terms_acceptance_required, pp.terms_acceptance_type,
                   (select coalesce(json_agg(tax order by tax.sales_tax_id), '[]') from (
                      select pt.plan_product_id, t.id as sales_tax_id, t.name, t.tax_rate::float8 as rate, t.inclusive
                      from plan_product_sales_taxes pt join sales_taxes t on t.business_id = pt.business_id and t.id = pt.sales_tax_id
                      where pt.business_id = p_business and pt.plan_product_id = pp.id) tax) as taxes
            from plan_products pp where pp.business_id = p_business and pp.id = p_product and pp.deleted_at is null) x)
    into people_read, products_read;
  if not exists (select 1 from json_array_elements(people_read) e where (e->>'id')::bigint = p_payer and (e->>'live')::boolean) then
    raise exception 'no such payer';
  end if;
  select * into product from json_to_record(products_read->0) as x(id bigint, name text, description text, price_cents int, suspended boolean);
  if product.id is null or product.suspended then raise exception 'no such product'; end if;
  -- the number, the open invoice with its totals, its item and recipient
  insert into invoice_numbers (business_id, last_number) values (p_business, 1)
  on conflict (business_id) do update set last_number = invoice_numbers.last_number + 1 returning last_number into number;
  insert into invoices as i (business_id, invoice_number, invoice_date, person_id, currency, created_by_person_id, subtotal_cents, total_cents, created_at, updated_at)
  values (p_business, number::text, current_date, p_payer, (select currency_code from businesses where businesses.id = p_business), p_staff_person,
          product.price_cents, product.price_cents, now(), now())
  returning i.id, i.total_cents into inv;
  insert into invoice_items as it (business_id, invoice_id, kind, plan_product_id, name, description, price_cents, total_cents, created_at, updated_at)
  values (p_business, inv.id, 'plan', p_product, product.name, product.description, product.price_cents, product.price_cents, now(), now())
  returning it.id into item;
  insert into invoice_item_recipients (business_id, invoice_item_id, person_id, position) values (p_business, item, p_payer, 1);
  -- the answer's items, with their products
  select json_agg(row_to_json(w)) into items from (
    select it.id, it.kind, it.name, it.price_cents, it.total_cents, pp.kind as product_kind
    from invoice_items it join plan_products pp on pp.business_id = it.business_id and pp.id = it.plan_product_id
    where it.business_id = p_business and it.id = item) w;
  return query select inv.id, inv.total_cents;
end $$;

create or replace function bench_pay_rules(p_business bigint, p_invoice bigint, p_amount int, p_staff bigint) returns bigint
language plpgsql set plan_cache_mode = force_generic_plan as $$
declare
  inv record;
  line record;
  plan bigint;
  sold bigint[] := '{}';
  items bigint[] := '{}';
  holders bigint[] := '{}';
  payment bigint;
  payer json;
begin
  -- the lock, then what it protects, read after it
  perform 1 from invoices where business_id = p_business and id = p_invoice for update;
  select i.id, i.state, i.person_id, i.total_cents, i.location_id,
         (select coalesce(sum(p.amount_cents), 0)::int from payments p
          where p.business_id = i.business_id and p.invoice_id = i.id and p.state = 'settled') as paid,
         (select coalesce(sum(r.amount_cents), 0)::int from refunds r
          where r.business_id = i.business_id and r.invoice_id = i.id and r.state = 'settled') as refunded,
         (select coalesce(json_agg(s order by s.item_id, s.recipient_position), '[]') from (
            select pp.id, pp.kind, pp.name, pp.description, pp.price_cents, pp.count, pp.limit_period, pp.commitment_length,
                   pp.commitment_unit, pp.consider_member, pp.terms_acceptance_required, it.id as item_id, it.start_date,
                   it.price_cents as item_price_cents, it.staff_member_id as item_staff_member_id, r.person_id as recipient_id,
                   r.position as recipient_position, r.plan_id as recipient_plan_id,
                   (select a.initial_punchcard_count from invoice_item_adjustments a
                    where a.business_id = it.business_id and a.invoice_item_id = it.id and a.type = 'ProrateAdjustment' and a.source_type is null
                    order by a.id limit 1) as initial_punchcard_count
            from invoice_items it
            join plan_products pp on pp.business_id = it.business_id and pp.id = it.plan_product_id and pp.deleted_at is null
            join invoice_item_recipients r on r.business_id = it.business_id and r.invoice_item_id = it.id
            where it.business_id = i.business_id and it.invoice_id = i.id and it.kind = 'plan' and it.canceled_at is null) s) as sale_lines,
         (select row_to_json(c) from (select accepted_types, external_methods from payment_configurations
                                      where business_id = i.business_id) c) as configuration
    into inv
    from invoices i where i.business_id = p_business and i.id = p_invoice;
  if inv.id is null then raise exception 'no such invoice'; end if;
  if inv.state = 'closed' or inv.state = 'canceled' then raise exception 'invoice closed'; end if;
  if p_amount <= 0 or p_amount > inv.total_cents - inv.paid + inv.refunded then raise exception 'more than outstanding'; end if;
  if inv.configuration is not null and not ((inv.configuration->'accepted_types')::jsonb ? 'cash') then raise exception 'cash not accepted'; end if;
  if p_amount = inv.total_cents - inv.paid + inv.refunded then
    -- paid off: each line's plan sold to its recipient
    for line in select * from json_to_recordset(inv.sale_lines) as x(id bigint, kind text, name text, description text, count int,
                 limit_period text, commitment_length int, consider_member boolean, item_id bigint, start_date date,
                 item_price_cents int, item_staff_member_id bigint, recipient_id bigint, recipient_plan_id bigint, initial_punchcard_count int) loop
      continue when line.recipient_plan_id is not null;
      with made as (
        insert into plans (business_id, plan_product_id, type, name, description, price_cents, count, consider_member, visits_shared,
          start_date, end_date, staff_member_id, location_id, created_by_staff_member_id, limit_period, is_complimentary, created_at, updated_at)
        values (p_business, line.id, 'Pack', line.name, line.description, line.item_price_cents, coalesce(line.initial_punchcard_count, line.count),
          line.consider_member, true, coalesce(line.start_date, current_date),
          (coalesce(line.start_date, current_date) + make_interval(months => line.commitment_length))::date - 1,
          line.item_staff_member_id, inv.location_id, p_staff, null, false, now(), now())
        returning business_id, id),
      holder as (insert into plan_people (business_id, plan_id, person_id, is_primary) select made.business_id, made.id, line.recipient_id, true from made)
      select made.id into plan from made;
      sold := sold || plan; items := items || line.item_id; holders := holders || line.recipient_id;
    end loop;
    with p as (
      insert into payments (business_id, invoice_id, person_id, payment_method, payment_type_id, state, amount_cents, description,
        created_by_staff_member_id, created_at, updated_at)
      values (p_business, p_invoice, inv.person_id, 'cash', 2, 'settled', p_amount, 'Cash', p_staff, now(), now())
      returning id, person_id),
    tied as (
      update invoice_item_recipients r set plan_id = t.plan_id
      from unnest(items, holders, sold) as t(item_id, person_id, plan_id)
      where r.business_id = p_business and r.invoice_item_id = any(items) and r.invoice_item_id = t.item_id and r.person_id = t.person_id),
    closed as (update invoices set state = 'closed', updated_at = now(), closed_at = now() where business_id = p_business and id = p_invoice)
    select p.id, (select json_build_object('id', pe.id, 'name', concat_ws(' ', pe.first_name, pe.last_name), 'email', pe.email::text)
                  from people pe where pe.business_id = p_business and pe.id = p.person_id)
      into payment, payer
      from p;
  else
    insert into payments (business_id, invoice_id, person_id, payment_method, payment_type_id, state, amount_cents, description,
      created_by_staff_member_id, created_at, updated_at)
    values (p_business, p_invoice, inv.person_id, 'cash', 2, 'settled', p_amount, 'Cash', p_staff, now(), now())
    returning id into payment;
  end if;
  return payment;
end $$`

export const createWriteBaselines = async (pool: pg.Pool) => {
  await pool.query(BOOK)
  await pool.query(BOOK_RULES)
  await pool.query(CHECKOUT)
  await pool.query(CHECKOUT_RULES)
}
