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
language plpgsql as $$
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

export const createWriteBaselines = async (pool: pg.Pool) => {
  await pool.query(BOOK)
  await pool.query(BOOK_RULES)
  await pool.query(CHECKOUT)
}
