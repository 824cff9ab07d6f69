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
  await pool.query(CHECKOUT)
}
