import { Effect } from "effect"
import { businessDay, counted, hasRows } from "./business-day.ts"
import { addDays } from "../../shared/zoned-time.ts"

/**
 * The demo's plans: members hold the Unlimited Monthly (the demo client too, so a
 * require_plan class can be booked out of the box), about a third of the other clients a
 * 10-class pack bought some time in the last weeks (some used up), a few an expired pack; two
 * members had a hold in the past. Their registered and completed visits are paid by punches,
 * mirrored on the visits (punch_id, paid_for_by), packs up to their count (used-up packs get
 * exhausted_at). Products are created by name and kind when missing, so this works whether or
 * not the demo document brings a catalog. Deterministic from Clock and the clients' order;
 * written set-based inside PostgreSQL, after the visits it pays for.
 */
export const DEMO_MEMBERSHIP = "Unlimited Monthly"
export const DEMO_PACK = "10-Class Pack"


/** The demo's plan products, created when the catalog has none by that name and kind. */
const ensureProducts = (businessId: number) =>
  counted(
    `with wanted (kind, name, description, price_cents, count, commitment_length, commitment_unit,
                  invoice_interval_count, invoice_interval_unit, consider_member) as (
       values ('membership', '${DEMO_MEMBERSHIP}', 'Every class, every week; billed monthly.', 14900, null::int, 12, 'month', 1, 'monthly', true),
              ('pack', '${DEMO_PACK}', 'Ten classes of your choice, valid for three months.', 12000, 10, 3, 'month', null::int, null, false)),
     made as (
       insert into plan_products (business_id, kind, name, description, price_cents, count, commitment_length, commitment_unit,
                                  invoice_interval_count, invoice_interval_unit, consider_member)
       select $1, w.kind, w.name, w.description, w.price_cents, w.count, w.commitment_length, w.commitment_unit,
              w.invoice_interval_count, w.invoice_interval_unit, w.consider_member
       from wanted w
       where not exists (select 1 from plan_products p where p.business_id = $1 and p.kind = w.kind and p.name = w.name and p.deleted_at is null)
       returning 1)
     select count(*)::int as n from made`,
    [businessId]
  )

/**
 * The plans and their people in one statement: plan ids are drawn first (a materialized CTE, so
 * once each) to tie each plan to its holder. $1 business, $2 today (business-local), $3 now,
 * $4 the demo client's e-mail, $5 the business's zone.
 */
const insertPlans = (businessId: number, today: string, now: Date, demoClientEmail: string, timeZone: string) =>
  counted(
    `with clients as (
       select p.id as person_id, row_number() over (order by p.id)::int as n, p.is_member, p.email = $4 as demo_client
       from people p
       where p.business_id = $1 and p.deleted_at is null and p.email is not null
         and not exists (select 1 from staff_members s where s.business_id = p.business_id and s.person_id = p.id)),
     products as (
       select distinct on (kind) kind, id, name, description, price_cents, count, consider_member, commitment_length, commitment_unit
       from plan_products
       where business_id = $1 and deleted_at is null and ((kind = 'membership' and name = '${DEMO_MEMBERSHIP}') or (kind = 'pack' and name = '${DEMO_PACK}'))
       order by kind, id),
     chosen as materialized (
       select nextval(pg_get_serial_sequence('plans', 'id')) as plan_id, c.person_id, x.kind, x.start_date, x.end_date
       from clients c
       cross join lateral (
         select 'membership' as kind, $2::date - (case when c.demo_client then 42 else 56 + c.n % 30 end) as start_date, null::date as end_date
         where c.is_member or c.demo_client
         union all
         select 'pack', $2::date - (c.n * 7) % 60, ($2::date - (c.n * 7) % 60 + interval '3 months')::date - 1
         where c.n % 3 = 1 and not c.is_member and not c.demo_client
         union all
         select 'pack', $2::date - 84, $2::date - 15
         where c.n % 6 = 2 and not c.is_member) x),
     plans_made as (
       insert into plans (business_id, id, plan_product_id, type, name, description, price_cents, count, consider_member, visits_shared,
                          start_date, end_date, created_at, updated_at)
       select $1, ch.plan_id, pr.id, case ch.kind when 'membership' then 'Membership' else 'Pack' end, pr.name, pr.description,
              pr.price_cents, pr.count, pr.consider_member, true, ch.start_date, ch.end_date,
              least($3::timestamptz, (ch.start_date + time '10:00') at time zone $5), $3
       from chosen ch join products pr on pr.kind = ch.kind
       returning id),
     people_made as (
       insert into plan_people (business_id, plan_id, person_id, is_primary)
       select $1, ch.plan_id, ch.person_id, true from chosen ch join plans_made m on m.id = ch.plan_id
       returning 1)
     select count(*)::int as n from people_made`,
    [businessId, today, now, demoClientEmail, timeZone]
  )

