import { personPlansChanges } from "./person-plan-changes.ts"
import { availableOnSql, onHoldOnSql, planTypeSql, punchesCountedSql, visitsLeftSql } from "./plans.ts"
import { businessColumns, franchiseId, franchiseJoin, fullName, localTime, type StoreTable, businessesToday } from "./types.ts"

/** The business's calendar date today (`businessesToday`, joined as `b`). */
const today = "b.today"

/** A local calendar date of an instant in the business's zone. */
const localDate = (column: string) => `(${column} at time zone b.time_zone)::date`

/**
 * Person plans (`person_plans`): one row per plan and holder (`plan_people`), so a plan shared
 * by a family has a row per member. Its standing (available, on hold, visits left) is the plan
 * rules' (src/shared/plan-rules.ts) on the business's date at the sync; the incremental sync
 * re-reads a row when its plan, holds or punches change (report_plan_changes), when its person
 * changes, or when the business's day turns over one of its dates (person-plan-changes.ts).
 *
 * The person's plans are ordered by (start_date, id): "first plan", "first membership" and
 * "next plan" (the one after this one in that order) read that order. A visit of the plan is a
 * visit it punched for this person, registered or completed.
 *
 * `where` is a condition on `pp` (the `plan_people` row).
 */
export const personPlansTable: StoreTable = {
  name: "person_plans",
  changes: personPlansChanges,
  columns: [
    ["key", "VARCHAR NOT NULL"],
    ...businessColumns,
    ["person_plan_id", "BIGINT NOT NULL"],
    ["person_id", "BIGINT NOT NULL"],
    ["first_name", "VARCHAR"],
    ["middle_name", "VARCHAR"],
    ["last_name", "VARCHAR"],
    ["full_name", "VARCHAR"],
    ["email", "VARCHAR"],
    ["home_location_name", "VARCHAR"],
    ["primary_staff_name", "VARCHAR"],
    ["account_manager_emails", "VARCHAR"],
    ["account_manager_names", "VARCHAR"],
    ["account_manager_phones", "VARCHAR"],
    ["plan_id", "BIGINT NOT NULL"],
    ["plan_name", "VARCHAR"],
    ["plan_type", "VARCHAR"],
    ["plan_product_id", "BIGINT"],
    ["product_id", "BIGINT"],
    ["product_name", "VARCHAR"],
    ["revenue_category", "VARCHAR"],
    ["plan_location_id", "BIGINT"],
    ["plan_location_name", "VARCHAR"],
    ["allowed_visit_count", "BIGINT"],
    ["are_visits_shared", "BOOLEAN"],
    ["base_price", "BIGINT"],
    ["start_date", "DATE NOT NULL"],
    ["end_date", "DATE"],
    ["canceled_at", "TIMESTAMPTZ"],
    ["canceled_by", "VARCHAR"],
    ["canceled_by_account_id", "BIGINT"],
    ["deactivated_at", "TIMESTAMPTZ"],
    ["exhausted_at", "TIMESTAMPTZ"],
    ["last_usable_date", "DATE"],
    ["cancellation_fee_amount", "BIGINT"],
    ["charged_cancellation_fee_amount", "BIGINT"],
    ["has_cancellation_fee", "BOOLEAN"],
    ["is_cancellation_fee_charged", "BOOLEAN"],
    ["commitment_length", "BIGINT"],
    ["remaining_commitment", "BIGINT"],
    ["stop_renewing_after_commitment", "BOOLEAN"],
    ["invoice_interval_count", "BIGINT"],
    ["invoice_interval_unit", "VARCHAR"],
    ["grants_membership", "BOOLEAN"],
    ["is_available", "BOOLEAN"],
    ["is_on_hold", "BOOLEAN"],
    ["is_canceled", "BOOLEAN"],
    ["is_deactivated", "BOOLEAN"],
    ["is_ended", "BOOLEAN"],
    ["is_exhausted", "BOOLEAN"],
    ["is_complimentary_pass", "BOOLEAN"],
    ["is_first_plan", "BOOLEAN"],
    ["is_first_membership", "BOOLEAN"],
    ["is_primary_participant", "BOOLEAN"],
    ["last_hold_by", "VARCHAR"],
    ["last_hold_by_account_id", "BIGINT"],
    ["last_hold_start_date", "DATE"],
    ["last_hold_end_date", "DATE"],
    ["is_last_hold_indefinite", "BOOLEAN"],
    ["remaining_visit_count", "BIGINT"],
    ["used_visit_count", "BIGINT"],
    ["lifetime_used_visit_count", "BIGINT"],
    ["completed_visit_count", "BIGINT"],
    ["rollover_count", "BIGINT"],
    ["visit_refresh_interval_count", "BIGINT"],
    ["visit_refresh_interval_unit", "VARCHAR"],
    ["first_visit_at", "TIMESTAMP"],
    ["first_visit_instructor_names", "VARCHAR"],
    ["last_visit_at", "TIMESTAMP"],
    ["used_for_initial_visit", "BOOLEAN"],
    ["next_plan_id", "BIGINT"],
    ["next_plan_name", "VARCHAR"],
    ["next_plan_type", "VARCHAR"],
    ["next_plan_revenue_category", "VARCHAR"],
    ["next_plan_start_date", "DATE"],
    ["next_plan_grants_membership", "BOOLEAN"],
    ["latest_invoice_autobill", "BOOLEAN"],
    ["latest_invoice_due_date", "DATE"],
    ["latest_invoice_item_amount", "BIGINT"],
    ["latest_invoice_past_due", "BOOLEAN"],
    ["term_acceptance_required", "BOOLEAN"],
    ["term_accepted", "BOOLEAN"]
  ],
  select: (where) => `
    -- Each holder's plans in (start_date, id) order, with the plan after each: one sort per
    -- statement (a lateral per row read the person's plans again for each of them).
    with ordered as materialized (
      select opp.business_id, opp.person_id, op.id as plan_id,
             lead(op.id) over (partition by opp.business_id, opp.person_id order by op.start_date, op.id) as next_plan_id
      from plan_people opp join plans op on op.business_id = opp.business_id and op.id = opp.plan_id
      where (opp.business_id, opp.person_id) in (select pp.business_id, pp.person_id from plan_people pp where ${where})),
    -- Each holder's first visit (registered or completed), one sort per statement: a lateral per
    -- row read all of the person's visits for each of their plans.
    first_visit as materialized (
      select distinct on (fv.business_id, fv.person_id) fv.business_id, fv.person_id, fv.punch_id
      from visits fv
      join event_occurrences fo on fo.business_id = fv.business_id and fo.id = fv.event_occurrence_id
      where (fv.business_id, fv.person_id) in (select pp.business_id, pp.person_id from plan_people pp where ${where})
        and fv.state in ('registered', 'completed')
      order by fv.business_id, fv.person_id, fo.start_at, fv.id)
    select
      pp.business_id || '-' || pp.plan_id || '-' || pp.person_id as key,
      pp.business_id,
      b.name as business_name,
      b.subdomain as business_subdomain,
      ${franchiseId("b")} as franchise_id,
      b.currency_code,
      b.time_zone,
      pl.id as person_plan_id,
      pp.person_id,
      p.first_name,
      p.middle_name,
      p.last_name,
      ${fullName("p")} as full_name,
      p.email::text as email,
      hl.name as home_location_name,
      null::text as primary_staff_name, -- people have no primary staff member in the Core API
      mgr.emails as account_manager_emails,
      mgr.names as account_manager_names,
      mgr.phones as account_manager_phones,
      pl.id as plan_id,
      pl.name as plan_name,
      ${planTypeSql("pl", "pr")} as plan_type,
      pl.plan_product_id,
      pl.plan_product_id as product_id,
      pr.name as product_name,
      rc.name as revenue_category,
      pl.location_id as plan_location_id,
      ploc.name as plan_location_name,
      pl.count as allowed_visit_count,
      pl.visits_shared as are_visits_shared,
      pl.price_cents as base_price,
      pl.start_date,
      pl.end_date,
      pl.canceled_at,
      nullif(concat_ws(' ', nullif(ca.first_name, ''), nullif(ca.last_name, '')), '') as canceled_by,
      pl.canceled_by_account_id,
      pl.deactivated_at,
      pl.exhausted_at,
      least(pl.end_date, ${localDate("pl.exhausted_at")}, ${localDate("pl.deactivated_at")}) as last_usable_date,
      pr.cancellation_fee_cents as cancellation_fee_amount,
      null::bigint as charged_cancellation_fee_amount, -- cancellation fees are not charged by the Core API yet
      coalesce(pr.cancellation_fee_cents, 0) > 0 as has_cancellation_fee,
      null::boolean as is_cancellation_fee_charged, -- nor recorded as charged
      pr.commitment_length,
      -- Commitment units not yet elapsed since the start (0 once served, null without one).
      case when pr.commitment_length is not null then greatest(0, pr.commitment_length - case pr.commitment_unit
        when 'day' then ${today} - pl.start_date
        when 'week' then (${today} - pl.start_date) / 7
        when 'month' then (extract(year from age(${today}, pl.start_date)) * 12 + extract(month from age(${today}, pl.start_date)))::int
        else extract(year from age(${today}, pl.start_date))::int end) end as remaining_commitment,
      pr.stop_renewing_after_commitment,
      case when pl.type = 'Membership' then pr.invoice_interval_count end as invoice_interval_count,
      case when pl.type = 'Membership' then coalesce(pr.invoice_interval_unit, 'not_applicable') else 'not_applicable' end as invoice_interval_unit,
      pl.consider_member as grants_membership,
      st.available as is_available,
      st.on_hold as is_on_hold,
      pl.canceled_at is not null as is_canceled,
      pl.deactivated_at is not null as is_deactivated,
      coalesce(pl.end_date < ${today}, false) as is_ended,
      pl.exhausted_at is not null as is_exhausted,
      pl.is_complimentary as is_complimentary_pass,
      ord.first_plan_id = pl.id as is_first_plan,
      coalesce(ord.first_membership_id = pl.id, false) as is_first_membership,
      pp.is_primary as is_primary_participant,
      nullif(concat_ws(' ', nullif(ha.first_name, ''), nullif(ha.last_name, '')), '') as last_hold_by,
      lh.created_by_account_id as last_hold_by_account_id,
      lh.start_date as last_hold_start_date,
      lh.end_date as last_hold_end_date,
      lh.id is not null and lh.end_date is null as is_last_hold_indefinite,
      st.remaining as remaining_visit_count,
      st.used as used_visit_count,
      coalesce(pv.used, 0)::bigint as lifetime_used_visit_count,
      coalesce(pv.completed, 0)::bigint as completed_visit_count,
      pl.rollover_count,
      case when pl.limit_period is not null then 1 end as visit_refresh_interval_count,
      pl.limit_period as visit_refresh_interval_unit, -- week, month or year
      ${localTime("pv.first_at", "b.time_zone")} as first_visit_at,
      fins.names as first_visit_instructor_names,
      ${localTime("pv.last_at", "b.time_zone")} as last_visit_at,
      coalesce(iv.plan_id = pl.id, false) as used_for_initial_visit,
      np.id as next_plan_id,
      np.name as next_plan_name,
      case when np.id is null then 'not_applicable' else ${planTypeSql("np", "npr")} end as next_plan_type,
      nrc.name as next_plan_revenue_category,
      np.start_date as next_plan_start_date,
      np.consider_member as next_plan_grants_membership,
      -- The plan's latest invoice (its sale, or a renewal of automatic billing). It has no due
      -- date of its own: it is due on its date, and past due while open after it.
      li.autobill as latest_invoice_autobill,
      li.invoice_date as latest_invoice_due_date,
      li.total_cents::bigint as latest_invoice_item_amount,
      case when li.id is not null then li.state = 'open' and li.invoice_date < ${today} end as latest_invoice_past_due,
      pr.terms_acceptance_required as term_acceptance_required,
      coalesce(tm.accepted_at is not null, false) as term_accepted
    from plan_people pp
    join ${businessesToday} b on b.id = pp.business_id
    ${franchiseJoin("b")}
    join plans pl on pl.business_id = pp.business_id and pl.id = pp.plan_id
    join people p on p.business_id = pp.business_id and p.id = pp.person_id
    join plan_products pr on pr.business_id = pl.business_id and pr.id = pl.plan_product_id
    left join revenue_categories rc on rc.business_id = pr.business_id and rc.id = pr.revenue_category_id
    left join locations ploc on ploc.business_id = pl.business_id and ploc.id = pl.location_id
    left join locations hl on hl.business_id = p.business_id and hl.id = p.location_id
    left join accounts ca on ca.id = pl.canceled_by_account_id
    left join plan_terms tm on tm.business_id = pl.business_id and tm.plan_id = pl.id
    -- The plan rules on the business's date, once per row.
    cross join lateral (
      select ${availableOnSql("pl", "pp.person_id", today)} as available,
             ${onHoldOnSql("pl", today)} as on_hold,
             ${visitsLeftSql("pl", "pp.person_id", today)} as remaining,
             ${punchesCountedSql("pl", "pp.person_id", today)}::bigint as used
      offset 0) st
    left join lateral (
      select string_agg(m.email::text, ', ' order by m.last_name collate "C", m.first_name collate "C", m.id) as emails,
             string_agg(${fullName("m")}, ', ' order by m.last_name collate "C", m.first_name collate "C", m.id) as names,
             string_agg(m.phone, ', ' order by m.last_name collate "C", m.first_name collate "C", m.id) as phones
      from person_relationships r
      join people m on m.business_id = r.business_id and m.id = r.provider_id
      where r.business_id = pp.business_id and r.dependent_id = pp.person_id) mgr on true
    -- The last hold, by start date.
    left join lateral (
      select lh.* from plan_holds lh where lh.business_id = pl.business_id and lh.plan_id = pl.id
      order by lh.start_date desc, lh.id desc limit 1) lh on true
    left join accounts ha on ha.id = lh.created_by_account_id
    -- The plan's punches for this person: all, completed, and the first and last visit they paid.
    left join lateral (
      select count(*) as used,
             count(*) filter (where v.state = 'completed') as completed,
             min(o.start_at) filter (where v.state in ('registered', 'completed')) as first_at,
             max(o.start_at) filter (where v.state in ('registered', 'completed')) as last_at,
             (array_agg(o.id order by o.start_at, o.id) filter (where v.state in ('registered', 'completed')))[1] as first_occurrence_id
      from punches q
      join visits v on v.business_id = q.business_id and v.id = q.visit_id
      join event_occurrences o on o.business_id = v.business_id and o.id = v.event_occurrence_id
      where q.business_id = pp.business_id and q.plan_id = pp.plan_id and q.person_id = pp.person_id) pv on true
    left join lateral (
      select string_agg(${fullName("sp")}, ', ' order by os.position, sm.id) as names
      from event_occurrence_staff_members os
      join staff_members sm on sm.business_id = os.business_id and sm.id = os.staff_member_id
      join people sp on sp.business_id = sm.business_id and sp.id = sm.person_id
      where os.business_id = pp.business_id and os.event_occurrence_id = pv.first_occurrence_id) fins on true
    -- The plan that paid the person's first visit (registered or completed), if one did.
    left join first_visit fvr on fvr.business_id = pp.business_id and fvr.person_id = pp.person_id
    left join punches iv on iv.business_id = fvr.business_id and iv.id = fvr.punch_id
    -- The person's plans in (start_date, id) order: the first, the first membership, the next.
    left join lateral (
      select (array_agg(op.id order by op.start_date, op.id))[1] as first_plan_id,
             (array_agg(op.id order by op.start_date, op.id) filter (where op.consider_member))[1] as first_membership_id
      from plan_people opp join plans op on op.business_id = opp.business_id and op.id = opp.plan_id
      where opp.business_id = pp.business_id and opp.person_id = pp.person_id) ord on true
    left join ordered nx on nx.business_id = pp.business_id and nx.person_id = pp.person_id and nx.plan_id = pp.plan_id
    left join plans np on np.business_id = nx.business_id and np.id = nx.next_plan_id
    left join lateral (
      select inv.id, inv.invoice_date, inv.state, it.total_cents, s.autobill
      from (select r.invoice_item_id as item_id, false as autobill from invoice_item_recipients r
             where r.business_id = pl.business_id and r.plan_id = pl.id
            union all
            select bi.id, true from membership_billing_periods m
              join invoice_items bi on bi.business_id = m.business_id and bi.invoice_id = m.invoice_id and bi.kind = 'plan'
             where m.business_id = pl.business_id and m.plan_id = pl.id) s
      join invoice_items it on it.business_id = pl.business_id and it.id = s.item_id
      join invoices inv on inv.business_id = it.business_id and inv.id = it.invoice_id
      where inv.state not in ('cart', 'cart_hidden')
      -- A renewal's invoice also names the plan among its recipients: read as autobilled.
      order by inv.invoice_date desc, inv.id desc, s.autobill desc limit 1) li on true
    left join plan_products npr on npr.business_id = np.business_id and npr.id = np.plan_product_id
    left join revenue_categories nrc on nrc.business_id = npr.business_id and nrc.id = npr.revenue_category_id
    where ${where}`
}
