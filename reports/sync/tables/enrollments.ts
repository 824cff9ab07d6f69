import { occurrenceCtes, occurrenceRowsChanges } from "./event-occurrences.ts"
import { availableOnSql, currentOnSql } from "./plans.ts"
import { businessColumns, franchiseId, franchiseJoin, fullName, type StoreTable } from "./types.ts"

/** The person, occurrence and service columns shared by both halves of the enrollments SELECT. */
const enrollmentCommon = (row: "v" | "w") => `
      o.business_id,
      b.name as business_name,
      b.subdomain as business_subdomain,
      ${franchiseId("b")} as franchise_id,
      b.currency_code,
      o.time_zone,
      mgr.emails as account_manager_emails,
      mgr.names as account_manager_names,
      mgr.phones as account_manager_phones,
      p.address,
      pa.names as available_plans,
      p.birthdate,
      p.email::text as email,
      ${fullName("p")} as full_name,
      hl.name as home_location_name,
      ins.names as instructor_names,
      ins.first_name as primary_staff_name,
      p.phone,
      ${row}.person_id,
      o.end_at as end_at,
      o.event_id,
      o.name as event_name,
      o.id as event_occurrence_id,
      c.name as service_category,
      o.service_id,
      o.location_id as service_location_id,
      l.name as service_location_name,
      s.name as service_name,
      case when o.state in ('canceled', 'deleted') then 'deleted' else 'active' end as service_state,
      case s.type when 'Appointment' then 'appointment' when 'GroupClass' then 'group_class' else 'course' end as service_type,
      o.start_at as start_at,
      o.local_start_at`

const enrollmentJoins = (row: "v" | "w") => `
    join sel_o o on o.business_id = ${row}.business_id and o.id = ${row}.event_occurrence_id
    join businesses b on b.id = o.business_id
    ${franchiseJoin("b")}
    join services s on s.business_id = o.business_id and s.id = o.service_id
    left join service_categories c on c.business_id = s.business_id and c.id = s.category_id
    left join locations l on l.business_id = o.business_id and l.id = o.location_id
    left join people p on p.business_id = ${row}.business_id and p.id = ${row}.person_id
    left join locations hl on hl.business_id = p.business_id and hl.id = p.location_id
    left join mgr on mgr.business_id = ${row}.business_id and mgr.dependent_id = ${row}.person_id
    left join ins on ins.business_id = o.business_id and ins.event_occurrence_id = o.id
    left join payable_${row} pa on pa.business_id = ${row}.business_id and pa.id = ${row}.id`

/**
 * What could pay an unpaid visit or a waitlist entry (the rows of `sel_v` or `sel_w` that
 * `which` keeps, as `e`): the person's plans available on the session's date (the business's
 * calendar date, as plan dates are), by name. Once per statement, the rows hash-joined with
 * their holders' plans: a subquery per row read the person's plans again for each of their
 * visits (half of the extraction's time at 5 million enrollments). The plans current on the
 * date are kept first (materialized), and only they are asked whether visits are left: a
 * person holds many plans, most long ended, and DuckDB counts a subquery's punches for every
 * pair it is given (35 million at 5 million enrollments: 137 s, against 5 s this way).
 */
const payable = (rows: "sel_v" | "sel_w", which: string) => `(
      with current_pairs as materialized (
        select e.business_id, e.id, e.person_id, e.on_date, ap.id as plan_id
        from (select e.business_id, e.id, e.person_id, (o.start_at at time zone b.time_zone)::date as on_date
                from ${rows} e
                join sel_o o on o.business_id = e.business_id and o.id = e.event_occurrence_id
                join businesses b on b.id = e.business_id
               where ${which}) e
        join plan_people app on app.business_id = e.business_id and app.person_id = e.person_id
        join plans ap on ap.business_id = app.business_id and ap.id = app.plan_id
        where ${currentOnSql("ap", "e.on_date")})
      select e.business_id, e.id, string_agg(ap.name, ', ' order by ap.name collate "C", ap.id) as names
      from current_pairs e
      join plans ap on ap.business_id = e.business_id and ap.id = e.plan_id
      where ${availableOnSql("ap", "e.person_id", "e.on_date")}
      group by 1, 2)`

/**
 * Enrollments. `where` is a condition on the occurrence `o` (rows are replaced per changed
 * occurrence). A visit's row carries its state; a waitlist entry's row its waiting, expired or
 * removed state (`pending` reads as waiting; an `enrolled` entry is represented by its visit,
 * whose waitlist_id and waitlisted_at point back at it). A visit is paid by its punch
 * (`visits.punch_id`), and the punch's plan tells what paid; an unpaid visit or a waitlist entry
 * lists the plans available to pay for it.
 *
 * estimated_amount (the share of plan revenue attributed to a paid visit, in cents): a plan's
 * revenue is what its closed (paid) invoices' live plan items bring less their tax (the sale and
 * every billed renewal: the items whose recipient row names the plan; an item for several
 * people counts for each in proportion). A pack's visit gets revenue ÷ the pack's visit count;
 * a membership's or prepaid plan's visit gets revenue to date ÷ the plan's punches to date (and
 * a pack without a count likewise). Rounded to the cent, half away from zero; an unpaid visit or
 * a waitlist entry is 0.
 */
