/**
 * The tables of the report store: their DuckDB columns and the PostgreSQL query that fills
 * them. One denormalized table per report resource, plus `custom_fields` (the definitions
 * that `clients.custom_fields` expands to). The PostgreSQL query is the one place a field's
 * source is decided: fields whose source data does not exist in the Core API yet are
 * constants here (NULL, 0 or false, each with its reason), so when that data lands only this
 * file changes.
 */

export interface StoreTable {
  readonly name: string
  /** Column name and DuckDB type, in the order the PostgreSQL query returns them. */
  readonly columns: ReadonlyArray<readonly [string, string]>
  /**
   * The PostgreSQL SELECT, restricted by `where` (a condition on the row's person `p` for
   * clients). COPY cannot take bind parameters, so `where` is a fixed text (see sync.ts).
   */
  readonly select: (where: string) => string
  /** The row's business in `select`'s terms (for reading a table in parts by business). */
  readonly businessIdSql: string
}

export const createTableSql = (table: StoreTable) =>
  `CREATE TABLE ${table.name} (${table.columns.map(([name, type]) => `${name} ${type}`).join(", ")})`

/** "First Last", without stray spaces when a part is empty. */
const fullName = (alias: string) => `nullif(concat_ws(' ', nullif(${alias}.first_name, ''), nullif(${alias}.last_name, '')), '')`

/**
 * A franchisee reports its holding; a holding itself; a plain business nothing. The holdings
 * are joined once (`franchiseJoin` after the business's join), not looked up per row.
 */
const franchiseId = (business: string) => `coalesce(${business}.franchise_parent_id, holding_of_${business}.id)`
const franchiseJoin = (business: string) =>
  `left join (select franchise_parent_id as id from businesses where franchise_parent_id is not null group by 1) holding_of_${business}
      on holding_of_${business}.id = ${business}.id`

