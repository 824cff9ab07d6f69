import { changedPayersSql, clientMoneyCtes } from "./client-money.ts"
import { type ChangeScope, changeLog, inLogs } from "./change-scope.ts"
import { availableOnSql, changedPlans, changedProductHoldersSql, currentOnSql, onHoldOnSql, planTypeSql, turnedDayHoldersSql } from "./plans.ts"
import { customFieldValuesSql } from "./custom-fields.ts"
import { businessColumns, franchiseId, franchiseJoin, fullName, type StoreTable, businessesToday } from "./types.ts"

/**
 * PostgreSQL rows whose change can alter a client row, as `(business_id, id)` of the people
 * concerned. Runs inside the sync's snapshot with `$1` = changed since, after
 * report_changed_plans is filled. Deleting a
 * relationship or a staff member leaves no timestamp behind: those show at the nightly rebuild.
 */
export const changedPeopleSql = `
  select p.business_id, p.id from people p
   where greatest(p.updated_at, p.created_at, p.deleted_at, p.hidden_at) > $1
  union
  select s.business_id, s.person_id from staff_members s where greatest(s.updated_at, s.created_at) > $1
  union
  select r.business_id, r.provider_id from person_relationships r where r.created_at > $1
  union
  select r.business_id, r.dependent_id from person_relationships r where r.created_at > $1
  union
  select p.business_id, p.id from people p join accounts a on a.id = p.account_id where a.updated_at > $1
  union
  select p.business_id, p.id from people p join locations l on l.business_id = p.business_id and l.id = p.location_id
   where l.updated_at > $1
  union
  select p.business_id, p.id from people p join businesses b on b.id = p.business_id where b.updated_at > $1
  union
  -- A new (or re-parented) franchisee changes its holding's franchise_id.
  select p.business_id, p.id from people p join businesses f on f.franchise_parent_id = p.business_id
   where greatest(f.created_at, f.updated_at) > $1
  union
  -- A provider's own changes show in their dependents' rows, and the other way round.
  select r.business_id, r.dependent_id from person_relationships r
    join people m on m.business_id = r.business_id and m.id = r.provider_id where m.updated_at > $1
  union
  select r.business_id, r.provider_id from person_relationships r
    join people d on d.business_id = r.business_id and d.id = r.dependent_id where d.updated_at > $1
  union
  -- Their visits and waivers show in their client row.
  select v.business_id, v.person_id from visits v where greatest(v.updated_at, v.created_at) > $1 and v.person_id is not null
  union
  select d.business_id, d.person_id from report_enrollment_deletions d where d.deleted_at > $1 and d.person_id is not null
  union
  select w.business_id, w.person_id from waivers w where greatest(w.updated_at, w.created_at) > $1
  union
  -- Plans changed (report_changed_plans, filled first): their holders, the people of their
  -- punches, and holders added or removed (recorded with the change).
  select cpp.business_id, cpp.person_id from plan_people cpp
    join report_changed_plans c on c.business_id = cpp.business_id and c.id = cpp.plan_id
  union
  select q.business_id, q.person_id from punches q
    join report_changed_plans c on c.business_id = q.business_id and c.id = q.plan_id
  union
  select c.business_id, c.person_id from report_plan_changes c where c.changed_at > $1 and c.person_id is not null
  union
  ${changedPayersSql}`

export const changedPeople = changeLog("report_changed_people", changedPeopleSql, [changedPlans])

/**
 * People whose client row alone may have changed (their enrollments did not): holders of plans
 * whose product was edited, or whose plans' standing turned with the day.
 */
export const changedClients = changeLog("report_changed_clients", `${changedProductHoldersSql} union ${turnedDayHoldersSql}`)

/** A person's rows (`p`) read again when the person changed, replaced by key (clients', staff members'). */
export const personChanges = (metrics: boolean): ChangeScope => ({
  logs: [changedPeople, changedClients],
  where: inLogs("(p.business_id, p.id)", [changedPeople, changedClients]),
  replaces: { kind: "key" },
  metrics
})

/** The business's calendar date today (`businessesToday`, joined as `b`). */
const today = "b.today"

