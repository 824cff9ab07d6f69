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
}

export const createTableSql = (table: StoreTable) =>
  `CREATE TABLE ${table.name} (${table.columns.map(([name, type]) => `${name} ${type}`).join(", ")})`

/** "First Last", without stray spaces when a part is empty. */
const fullName = (alias: string) => `nullif(concat_ws(' ', nullif(${alias}.first_name, ''), nullif(${alias}.last_name, '')), '')`

/** A franchisee reports its holding; a holding itself; a plain business nothing. */
const franchiseId = (business: string) =>
  `coalesce(${business}.franchise_parent_id,
            case when exists (select 1 from businesses f where f.franchise_parent_id = ${business}.id) then ${business}.id end)`

/** Clients: one row per person, in every state (person_state tells active, hidden, deleted). */
export const clientsTable: StoreTable = {
  name: "clients",
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
      0::bigint as completed_visits, -- no visits yet (scheduling)
      null::text as current_plan_revenue_category, -- no plans yet (billing)
      null::text as current_plan_types, -- no plans yet
      null::text as current_plans, -- no plans yet
      dependents.names as dependent_names,
      null::date as first_visit_date, -- no visits yet
      0::bigint as future_visits, -- no visits yet
      managers.first_email as guardian_email,
      managers.first_name as guardian_name,
      p.is_member as has_membership, -- the Core API's membership flag until plans exist
      false as has_payment_on_file, -- no payment methods yet (billing)
      false as has_plan_on_hold, -- no plans yet
      false as has_signed_waiver, -- no waivers yet
      l.name as home_location_name,
      (p.deleted_at is null and p.hidden_at is null) as is_schedulable,
      false as last_email_bounced, -- no bounce tracking yet
      null::bigint as last_invoice_amount, -- no invoices yet (billing)
      null::date as last_invoice_date, -- no invoices yet
      null::bigint as last_invoice_id, -- no invoices yet
      false as last_invoice_unpaid, -- no invoices yet
      null::date as last_membership_end_date, -- no plans yet
      null::text as last_signed_waiver_name, -- no waivers yet
      null::date as last_site_access_date, -- no sign-in log yet
      null::date as last_visit_date, -- no visits yet
      null::bigint as last_visit_id, -- no visits yet
      null::text as last_visit_service, -- no visits yet
      0::bigint as net_paid_amount, -- no transactions yet (billing)
      null::date as next_pass_plan_end_date, -- no plans yet
      case when p.deleted_at is not null then 'deleted' when p.hidden_at is not null then 'hidden' else 'active' end as person_state,
      null::text as primary_staff_name, -- people have no primary staff member yet
      0::bigint as revenue_amount, -- no transactions yet
      'unknown' as source_name, -- the Core API does not record how a person was added yet
      null::text as staff_member_who_added, -- nor by whom
      0::bigint as unpaid_visits -- no visits yet
    from people p
    join businesses b on b.id = p.business_id
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
    where ${where}`
}

/** Custom field definitions: what `custom_fields` expands to. */
export const customFieldsTable: StoreTable = {
  name: "custom_fields",
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
    join people d on d.business_id = r.business_id and d.id = r.dependent_id where d.updated_at > $1`

// ---------------------------------------------------------------------------------------------
// The schedule: event occurrences and their staff members

/** An instant as ISO 8601 in UTC, which DuckDB's CSV reader takes as TIMESTAMPTZ whatever the session's zone. */
const utc = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`

/**
 * Counts of an occurrence's enrollments. Visits and waitlists do not exist in the Core API
 * yet (the enrollment issue): every count is 0 until they do, and only these lines change.
 */
const OCCURRENCE_COUNT_COLUMNS = [
  "completed_enrollment_count", // visits in state completed
  "completed_unpaid_count", // completed visits that were not paid
  "enrollment_count", // visits and waitlist entries
  "expired_enrollment_count", // waitlist entries that expired
  "is_waitlist_count", // waitlist entries
  "late_canceled_enrollment_count", // visits in state late_canceled
  "noshowed_enrollment_count", // visits in state noshowed
  "paid_count", // visits paid for
  "registered_enrollment_count", // visits in state registered
  "removed_enrollment_count", // waitlist entries removed
  "reserved_enrollment_count", // visits in state reserved
  "visit_count", // visits
  "waiting_enrollment_count", // waitlist entries waiting
  "waitlist_to_visit_count" // visits moved from the waitlist to the roster
] as const

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
  ["capacity", "BIGINT"],
  ["attendance_completed", "BOOLEAN"],
  ...OCCURRENCE_COUNT_COLUMNS.map((name) => [name, "BIGINT"] as const)
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
      o.capacity::bigint as capacity, -- null: unlimited
      o.attendance_complete as attendance_completed,
      ${OCCURRENCE_COUNT_COLUMNS.map((name) => `0::bigint as ${name}`).join(",\n      ")}`

const occurrenceFrom = `
    from event_occurrences o
    join businesses b on b.id = o.business_id
    join services s on s.business_id = o.business_id and s.id = o.service_id
    left join service_categories c on c.business_id = s.business_id and c.id = s.category_id
    left join locations l on l.business_id = o.business_id and l.id = o.location_id`

/** Event occurrences: one row per occurrence, in every state (service_state tells deleted ones). */
export const eventOccurrencesTable: StoreTable = {
  name: "event_occurrences",
  columns: [["key", "VARCHAR NOT NULL"], ...occurrenceColumns, ["instructor_names", "VARCHAR"]],
  select: (where) => `
    select
      o.business_id || '-' || o.id as key,${occurrenceSelect},
      instructors.names as instructor_names
    ${occurrenceFrom}
    left join lateral (
      select string_agg(${fullName("p")}, ', ' order by os.position, sm.id) as names
      from event_occurrence_staff_members os
      join staff_members sm on sm.business_id = os.business_id and sm.id = os.staff_member_id
      join people p on p.business_id = sm.business_id and p.id = sm.person_id
      where os.business_id = o.business_id and os.event_occurrence_id = o.id
    ) instructors on true
    where ${where}`
}

/** One row per staff member of each occurrence; `where` is a condition on the occurrence `o`. */
export const eventOccurrenceStaffMembersTable: StoreTable = {
  name: "event_occurrence_staff_members",
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
  select: (where) => `
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
    left join locations hl on hl.business_id = p.business_id and hl.id = p.location_id
    where ${where}`
}

/**
 * Occurrences whose rows (either table) may have changed, as `(business_id, id)`. Runs inside
 * the sync's snapshot with `$1` = changed since. The schedule's writes bump the occurrence's
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
   where greatest(sm.updated_at, sm.created_at, p.updated_at, hl.updated_at) > $1`