/** Clients: one row per person, in every state (person_state tells active, hidden, deleted). */
export const clientsTable: StoreTable = {
  name: "clients",
  businessIdSql: "p.business_id",
  columns: [
    ["key", "VARCHAR NOT NULL"],
    ["business_id", "BIGINT NOT NULL"],
    ["business_name", "VARCHAR"],
    ["business_subdomain", "VARCHAR"],
    ["franchise_id", "BIGINT"],
    ["currency_code", "VARCHAR"],
    ["time_zone", "VARCHAR NOT NULL"],
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
    ["unpaid_visits", "BIGINT"]
  ],
  select: (where) => `
    -- Visits, in one pass: attended (completed), booked ahead (reserved or registered, not
    -- started), unpaid, and the first and the last (started) visit that counts (registered or
    -- completed); the last as [start epoch, visit id], the greatest such pair.
    with pv as (
      select v.business_id, v.person_id,
             count(*) filter (where v.state = 'completed') as completed,
             count(*) filter (where v.state in ('reserved', 'registered') and o.start_at > now()) as future,
             count(*) filter (where v.state in ('registered', 'completed') and v.punch_id is null) as unpaid,
             min(o.start_at) filter (where v.state in ('registered', 'completed')) as first_at,
             max(array[extract(epoch from o.start_at), v.id]) filter (where v.state in ('registered', 'completed') and o.start_at <= now()) as last
      from visits v
      join event_occurrences o on o.business_id = v.business_id and o.id = v.event_occurrence_id
      where (v.business_id, v.person_id) in (select p.business_id, p.id from people p where ${where})
      group by 1, 2)
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
      null::text as address, -- people have no address in the Core API yet
      p.birthdate,
      -- Claimed: the person's account can sign in (it has a password); dated by its confirmation.
      case when a.password_hash is not null
           then (coalesce(a.email_confirmed_at, a.created_at) at time zone b.time_zone)::date end as account_claim_date,
      0::bigint as account_credit_amount, -- no account credit yet (billing)
      managers.emails as account_manager_emails,
      managers.names as account_manager_names,
      managers.phones as account_manager_phones,
      s.id is not null as also_staff,
      (p.joined_at at time zone b.time_zone)::date as client_since_date,
      coalesce(pv.completed, 0)::bigint as completed_visits,
      null::text as current_plan_revenue_category, -- no plans yet (billing)
      null::text as current_plan_types, -- no plans yet
      null::text as current_plans, -- no plans yet
      dependents.names as dependent_names,
      (pv.first_at at time zone b.time_zone)::date as first_visit_date,
      coalesce(pv.future, 0)::bigint as future_visits, -- as of the sync (the nightly rebuild moves "now")
      managers.first_email as guardian_email,
      managers.first_name as guardian_name,
      p.is_member as has_membership, -- the Core API's membership flag until plans exist
      false as has_payment_on_file, -- no payment methods yet (billing)
      false as has_plan_on_hold, -- no plans yet
      coalesce(pw.signed, false) as has_signed_waiver,
      l.name as home_location_name,
      (p.deleted_at is null and p.hidden_at is null) as is_schedulable,
      false as last_email_bounced, -- no bounce tracking yet
      null::bigint as last_invoice_amount, -- no invoices yet (billing)
      null::date as last_invoice_date, -- no invoices yet
      null::bigint as last_invoice_id, -- no invoices yet
      false as last_invoice_unpaid, -- no invoices yet
      null::date as last_membership_end_date, -- no plans yet
      pw.last_name as last_signed_waiver_name,
      null::date as last_site_access_date, -- no sign-in log yet
      (lo.start_at at time zone b.time_zone)::date as last_visit_date,
      lv.id as last_visit_id,
      lvs.name as last_visit_service,
      0::bigint as net_paid_amount, -- no transactions yet (billing)
      null::date as next_pass_plan_end_date, -- no plans yet
      case when p.deleted_at is not null then 'deleted' when p.hidden_at is not null then 'hidden' else 'active' end as person_state,
      null::text as primary_staff_name, -- people have no primary staff member yet
      0::bigint as revenue_amount, -- no transactions yet
      'unknown' as source_name, -- the Core API does not record how a person was added yet
      null::text as staff_member_who_added, -- nor by whom
      coalesce(pv.unpaid, 0)::bigint as unpaid_visits -- no punches yet (billing): every attended or booked visit is unpaid
    from people p
    join businesses b on b.id = p.business_id
    ${franchiseJoin("b")}
    left join accounts a on a.id = p.account_id
    left join staff_members s on s.business_id = p.business_id and s.person_id = p.id
    left join locations l on l.business_id = p.business_id and l.id = p.location_id
    -- Account managers: the providers (parents, guardians) who act for this person.
    left join lateral (
      select string_agg(m.email::text, ', ' order by m.last_name, m.first_name, m.id) as emails,
             string_agg(${fullName("m")}, ', ' order by m.last_name, m.first_name, m.id) as names,
             string_agg(m.phone, ', ' order by m.last_name, m.first_name, m.id) as phones,
             (array_agg(m.email::text order by r.created_at, m.id))[1] as first_email,
             (array_agg(${fullName("m")} order by r.created_at, m.id))[1] as first_name
      from person_relationships r
      join people m on m.business_id = r.business_id and m.id = r.provider_id
      where r.business_id = p.business_id and r.dependent_id = p.id
    ) managers on true
    left join lateral (
      select string_agg(${fullName("d")}, ', ' order by d.last_name, d.first_name, d.id) as names
      from person_relationships r
      join people d on d.business_id = r.business_id and d.id = r.dependent_id
      where r.business_id = p.business_id and r.provider_id = p.id
    ) dependents on true
    left join pv on pv.business_id = p.business_id and pv.person_id = p.id
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

/** Custom field definitions: what `custom_fields` expands to. */
export const customFieldsTable: StoreTable = {
  name: "custom_fields",
  businessIdSql: "business_id",
  columns: [
    ["business_id", "BIGINT NOT NULL"],
    ["id", "BIGINT NOT NULL"],
    ["name", "VARCHAR NOT NULL"],
    ["data_type", "VARCHAR NOT NULL"],
    ["position", "INTEGER NOT NULL"]
  ],
  select: (where) => `select business_id, id, name, data_type, position from custom_fields where ${where}`
}

/**
 * PostgreSQL rows whose change can alter a client row, as `(business_id, id)` of the people
 * concerned. Runs inside the sync's snapshot with `$1` = changed since. Deleting a
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
  select w.business_id, w.person_id from waivers w where greatest(w.updated_at, w.created_at) > $1`

// ---------------------------------------------------------------------------------------------
// The schedule: event occurrences and their staff members

/**
 * Instants go out as PostgreSQL writes a timestamptz: the sync's session runs in UTC
 * (sync.ts), so `2024-06-05 00:00:00+00`, which DuckDB reads as TIMESTAMPTZ. (to_char costs
 * twice as much per value, and a million rows carry several each.)
 */
const utc = (column: string) => column

/** An instant as the wall-clock time in a zone, for a DuckDB TIMESTAMP (the catalogs' local dates, days and times). */
const localTime = (column: string, zone: string) => `(${column} at time zone ${zone})`

/**
 * Counts of an occurrence's enrollments: its visits by state, and its waitlist entries that did
 * not become visits (an `enrolled` entry is represented by its visit). Each reads the `vc`
 * (visits) and `wc` (waitlist entries) aggregates of `occurrenceCtes`.
 */
const OCCURRENCE_COUNTS: ReadonlyArray<readonly [name: string, sql: string]> = [
  ["completed_enrollment_count", "coalesce(vc.completed, 0)"],
  ["completed_unpaid_count", "coalesce(vc.completed_unpaid, 0)"], // no punches yet (billing): every completed visit is unpaid
  ["enrollment_count", "coalesce(vc.visits, 0) + coalesce(wc.entries, 0)"],
  ["expired_enrollment_count", "coalesce(wc.expired, 0)"],
  ["is_waitlist_count", "coalesce(wc.entries, 0)"],
  ["late_canceled_enrollment_count", "coalesce(vc.late_canceled, 0)"],
  ["noshowed_enrollment_count", "coalesce(vc.noshowed, 0)"],
  ["paid_count", "coalesce(vc.paid, 0)"],
  ["registered_enrollment_count", "coalesce(vc.registered, 0)"],
  ["removed_enrollment_count", "coalesce(wc.removed, 0)"],
  ["reserved_enrollment_count", "coalesce(vc.reserved, 0)"],
  ["visit_count", "coalesce(vc.visits, 0)"],
  ["waiting_enrollment_count", "coalesce(wc.waiting, 0)"],
  ["waitlist_to_visit_count", "coalesce(wc.enrolled, 0)"]
]

/** The columns of an occurrence, shared by both tables (the staff table drops instructor_names). */
const occurrenceColumns: ReadonlyArray<readonly [string, string]> = [
  ["business_id", "BIGINT NOT NULL"],
  ["business_name", "VARCHAR"],
  ["business_subdomain", "VARCHAR"],
  ["franchise_id", "BIGINT"],
  ["currency_code", "VARCHAR"],
  ["time_zone", "VARCHAR NOT NULL"],
  ["event_occurrence_id", "BIGINT NOT NULL"],
  ["event_id", "BIGINT"],
  ["event_name", "VARCHAR"],
  ["service_id", "BIGINT"],
  ["service_name", "VARCHAR"],
  ["service_category", "VARCHAR"],
  ["service_type", "VARCHAR"],
  ["service_state", "VARCHAR"],
  ["service_location_id", "BIGINT"],
  ["service_location_name", "VARCHAR"],
  ["start_at", "TIMESTAMPTZ NOT NULL"],
  ["end_at", "TIMESTAMPTZ NOT NULL"],
  ["local_start_at", "TIMESTAMP NOT NULL"],
  ["capacity", "BIGINT"],
  ["attendance_completed", "BOOLEAN"],
  ...OCCURRENCE_COUNTS.map(([name]) => [name, "BIGINT"] as const)
]

/** The SELECT list of `occurrenceColumns` (after `key`) over `o` (occurrence), `b`, `s`, `c`, `l`. */
const occurrenceSelect = `
      o.business_id,
      b.name as business_name,
      b.subdomain as business_subdomain,
      ${franchiseId("b")} as franchise_id,
      b.currency_code,
      o.time_zone, -- the event location's zone, else the business's (set when the occurrence is made)
      o.id as event_occurrence_id,
      o.event_id,
      o.name as event_name, -- the event's name when the occurrence was made (the service's for an appointment)
      o.service_id,
      s.name as service_name,
      c.name as service_category,
      case s.type when 'Appointment' then 'appointment' when 'GroupClass' then 'group_class' else 'course' end as service_type,
      -- Canceled and deleted occurrences are off the schedule; reserved ones (held by a booking) are on it.
      case when o.state in ('canceled', 'deleted') then 'deleted' else 'active' end as service_state,
      o.location_id as service_location_id,
      l.name as service_location_name,
      ${utc("o.start_at")} as start_at,
      ${utc("o.end_at")} as end_at,
      o.local_start_at,
      o.capacity::bigint as capacity, -- null: unlimited
      o.attendance_complete as attendance_completed,
      ${OCCURRENCE_COUNTS.map(([name, sql]) => `(${sql})::bigint as ${name}`).join(",\n      ")}`

/**
 * The occurrences a select covers (`where` is a condition on `o`) and their per-occurrence
 * aggregates, computed once per statement: visits by state (`vc`), waitlist entries by state
 * (`wc`) and the instructors' names (`ins`). Unreferenced ones cost nothing.
 */
const occurrenceCtes = (where: string) => `
    with sel_o as not materialized (
      select o.*, ${localTime("o.start_at", "o.time_zone")} as local_start_at from event_occurrences o where ${where}),
    vc as (
      select v.business_id, v.event_occurrence_id,
             count(*) as visits,
             count(*) filter (where v.state = 'completed') as completed,
             count(*) filter (where v.state = 'completed' and v.punch_id is null) as completed_unpaid,
             count(*) filter (where v.state = 'late_canceled') as late_canceled,
             count(*) filter (where v.state = 'noshowed') as noshowed,
             count(*) filter (where v.state = 'registered') as registered,
             count(*) filter (where v.state = 'reserved') as reserved,
             count(*) filter (where v.punch_id is not null) as paid
      from visits v where (v.business_id, v.event_occurrence_id) in (select business_id, id from sel_o)
      group by 1, 2),
    wc as (
      select w.business_id, w.event_occurrence_id,
             count(*) filter (where w.state <> 'enrolled') as entries,
             count(*) filter (where w.state in ('waiting', 'pending')) as waiting,
             count(*) filter (where w.state = 'expired') as expired,
             count(*) filter (where w.state = 'removed') as removed,
             count(*) filter (where w.state = 'enrolled') as enrolled
      from waitlist_entries w where (w.business_id, w.event_occurrence_id) in (select business_id, id from sel_o)
      group by 1, 2),
    ins as (
      select os.business_id, os.event_occurrence_id,
             string_agg(${fullName("sp")}, ', ' order by os.position, sm.id) as names,
             (array_agg(${fullName("sp")} order by os.position, sm.id))[1] as first_name
      from event_occurrence_staff_members os
      join staff_members sm on sm.business_id = os.business_id and sm.id = os.staff_member_id
      join people sp on sp.business_id = sm.business_id and sp.id = sm.person_id
      where (os.business_id, os.event_occurrence_id) in (select business_id, id from sel_o)
      group by 1, 2)`

const occurrenceFrom = `
    from sel_o o
    join businesses b on b.id = o.business_id
    ${franchiseJoin("b")}
    join services s on s.business_id = o.business_id and s.id = o.service_id
    left join service_categories c on c.business_id = s.business_id and c.id = s.category_id
    left join locations l on l.business_id = o.business_id and l.id = o.location_id
    left join vc on vc.business_id = o.business_id and vc.event_occurrence_id = o.id
    left join wc on wc.business_id = o.business_id and wc.event_occurrence_id = o.id`

/** Event occurrences: one row per occurrence, in every state (service_state tells deleted ones). */
export const eventOccurrencesTable: StoreTable = {
  name: "event_occurrences",
  businessIdSql: "o.business_id",
  columns: [["key", "VARCHAR NOT NULL"], ...occurrenceColumns, ["instructor_names", "VARCHAR"]],
  select: (where) => `${occurrenceCtes(where)}
    select
      o.business_id || '-' || o.id as key,${occurrenceSelect},
      ins.names as instructor_names
    ${occurrenceFrom}
    left join ins on ins.business_id = o.business_id and ins.event_occurrence_id = o.id`
}

/** One row per staff member of each occurrence; `where` is a condition on the occurrence `o`. */
export const eventOccurrenceStaffMembersTable: StoreTable = {
  name: "event_occurrence_staff_members",
  businessIdSql: "o.business_id",
  columns: [
    ["key", "VARCHAR NOT NULL"],
    ...occurrenceColumns,
    ["person_id", "BIGINT NOT NULL"],
    ["full_name", "VARCHAR"],
    ["email", "VARCHAR"],
    ["phone", "VARCHAR"],
    ["address", "VARCHAR"],
    ["home_location_id", "BIGINT"],
    ["home_location_name", "VARCHAR"],
    ["role", "VARCHAR"]
  ],
  select: (where) => `${occurrenceCtes(where)}
    select
      o.business_id || '-' || o.id || '-' || p.id as key,${occurrenceSelect},
      p.id as person_id,
      ${fullName("p")} as full_name,
      p.email::text as email,
      p.phone,
      null::text as address, -- people have no address in the Core API yet
      p.location_id as home_location_id,
      hl.name as home_location_name,
      sm.role
    ${occurrenceFrom}
    join event_occurrence_staff_members os on os.business_id = o.business_id and os.event_occurrence_id = o.id
    join staff_members sm on sm.business_id = os.business_id and sm.id = os.staff_member_id
    join people p on p.business_id = sm.business_id and p.id = sm.person_id
    left join locations hl on hl.business_id = p.business_id and hl.id = p.location_id`
}

/**
 * Occurrences whose rows (event_occurrences, their staff members, their enrollments) may have
 * changed, as `(business_id, id)`. Runs inside the sync's snapshot with `$1` = changed since,
 * after report_changed_people is filled. The schedule's writes bump the occurrence's
 * `updated_at` when they replace its staff; removing a staff member altogether (a cascade)
 * leaves no timestamp and shows at the nightly rebuild.
 */
export const changedOccurrencesSql = `
  select o.business_id, o.id from event_occurrences o where greatest(o.updated_at, o.created_at) > $1
  union
  select o.business_id, o.id from event_occurrences o join services s on s.business_id = o.business_id and s.id = o.service_id
   where greatest(s.updated_at, s.created_at) > $1
  union
  select o.business_id, o.id from event_occurrences o join services s on s.business_id = o.business_id and s.id = o.service_id
    join service_categories c on c.business_id = s.business_id and c.id = s.category_id
   where c.updated_at > $1
  union
  select o.business_id, o.id from event_occurrences o join locations l on l.business_id = o.business_id and l.id = o.location_id
   where l.updated_at > $1
  union
  select o.business_id, o.id from event_occurrences o join businesses b on b.id = o.business_id where b.updated_at > $1
  union
  -- A new (or re-parented) franchisee changes its holding's franchise_id.
  select o.business_id, o.id from event_occurrences o join businesses f on f.franchise_parent_id = o.business_id
   where greatest(f.created_at, f.updated_at) > $1
  union
  -- A staff member's role, name, contact or home location shows in the occurrences they give.
  select os.business_id, os.event_occurrence_id from event_occurrence_staff_members os
    join staff_members sm on sm.business_id = os.business_id and sm.id = os.staff_member_id
    join people p on p.business_id = sm.business_id and p.id = sm.person_id
    left join locations hl on hl.business_id = p.business_id and hl.id = p.location_id
   where greatest(sm.updated_at, sm.created_at, p.updated_at, hl.updated_at) > $1
  union
  -- Enrollments: visits and waitlist entries changed, created or deleted, make-ups issued.
  select v.business_id, v.event_occurrence_id from visits v where greatest(v.updated_at, v.created_at) > $1
  union
  select w.business_id, w.event_occurrence_id from waitlist_entries w where greatest(w.updated_at, w.created_at) > $1
  union
  select d.business_id, d.event_occurrence_id from report_enrollment_deletions d where d.deleted_at > $1
  union
  select v.business_id, v.event_occurrence_id from make_ups m join visits v on v.business_id = m.business_id and v.id = m.visit_id
   where m.created_at > $1
  union
  -- A changed person (report_changed_people, filled first) shows in every enrollment of theirs,
  -- and a new visit can change which of their visits is the first.
  select v.business_id, v.event_occurrence_id from visits v
    join report_changed_people c on c.business_id = v.business_id and c.id = v.person_id
  union
  select w.business_id, w.event_occurrence_id from waitlist_entries w
    join report_changed_people c on c.business_id = w.business_id and c.id = w.person_id`

// ---------------------------------------------------------------------------------------------
// Enrollments: one row per visit, and one per waitlist entry that did not become a visit

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
      null::text as address, -- people have no address in the Core API yet
      null::text as available_plans, -- no plans yet (billing)
      p.birthdate,
      p.email::text as email,
      ${fullName("p")} as full_name,
      hl.name as home_location_name,
      ins.names as instructor_names,
      ins.first_name as primary_staff_name,
      p.phone,
      ${row}.person_id,
      ${utc("o.end_at")} as end_at,
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
      ${utc("o.start_at")} as start_at,
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
    left join ins on ins.business_id = o.business_id and ins.event_occurrence_id = o.id`

/**
 * Enrollments. `where` is a condition on the occurrence `o` (rows are replaced per changed
 * occurrence). A visit's row carries its state; a waitlist entry's row its waiting, expired or
 * removed state (`pending` reads as waiting; an `enrolled` entry is represented by its visit,
 * whose waitlist_id and waitlisted_at point back at it). Plans, punches and prices do not exist
 * yet (billing): visits are unpaid, estimated_amount is 0.
 */
export const enrollmentsTable: StoreTable = {
  name: "enrollments",
  businessIdSql: "o.business_id",
  columns: [
    ["key", "VARCHAR NOT NULL"],
    ["business_id", "BIGINT NOT NULL"],
    ["business_name", "VARCHAR"],
    ["business_subdomain", "VARCHAR"],
    ["franchise_id", "BIGINT"],
    ["currency_code", "VARCHAR"],
    ["time_zone", "VARCHAR NOT NULL"],
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
             string_agg(m.email::text, ', ' order by m.last_name, m.first_name, m.id) as emails,
             string_agg(${fullName("m")}, ', ' order by m.last_name, m.first_name, m.id) as names,
             string_agg(m.phone, ', ' order by m.last_name, m.first_name, m.id) as phones
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
      false as consider_member, -- no passes or plans yet (billing)
      fv.id is not null as first_visit,
      v.punch_id is not null as is_paid,
      false as is_rollover, -- no punches yet (billing)
      false as is_waitlist,
      mu.id is not null as make_up_issued,
      v.paid_for_by as paid_with,
      false as paid_with_complimentary_pass,
      case when v.punch_id is null then 'unpaid' end as paid_with_type,
      0::bigint as estimated_amount, -- no prices yet (billing)
      null::bigint as plan_id,
      null::bigint as plan_product_id,
      v.punch_id,
      null::bigint as punchcard_id
    from sel_v v ${enrollmentJoins("v")}
    left join leases le on le.business_id = v.business_id and le.id = v.lease_id
    left join bookings bk on bk.business_id = v.business_id and bk.id = v.booking_id
    left join enrolled we on we.business_id = v.business_id and we.event_occurrence_id = v.event_occurrence_id and we.person_id = v.person_id
    left join firsts fv on fv.business_id = v.business_id and fv.id = v.id
    left join make_ups mu on mu.business_id = v.business_id and mu.visit_id = v.id
    union all
    select
      w.business_id || '-w' || w.id as key,${enrollmentCommon("w")},
      case w.state when 'pending' then 'waiting' else w.state end as state,
      null::bigint as visit_id,
      w.id as waitlist_id,
      ${utc("w.created_at")} as waitlisted_at,
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