/** Clients: one row per person, in every state (person_state tells active, hidden, deleted). */
export const clientsTable: StoreTable = {
  name: "clients",
  changes: personChanges(true),
  columns: [
    ["key", "VARCHAR NOT NULL"],
    ...businessColumns,
    ["person_id", "BIGINT NOT NULL"],
    ["first_name", "VARCHAR"],
    ["middle_name", "VARCHAR"],
    ["last_name", "VARCHAR"],
    ["full_name", "VARCHAR"],
    ["email", "VARCHAR"],
    ["phone", "VARCHAR"],
    ["address", "VARCHAR"],
    ["birthdate", "DATE"],
    ["account_claim_date", "DATE"],
    ["account_credit_amount", "BIGINT"],
    ["account_manager_emails", "VARCHAR"],
    ["account_manager_names", "VARCHAR"],
    ["account_manager_phones", "VARCHAR"],
    ["also_staff", "BOOLEAN"],
    ["client_since_date", "DATE"],
    ["completed_visits", "BIGINT"],
    ["current_plan_revenue_category", "VARCHAR"],
    ["current_plan_types", "VARCHAR"],
    ["current_plans", "VARCHAR"],
    ["dependent_names", "VARCHAR"],
    ["first_visit_date", "DATE"],
    ["future_visits", "BIGINT"],
    ["guardian_email", "VARCHAR"],
    ["guardian_name", "VARCHAR"],
    ["has_membership", "BOOLEAN"],
    ["has_payment_on_file", "BOOLEAN"],
    ["has_plan_on_hold", "BOOLEAN"],
    ["has_signed_waiver", "BOOLEAN"],
    ["home_location_name", "VARCHAR"],
    ["is_schedulable", "BOOLEAN"],
    ["last_email_bounced", "BOOLEAN"],
    ["last_invoice_amount", "BIGINT"],
    ["last_invoice_date", "DATE"],
    ["last_invoice_id", "BIGINT"],
    ["last_invoice_unpaid", "BOOLEAN"],
    ["last_membership_end_date", "DATE"],
    ["last_signed_waiver_name", "VARCHAR"],
    ["last_site_access_date", "DATE"],
    ["last_visit_date", "DATE"],
    ["last_visit_id", "BIGINT"],
    ["last_visit_service", "VARCHAR"],
    ["net_paid_amount", "BIGINT"],
    ["next_pass_plan_end_date", "DATE"],
    ["person_state", "VARCHAR NOT NULL"],
    ["primary_staff_name", "VARCHAR"],
    ["revenue_amount", "BIGINT"],
    ["source_name", "VARCHAR"],
    ["staff_member_who_added", "VARCHAR"],
    ["unpaid_visits", "BIGINT"],
    // The person's custom field values as a JSON object text, {"<custom field id>": value}: the
    // text, true/false, or a select field's option texts joined by ", " (the Core API's values).
    ["custom_field_values", "VARCHAR"]
  ],
  select: (where) => `
    -- Visits, in one pass: attended (completed), booked ahead (reserved or registered, not
    -- started), unpaid, and the first and the last (started) visit that counts (registered or
    -- completed); the last as [start epoch, visit id], the greatest such pair.
    with pv as (
      select v.business_id, v.person_id,
             count(*) filter (where v.state = 'completed') as completed,
             count(*) filter (where v.state in ('reserved', 'registered') and o.start_at > now()) as future,
             count(*) filter (where v.state = 'completed' and v.punch_id is null) as unpaid,
             min(o.start_at) filter (where v.state in ('registered', 'completed')) as first_at,
             max(array[extract(epoch from o.start_at), v.id]) filter (where v.state in ('registered', 'completed') and o.start_at <= now()) as last
      from visits v
      join event_occurrences o on o.business_id = v.business_id and o.id = v.event_occurrence_id
      where (v.business_id, v.person_id) in (select p.business_id, p.id from people p where ${where})
      group by 1, 2),
    -- Their plans today. Current plans: available (current, not on hold, visits left); a
    -- membership: an available plan granting membership (consider_member); on hold: current and
    -- on hold. A plan's last usable date is the earliest of its end date, its exhaustion and its
    -- deactivation (person_plans' last_usable_date): the last membership end date is the latest
    -- of the membership-granting plans', null when one of them has none. The rules are evaluated
    -- once per plan and holder (\`offset 0\` keeps the planner from copying them into each use).
    pp as (
      select r.business_id, r.person_id,
             string_agg(r.name, ', ' order by r.name collate "C", r.id) filter (where r.available) as names,
             string_agg(distinct r.type collate "C", ', ' order by r.type collate "C") filter (where r.available) as types,
             string_agg(distinct r.revenue_category collate "C", ', ' order by r.revenue_category collate "C") filter (where r.available) as revenue_categories,
             bool_or(r.available and r.consider_member) as membership,
             bool_or(r.current and r.on_hold) as on_hold,
             min(r.end_date) filter (where r.available) as next_end,
             max(r.last_usable) filter (where r.consider_member) as last_membership_end,
             bool_or(r.last_usable is null) filter (where r.consider_member) as unlimited_membership
      from (
        select cpp.business_id, cpp.person_id, cpl.id, cpl.name, cpl.consider_member, cpl.end_date,
               ${planTypeSql("cpl", "cpr")} as type,
               rc.name as revenue_category,
               ${availableOnSql("cpl", "cpp.person_id", today)} as available,
               ${currentOnSql("cpl", today)} as current,
               ${onHoldOnSql("cpl", today)} as on_hold,
               least(cpl.end_date, (cpl.exhausted_at at time zone b.time_zone)::date,
                     (cpl.deactivated_at at time zone b.time_zone)::date) as last_usable
        from plan_people cpp
        join ${businessesToday} b on b.id = cpp.business_id
        join plans cpl on cpl.business_id = cpp.business_id and cpl.id = cpp.plan_id
        join plan_products cpr on cpr.business_id = cpl.business_id and cpr.id = cpl.plan_product_id
        left join revenue_categories rc on rc.business_id = cpr.business_id and rc.id = cpr.revenue_category_id
        where (cpp.business_id, cpp.person_id) in (select p.business_id, p.id from people p where ${where})
        offset 0) r
      group by 1, 2),
    ${clientMoneyCtes(where)}
    select
      p.business_id || '-' || p.id as key,
      p.business_id,
      b.name as business_name,
      b.subdomain as business_subdomain,
      ${franchiseId("b")} as franchise_id,
      b.currency_code,
      b.time_zone,
      p.id as person_id,
      p.first_name,
      p.middle_name,
      p.last_name,
      ${fullName("p")} as full_name,
      p.email::text as email,
      p.phone,
      p.address,
      p.birthdate,
      -- Claimed: the person's account can sign in (it has a password); dated by its confirmation.
      case when a.password_hash is not null
           then (coalesce(a.email_confirmed_at, a.created_at) at time zone b.time_zone)::date end as account_claim_date,
      coalesce(credit.balance, 0)::bigint as account_credit_amount,
      managers.emails as account_manager_emails,
      managers.names as account_manager_names,
      managers.phones as account_manager_phones,
      s.id is not null as also_staff,
      (p.joined_at at time zone b.time_zone)::date as client_since_date,
      coalesce(pv.completed, 0)::bigint as completed_visits,
      pl.revenue_categories as current_plan_revenue_category,
      pl.types as current_plan_types,
      pl.names as current_plans,
      dependents.names as dependent_names,
      (pv.first_at at time zone b.time_zone)::date as first_visit_date,
      coalesce(pv.future, 0)::bigint as future_visits, -- as of the sync (the nightly rebuild moves "now")
      managers.first_email as guardian_email,
      managers.first_name as guardian_name,
      coalesce(pl.membership, false) as has_membership,
      -- A usable stored form of payment: an ACH account, or a card not expired this month.
      exists (select 1 from forms_of_payment f
               where f.business_id = p.business_id and f.person_id = p.id
                 and (f.type = 'ach' or f.expire_year is null or f.expire_month is null
                      or make_date(f.expire_year, f.expire_month, 1) >= date_trunc('month', ${today})::date)) as has_payment_on_file,
      coalesce(pl.on_hold, false) as has_plan_on_hold,
      coalesce(pw.signed, false) as has_signed_waiver,
      l.name as home_location_name,
      (p.deleted_at is null and p.hidden_at is null) as is_schedulable,
      false as last_email_bounced, -- no bounce tracking yet
      li.total_cents::bigint as last_invoice_amount,
      li.invoice_date as last_invoice_date,
      li.id as last_invoice_id,
      coalesce(li.unpaid, false) as last_invoice_unpaid,
      case when not pl.unlimited_membership then pl.last_membership_end end as last_membership_end_date,
      pw.last_name as last_signed_waiver_name,
      null::date as last_site_access_date, -- no sign-in log yet
      (lo.start_at at time zone b.time_zone)::date as last_visit_date,
      lv.id as last_visit_id,
      lvs.name as last_visit_service,
      coalesce(pm.net_paid, 0)::bigint as net_paid_amount,
      pl.next_end as next_pass_plan_end_date,
      case when p.deleted_at is not null then 'deleted' when p.hidden_at is not null then 'hidden' else 'active' end as person_state,
      null::text as primary_staff_name, -- people have no primary staff member yet
      coalesce(pm.revenue, 0)::bigint as revenue_amount,
      'unknown' as source_name, -- the Core API does not record how a person was added yet
      null::text as staff_member_who_added, -- nor by whom
      coalesce(pv.unpaid, 0)::bigint as unpaid_visits, -- completed visits without a punch
      ${customFieldValuesSql("p")} as custom_field_values
    from people p
    join ${businessesToday} b on b.id = p.business_id
    ${franchiseJoin("b")}
    left join accounts a on a.id = p.account_id
    left join staff_members s on s.business_id = p.business_id and s.person_id = p.id
    left join locations l on l.business_id = p.business_id and l.id = p.location_id
    -- Account managers: the providers (parents, guardians) who act for this person.
    left join lateral (
      select string_agg(m.email::text, ', ' order by m.last_name collate "C", m.first_name collate "C", m.id) as emails,
             string_agg(${fullName("m")}, ', ' order by m.last_name collate "C", m.first_name collate "C", m.id) as names,
             string_agg(m.phone, ', ' order by m.last_name collate "C", m.first_name collate "C", m.id) as phones,
             (array_agg(m.email::text order by r.created_at, m.id))[1] as first_email,
             (array_agg(${fullName("m")} order by r.created_at, m.id))[1] as first_name
      from person_relationships r
      join people m on m.business_id = r.business_id and m.id = r.provider_id
      where r.business_id = p.business_id and r.dependent_id = p.id
    ) managers on true
    left join lateral (
      select string_agg(${fullName("d")}, ', ' order by d.last_name collate "C", d.first_name collate "C", d.id) as names
      from person_relationships r
      join people d on d.business_id = r.business_id and d.id = r.dependent_id
      where r.business_id = p.business_id and r.provider_id = p.id
    ) dependents on true
    left join pv on pv.business_id = p.business_id and pv.person_id = p.id
    left join pp pl on pl.business_id = p.business_id and pl.person_id = p.id
    left join pm on pm.business_id = p.business_id and pm.person_id = p.id
    left join li on li.business_id = p.business_id and li.person_id = p.id
    left join credit on credit.business_id = p.business_id and credit.person_id = p.id
    left join visits lv on lv.business_id = pv.business_id and lv.id = (pv.last[2])::bigint
    left join event_occurrences lo on lo.business_id = lv.business_id and lo.id = lv.event_occurrence_id
    left join services lvs on lvs.business_id = lo.business_id and lvs.id = lo.service_id
    left join lateral (
      select bool_or(w.accepted) as signed,
             (array_agg(w.name order by w.accepted_at desc nulls last, w.id desc) filter (where w.accepted))[1] as last_name
      from waivers w where w.business_id = p.business_id and w.person_id = p.id
    ) pw on true
    where ${where}`
}