/** A past hold on every fifth membership: a pause that is over. */
const insertHolds = (businessId: number, today: string, now: Date) =>
  counted(
    `with made as (
       insert into plan_holds (business_id, plan_id, start_date, end_date, created_at, updated_at)
       select p.business_id, p.id, $2::date - 30, $2::date - 21, least($3::timestamptz, ($2::date - 31)::timestamptz), $3
       from (select p.*, row_number() over (order by p.id) as k from plans p where p.business_id = $1 and p.type = 'Membership') p
       where p.k % 5 = 0 and p.start_date < $2::date - 31
       returning 1)
     select count(*)::int as n from made`,
    [businessId, today, now]
  )

/**
 * Punches for the visits plans paid: registered and completed visits within a plan's dates, in
 * order, packs only up to their count; each visit mirrors its punch. Used-up packs are marked
 * exhausted at their last punch.
 */
const insertPunches = (businessId: number, now: Date) =>
  counted(
    `with covered as (
       select pl.id as plan_id, pl.name, pl.count, v.id as visit_id, v.person_id, v.created_at,
              (o.start_at at time zone o.time_zone)::date as visit_date,
              row_number() over (partition by pl.id order by o.start_at, v.id) as k
       from plans pl
       join plan_people pp on pp.business_id = pl.business_id and pp.plan_id = pl.id
       join visits v on v.business_id = pl.business_id and v.person_id = pp.person_id and v.state in ('registered', 'completed')
       join event_occurrences o on o.business_id = v.business_id and o.id = v.event_occurrence_id
       where pl.business_id = $1 and v.punch_id is null
         and (o.start_at at time zone o.time_zone)::date >= pl.start_date
         and (pl.end_date is null or (o.start_at at time zone o.time_zone)::date <= pl.end_date)),
     paid as (
       insert into punches (business_id, visit_id, plan_id, person_id, visit_date, created_at)
       select $1, c.visit_id, c.plan_id, c.person_id, c.visit_date, least($2::timestamptz, c.created_at)
       from covered c where c.count is null or c.k <= c.count
       on conflict (business_id, visit_id) do nothing
       returning id, visit_id, plan_id),
     mirrored as (
       update visits v set punch_id = pd.id, paid_for_by = pl.name, updated_at = $2
       from paid pd join plans pl on pl.business_id = $1 and pl.id = pd.plan_id
       where v.business_id = $1 and v.id = pd.visit_id
       returning 1),
     exhausted as (
       update plans pl set exhausted_at = x.last_at
       from (select c.plan_id, max(least($2::timestamptz, c.created_at)) as last_at from covered c
             where c.count is not null and c.k <= c.count group by c.plan_id, c.count having count(*) >= c.count) x
       where pl.business_id = $1 and pl.id = x.plan_id
       returning 1)
     select (select count(*) from mirrored)::int + 0 * (select count(*) from exhausted)::int as n`,
    [businessId, now]
  )

/** Seeds the plans while the demo has none; answers how many plans and punches it wrote. */
export const seedDemoPlans = (businessId: number, nowMs: number, demoClientEmail: string) =>
  Effect.gen(function* () {
    if (yield* hasRows("plans", businessId)) return { plans: 0, punches: 0 }
    const { now, timeZone, today } = yield* businessDay(businessId, nowMs)
    yield* ensureProducts(businessId)
    const plans = yield* insertPlans(businessId, today, now, demoClientEmail, timeZone)
    yield* insertHolds(businessId, addDays(today, 0), now)
    const punches = yield* insertPunches(businessId, now)
    return { plans, punches }
  }).pipe(Effect.orDie)
