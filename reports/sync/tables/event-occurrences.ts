import { type ChangeScope, changeLog, inLogs } from "./change-scope.ts"
import { changedPeople } from "./clients.ts"
import { businessColumns, franchiseJoin, franchiseId, fullName, localTime, type StoreTable } from "./types.ts"

/**
 * Counts of an occurrence's enrollments: its visits by state, and its waitlist entries that did
 * not become visits (an `enrolled` entry is represented by its visit). Each reads the `vc`
 * (visits) and `wc` (waitlist entries) aggregates of `occurrenceCtes`.
 */
const OCCURRENCE_COUNTS: ReadonlyArray<readonly [name: string, sql: string]> = [
  ["completed_enrollment_count", "coalesce(vc.completed, 0)"],
  ["completed_unpaid_count", "coalesce(vc.completed_unpaid, 0)"], // completed visits without a punch
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
export const occurrenceColumns: ReadonlyArray<readonly [string, string]> = [
  ...businessColumns,
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
export const occurrenceSelect = `
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
      o.start_at as start_at,
      o.end_at as end_at,
      o.local_start_at,
      o.capacity::bigint as capacity, -- null: unlimited
      o.attendance_complete as attendance_completed,
      ${OCCURRENCE_COUNTS.map(([name, sql]) => `(${sql})::bigint as ${name}`).join(",\n      ")}`

/**
 * The occurrences a select covers (`where` is a condition on `o`) and their per-occurrence
 * aggregates, computed once per statement: visits by state (`vc`), waitlist entries by state
 * (`wc`) and the instructors' names (`ins`). Unreferenced ones cost nothing.
 */
export const occurrenceCtes = (where: string) => `
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

export const occurrenceFrom = `
    from sel_o o
    join businesses b on b.id = o.business_id
    ${franchiseJoin("b")}
    join services s on s.business_id = o.business_id and s.id = o.service_id
    left join service_categories c on c.business_id = s.business_id and c.id = s.category_id
    left join locations l on l.business_id = o.business_id and l.id = o.location_id
    left join vc on vc.business_id = o.business_id and vc.event_occurrence_id = o.id
    left join wc on wc.business_id = o.business_id and wc.event_occurrence_id = o.id`

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
  -- A punch made, moved or deleted pays or stops paying its visit (report_plan_changes, whoever
  -- wrote it: visits.punch_id is cleared by a foreign-key action that leaves updated_at alone).
  select v.business_id, v.event_occurrence_id from report_plan_changes c
    join visits v on v.business_id = c.business_id and v.id = c.visit_id where c.changed_at > $1
  union
  -- A changed person (report_changed_people, filled first) shows in every enrollment of theirs
  -- (a changed plan's holders are among them: what pays and what could pay their visits),
  -- and a new visit can change which of their visits is the first.
  select v.business_id, v.event_occurrence_id from visits v
    join report_changed_people c on c.business_id = v.business_id and c.id = v.person_id
  union
  select w.business_id, w.event_occurrence_id from waitlist_entries w
    join report_changed_people c on c.business_id = w.business_id and c.id = w.person_id`

export const changedOccurrences = changeLog("report_changed_occurrences", changedOccurrencesSql, [changedPeople])

/** The changed occurrences' rows: `o` is the occurrence. */
const occurrenceWhere = inLogs("(o.business_id, o.id)", [changedOccurrences])

/**
 * An occurrence's staff and enrollment rows, read again when it changed, all replace the
 * occurrence's rows of the store: a staff member taken off it, or a deleted visit, disappears.
 */
export const occurrenceRowsChanges: ChangeScope = {
  logs: [changedOccurrences],
  where: occurrenceWhere,
  replaces: {
    kind: "within",
    rows: (alias, fresh) =>
      `EXISTS (SELECT 1 FROM ${fresh("event_occurrences")} f WHERE f.business_id = ${alias}.business_id AND f.event_occurrence_id = ${alias}.event_occurrence_id)`
  },
  metrics: true
}

/** Event occurrences: one row per occurrence, in every state (service_state tells deleted ones). */
export const eventOccurrencesTable: StoreTable = {
  name: "event_occurrences",
  changes: { logs: [changedOccurrences], where: occurrenceWhere, replaces: { kind: "key" }, metrics: true },
  columns: [["key", "VARCHAR NOT NULL"], ...occurrenceColumns, ["instructor_names", "VARCHAR"]],
  select: (where) => `${occurrenceCtes(where)}
    select
      o.business_id || '-' || o.id as key,${occurrenceSelect},
      ins.names as instructor_names
    ${occurrenceFrom}
    left join ins on ins.business_id = o.business_id and ins.event_occurrence_id = o.id`
}