export const enrollmentsTable: StoreTable = {
  name: "enrollments",
  changes: occurrenceRowsChanges,
  newestFirstBy: "start_at",
  columns: [
    ["key", "VARCHAR NOT NULL"],
    ...businessColumns,
    ["account_manager_emails", "VARCHAR"],
    ["account_manager_names", "VARCHAR"],
    ["account_manager_phones", "VARCHAR"],
    ["address", "VARCHAR"],
    ["available_plans", "VARCHAR"],
    ["birthdate", "DATE"],
    ["email", "VARCHAR"],
    ["full_name", "VARCHAR"],
    ["home_location_name", "VARCHAR"],
    ["instructor_names", "VARCHAR"],
    ["primary_staff_name", "VARCHAR"],
    ["phone", "VARCHAR"],
    ["person_id", "BIGINT"],
    ["end_at", "TIMESTAMPTZ NOT NULL"],
    ["event_id", "BIGINT"],
    ["event_name", "VARCHAR"],
    ["event_occurrence_id", "BIGINT NOT NULL"],
    ["service_category", "VARCHAR"],
    ["service_id", "BIGINT"],
    ["service_location_id", "BIGINT"],
    ["service_location_name", "VARCHAR"],
    ["service_name", "VARCHAR"],
    ["service_state", "VARCHAR"],
    ["service_type", "VARCHAR"],
    ["start_at", "TIMESTAMPTZ NOT NULL"],
    ["local_start_at", "TIMESTAMP NOT NULL"],
    ["state", "VARCHAR NOT NULL"],
    ["visit_id", "BIGINT"],
    ["waitlist_id", "BIGINT"],
    ["waitlisted_at", "TIMESTAMPTZ"],
    ["registered_at", "TIMESTAMPTZ"],
    ["completed_at", "TIMESTAMPTZ"],
    ["noshow_at", "TIMESTAMPTZ"],
    ["cancelled_at", "TIMESTAMPTZ"],
    ["bulk_enrolled", "BOOLEAN"],
    ["client_booked", "BOOLEAN"],
    ["consider_member", "BOOLEAN"],
    ["first_visit", "BOOLEAN"],
    ["is_paid", "BOOLEAN"],
    ["is_rollover", "BOOLEAN"],
    ["is_waitlist", "BOOLEAN"],
    ["make_up_issued", "BOOLEAN"],
    ["paid_with", "VARCHAR"],
    ["paid_with_complimentary_pass", "BOOLEAN"],
    ["paid_with_type", "VARCHAR"],
    ["estimated_amount", "BIGINT"],
    ["plan_id", "BIGINT"],
    ["plan_product_id", "BIGINT"],
    ["punch_id", "BIGINT"],
    ["punchcard_id", "BIGINT"]
  ],
  select: (where) => `${occurrenceCtes(where)},
    sel_v as not materialized (select v.* from visits v join sel_o o on o.business_id = v.business_id and o.id = v.event_occurrence_id),
    sel_w as not materialized (select w.* from waitlist_entries w join sel_o o on o.business_id = w.business_id and o.id = w.event_occurrence_id),
    -- The account managers (providers) of each dependent, once.
    mgr as (
      select r.business_id, r.dependent_id,
             string_agg(m.email::text, ', ' order by m.last_name collate "C", m.first_name collate "C", m.id) as emails,
             string_agg(${fullName("m")}, ', ' order by m.last_name collate "C", m.first_name collate "C", m.id) as names,
             string_agg(m.phone, ', ' order by m.last_name collate "C", m.first_name collate "C", m.id) as phones
      from person_relationships r
      join people m on m.business_id = r.business_id and m.id = r.provider_id
      group by 1, 2),
    -- Each visitor's first visit that counts (registered or completed), by the session's start.
    firsts as (
      select distinct on (v.business_id, v.person_id) v.business_id, v.person_id, v.id
      from visits v join event_occurrences o on o.business_id = v.business_id and o.id = v.event_occurrence_id
      where v.state in ('registered', 'completed')
        and (v.business_id, v.person_id) in (select business_id, person_id from sel_v)
      order by v.business_id, v.person_id, o.start_at, v.id),
    -- The plans that paid the selected visits, and the revenue each visit is given (see above).
    vplans as (
      select distinct q.business_id, q.plan_id from punches q
      join sel_v v on v.business_id = q.business_id and v.punch_id = q.id),
    plan_revenue as materialized (
      select r.business_id, r.plan_id,
             sum((it.total_cents - it.included_tax_total_cents - it.additional_tax_total_cents)::numeric
                 / (select count(*) from invoice_item_recipients r2
                     where r2.business_id = it.business_id and r2.invoice_item_id = it.id)) as amount
      from invoice_item_recipients r
      join invoice_items it on it.business_id = r.business_id and it.id = r.invoice_item_id
      join invoices i on i.business_id = it.business_id and i.id = it.invoice_id
      where (r.business_id, r.plan_id) in (select business_id, plan_id from vplans)
        and it.kind = 'plan' and it.canceled_at is null and i.state = 'closed'
      group by 1, 2),
    plan_value as (
      select vp.business_id, vp.plan_id,
             coalesce(rev.amount, 0) / greatest(1, case when vpl.type = 'Pack' and vpl.count > 0 then vpl.count
                                                   else (select count(*) from punches q
                                                          where q.business_id = vp.business_id and q.plan_id = vp.plan_id) end) as per_visit
      from vplans vp
      join plans vpl on vpl.business_id = vp.business_id and vpl.id = vp.plan_id
      left join plan_revenue rev on rev.business_id = vp.business_id and rev.plan_id = vp.plan_id),
    payable_v as materialized ${payable("sel_v", "e.punch_id is null")},
    payable_w as materialized ${payable("sel_w", "e.state <> 'enrolled'")},
    -- The waitlist entry a visit came from.
    enrolled as (
      select distinct on (business_id, event_occurrence_id, person_id) business_id, event_occurrence_id, person_id, id, created_at
      from sel_w where state = 'enrolled'
      order by business_id, event_occurrence_id, person_id, id desc)
    select
      v.business_id || '-v' || v.id as key,${enrollmentCommon("v")},
      v.state,
      v.id as visit_id,
      we.id as waitlist_id,
      we.created_at as waitlisted_at,
      v.registered_at as registered_at,
      v.completed_at as completed_at,
      v.noshow_at as noshow_at,
      v.cancelled_at as cancelled_at,
      coalesce(le.kind in ('recurring', 'course'), false) as bulk_enrolled, -- one booking enrolled in many sessions
      (v.created_by_staff_member_id is null and coalesce(bk.created_by_staff_member_id is null, true)) as client_booked,
      coalesce(vpl.consider_member, false) as consider_member, -- the paying plan grants membership
      fv.id is not null as first_visit,
      vp.id is not null as is_paid,
      -- A rollover punch: the plan's own visits (count) are spent first, in visit order, then the
      -- rolled-over ones; counted among the punches the plan rules count together (the same
      -- person unless visits are shared, the same limit period).
      case when vpl.count is not null and vpl.rollover_count > 0 then (
        select count(*) > vpl.count from punches q
        where q.business_id = vp.business_id and q.plan_id = vp.plan_id
          and (vpl.visits_shared or q.person_id = vp.person_id)
          and (vpl.limit_period is null or date_trunc(vpl.limit_period, q.visit_date) = date_trunc(vpl.limit_period, vp.visit_date))
          and (q.visit_date, q.id) <= (vp.visit_date, vp.id)) else false end as is_rollover,
      false as is_waitlist,
      mu.id is not null as make_up_issued,
      vpl.name as paid_with,
      coalesce(vpl.is_complimentary, false) as paid_with_complimentary_pass,
      case when vp.id is null then 'unpaid' else lower(vpl.type) end as paid_with_type, -- Pack, Membership, Prepaid
      coalesce(round(pv.per_visit), 0)::bigint as estimated_amount,
      vpl.id as plan_id,
      vpl.plan_product_id,
      vp.id as punch_id,
      case when vpl.type = 'Pack' then vpl.id end as punchcard_id -- a pack's id is its plan id
    from sel_v v ${enrollmentJoins("v")}
    left join leases le on le.business_id = v.business_id and le.id = v.lease_id
    left join bookings bk on bk.business_id = v.business_id and bk.id = v.booking_id
    left join enrolled we on we.business_id = v.business_id and we.event_occurrence_id = v.event_occurrence_id and we.person_id = v.person_id
    left join firsts fv on fv.business_id = v.business_id and fv.id = v.id
    left join make_ups mu on mu.business_id = v.business_id and mu.visit_id = v.id
    left join punches vp on vp.business_id = v.business_id and vp.id = v.punch_id
    left join plans vpl on vpl.business_id = vp.business_id and vpl.id = vp.plan_id
    left join plan_value pv on pv.business_id = vp.business_id and pv.plan_id = vp.plan_id
    union all
    select
      w.business_id || '-w' || w.id as key,${enrollmentCommon("w")},
      case w.state when 'pending' then 'waiting' else w.state end as state,
      null::bigint as visit_id,
      w.id as waitlist_id,
      w.created_at as waitlisted_at,
      null::timestamptz as registered_at,
      null::timestamptz as completed_at,
      null::timestamptz as noshow_at,
      null::timestamptz as cancelled_at,
      false as bulk_enrolled,
      w.created_by_staff_member_id is null as client_booked,
      false as consider_member,
      false as first_visit,
      false as is_paid,
      false as is_rollover,
      true as is_waitlist,
      false as make_up_issued,
      null::text as paid_with,
      false as paid_with_complimentary_pass,
      null::text as paid_with_type,
      0::bigint as estimated_amount,
      null::bigint as plan_id,
      null::bigint as plan_product_id,
      null::bigint as punch_id,
      null::bigint as punchcard_id
    from sel_w w ${enrollmentJoins("w")}
    where w.state <> 'enrolled'`
}
