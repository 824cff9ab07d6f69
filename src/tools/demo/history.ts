import { Clock, Effect, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import type { OccurrenceInsert } from "../../schedule/event-occurrences/model.ts"
import { EventOccurrencesRepo } from "../../schedule/event-occurrences/repo.ts"
import { sessionOccurrence } from "../../schedule/event-occurrences/materialize.ts"
import { sessionDates } from "../../schedule/events/recurrence.ts"
import { EventsRepo } from "../../schedule/events/repo.ts"
import { addDays, localDateAt } from "../../shared/zoned-time.ts"
import { DEMO_CLIENT_EMAIL, DEMO_OWNER_EMAIL } from "./document.ts"
import { ATTENDANCE_OPEN_HOURS, UPCOMING_DAYS } from "./document.ts"
import { seedDemoInvoices } from "./invoices-history.ts"
import { peopleByEmail, seedDemoNotes, sessionOf } from "./notes-history.ts"
import { seedDemoPays } from "./pays-history.ts"
import { seedDemoPlans } from "./plans-history.ts"

/**
 * The demo's history, so a new user's first GET of visits, waitlists, notes or a report finds
 * something: weeks of attendance, the coming days' registrations, one full class with a
 * waitlist, make-ups for some late cancels, and notes. One function per kind of history, each
 * run only while the demo has none of that kind (so a second seeding adds nothing, and a kind
 * added later, billing say, reaches demos seeded before it).
 *
 * Everything is relative to "now" from Clock and "random" only through hashes of stable
 * values (a session's start, a client's number), so a pinned clock gives the same demo. The
 * rows are written set-based inside PostgreSQL, and directly rather than through the visit
 * commands: no mail, webhook or job should fire for a past that never happened. They keep the
 * invariants those commands keep: at most `capacity` holding visits per occurrence, one visit
 * per person and occurrence, the state timestamps of each visit state, no waitlist entry for
 * someone on the roster, waiting entries only on occurrences that have not started.
 * The `updated_at` of visits, waitlist entries and occurrences is the seeding's time, so an
 * incremental report refresh picks them up (the store reads changes by it); notes, which the
 * store does not hold, keep the time they were written.
 */
export const HISTORY_WEEKS = 8

/** How full each demo class usually is (share of its capacity; noise of ±20 % on top). */
const FILL: ReadonlyArray<readonly [service: string, fill: number]> = [
  ["Vinyasa Flow", 0.7],
  ["Yin Yoga", 0.55],
  ["Reformer Pilates", 0.95],
  ["Members' Sunrise Flow", 0.35],
  ["Intro to Yoga (6 weeks)", 0.8]
]
/** Its next session a day or more ahead is full, with client@demo.test first on the waitlist. */
const FULL_CLASS_SERVICE = "Reformer Pilates"

export interface HistorySummary {
  readonly event_occurrences: number
  readonly visits: number
  readonly waitlist_entries: number
  readonly make_ups: number
  readonly notes: number
  readonly plans: number
  readonly punches: number
  readonly invoices: number
  readonly refunds: number
  readonly pays: number
}

const Id = Schema.Struct({ id: Schema.Number })

/** A deterministic fraction in [0, 1) from an SQL text expression. */
const rand = (text: string) => `(('x' || substr(md5(${text}), 1, 8))::bit(32)::bigint / 4294967296.0)`

/** Runs an INSERT/UPDATE ... RETURNING 1 and answers how many rows it wrote. */
const countOf = (statement: string, params: ReadonlyArray<unknown>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    SqlSchema.findOne({
      Request: Schema.Array(Schema.Unknown),
      Result: Schema.Struct({ n: Schema.Number }),
      execute: (values) => sql.unsafe(`with done as (${statement} returning 1) select count(*)::int as n from done`, [...values])
    })(params)).pipe(Effect.map((row) => row.n))

const hasAny = (table: "visits" | "notes", businessId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    SqlSchema.findAll({
      Request: Schema.Number,
      Result: Id,
      execute: (id) => sql`select 1 as id from ${sql(table)} where business_id = ${id} limit 1`
    })(businessId)).pipe(Effect.map((rows) => rows.length > 0))

/**
 * The past sessions of the demo's events over HISTORY_WEEKS (the materializer backfills only
 * a week on its first run and never adds the past later), made as the materializer makes them.
 */
const materializePastSessions = (businessId: number, nowMs: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const events = yield* EventsRepo
    const occurrences = yield* EventOccurrencesRepo
    const ids = yield* SqlSchema.findAll({
      Request: Schema.Number,
      Result: Id,
      execute: (id) => sql`select id from events where business_id = ${id} and deleted_at is null order by id`
    })(businessId)
    let created = 0
    for (const { id } of ids) {
      const event = yield* events.lockForMaterialize({ businessId, id })
      if (!event) continue
      const today = localDateAt(nowMs, event.time_zone)
      const from = addDays(today, -7 * HISTORY_WEEKS)
      const existing = new Set((yield* occurrences.materializedFrom({ businessId, eventId: id, fromDate: from })).map((row) => row.scheduled_date))
      const inserts: Array<OccurrenceInsert> = []
      for (const date of sessionDates(event, from, today)) {
        const occurrence = sessionOccurrence(event, date)
        if (existing.has(date) || occurrence.start_at.getTime() > nowMs) continue
        inserts.push(occurrence)
      }
      created += (yield* occurrences.insert({ businessId, rows: inserts })).length
    }
    return created
  }).pipe(Effect.orDie)

/**
 * The roster of every demo session from HISTORY_WEEKS ago to UPCOMING_DAYS ahead, as SQL:
 * each session's clients ranked (a seeded shuffle, with each client preferring one class and
 * client@demo.test a regular), `places` of them enrolled; those ranked just after a full
 * session's places are its waitlist. Parameters: $1 business, $2 now, $3 the full class's id
 * (0: none), $4 service names, $5 their fills, $6 client@demo.test.
 */
const ROSTER = `
  clients as (
    select p.id as person_id, row_number() over (order by p.id)::int as n, p.is_member, p.email = $6 as demo_client
    from people p
    where p.business_id = $1 and p.deleted_at is null and p.email is not null
      and not exists (select 1 from staff_members s where s.business_id = p.business_id and s.person_id = p.id)),
  sessions as (
    select o.id, o.start_at, o.end_at, o.capacity, s.position as service_rank, s.visibility, f.fill, o.id = $3 as full_class,
           (extract(epoch from o.start_at)::bigint / 60)::text as key,
           case when o.start_at > $2 then 'upcoming'
                when o.end_at > $2::timestamptz - interval '${ATTENDANCE_OPEN_HOURS} hours' then 'open'
                else 'past' end as phase
    from event_occurrences o
    join services s on s.business_id = o.business_id and s.id = o.service_id
    join unnest($4::text[], $5::float8[]) f(name, fill) on f.name = s.name
    where o.business_id = $1 and o.state = 'active' and o.event_id is not null and o.capacity is not null
      and o.start_at >= $2::timestamptz - interval '${HISTORY_WEEKS} weeks' and o.start_at < $2::timestamptz + interval '${UPCOMING_DAYS} days'),
  sized as (
    select se.*, case when se.full_class then se.capacity else
             least(se.capacity, greatest(1, round(se.capacity * se.fill * (0.8 + 0.4 * ${rand("se.key")})
               * case when se.phase = 'upcoming' then greatest(0.2, 1 - extract(epoch from se.start_at - $2) / 86400 / ${UPCOMING_DAYS + 1})
                      else 1 end)))::int end as places
    from sessions se),
  ranked as (
    select sz.*, c.person_id, c.n, c.demo_client,
           row_number() over (partition by sz.id order by
             (sz.full_class and c.demo_client),
             ${rand("sz.key || ':' || c.n")} - case when c.demo_client or c.n % 4 = sz.service_rank % 4 then 0.35 else 0 end,
             c.n) as place,
           count(*) over (partition by sz.id) as pool
    from sized sz join clients c on sz.visibility <> 'Members' or c.is_member)`

const rosterParams = (businessId: number, now: Date, fullClassId: number) =>
  [businessId, now, fullClassId, FILL.map(([name]) => name), FILL.map(([, fill]) => fill), DEMO_CLIENT_EMAIL] as const

/**
 * Visits: past sessions mostly completed, some no-shows and late cancels; sessions that just
 * ended still registered (attendance not taken yet); the coming days registered. A quarter
 * were booked at the desk (by the owner), the rest by the clients. $7: the owner's staff id.
 */
const seedVisits = (businessId: number, now: Date, fullClassId: number, ownerStaffId: number | null) =>
  countOf(
    `with ${ROSTER},
     enrolled as (
       select r.*, ${rand("r.key || ':' || r.n || ':state'")} as s, ${rand("r.key || ':' || r.n || ':time'")} as t
       from ranked r where r.place <= r.places),
     visit as (
       select e.*,
              case when e.phase = 'upcoming' then 'registered'
                   when e.s >= 0.91 then 'late_canceled'
                   when e.phase = 'open' then 'registered'
                   when e.s >= 0.84 then 'noshowed'
                   else 'completed' end as state,
              least(e.start_at - make_interval(days => 1 + floor(e.t * 10)::int, hours => floor(e.t * 97)::int % 12),
                    $2::timestamptz - make_interval(hours => 1 + floor(e.t * 47)::int)) as booked
       from enrolled e)
     insert into visits (business_id, event_occurrence_id, person_id, state, created_by_staff_member_id,
                         registered_at, completed_at, noshow_at, cancelled_at, created_at, updated_at)
     select $1, v.id, v.person_id, v.state, case when ${rand("v.key || ':' || v.n || ':desk'")} < 0.25 then $7::bigint end,
            v.booked,
            case when v.state = 'completed' then v.end_at + interval '10 minutes' end,
            case when v.state = 'noshowed' then v.end_at + interval '10 minutes' end,
            case when v.state = 'late_canceled' then v.start_at - make_interval(hours => 1 + floor(v.t * 10)::int) end,
            v.booked, $2
     from visit v`,
    [...rosterParams(businessId, now, fullClassId), ownerStaffId]
  )

/**
 * Waitlists of full sessions: the full class's next in line wait (client@demo.test first);
 * past full sessions had one or two who never got in (expired).
 */
const seedWaitlists = (businessId: number, now: Date, fullClassId: number) =>
  countOf(
    `with ${ROSTER}
     insert into waitlist_entries (business_id, event_occurrence_id, person_id, state, created_at, updated_at)
     select $1, r.id, r.person_id, case when r.phase = 'upcoming' then 'waiting' else 'expired' end,
            least($2::timestamptz, r.start_at) - interval '1 day' + make_interval(mins => 37 * case when r.demo_client then 0 else r.place::int end),
            $2
     from ranked r
     where r.places = r.capacity and r.place > r.places
       and ((r.full_class and (r.demo_client or r.place <= r.places + 2))
         or (not r.full_class and r.phase <> 'upcoming' and r.place <= r.places + 1 + r.key::bigint % 2))`,
    rosterParams(businessId, now, fullClassId)
  )

/** Make-ups for about half the late cancels, with a reason, valid for 60 days. */
const seedMakeUps = (businessId: number, ownerStaffId: number | null) =>
  countOf(
    `insert into make_ups (business_id, visit_id, person_id, service_id, make_up_reason_id, created_by_staff_member_id, expires_on, created_at)
     select v.business_id, v.id, v.person_id, o.service_id,
            (select r.id from make_up_reasons r where r.business_id = v.business_id order by r.position, r.id
             limit 1 offset floor(${rand("v.person_id::text || ':' || o.start_at::text")} * 3)::int),
            $2::bigint, (o.start_at at time zone o.time_zone)::date + 60, v.cancelled_at + interval '2 hours'
     from visits v join event_occurrences o on o.business_id = v.business_id and o.id = v.event_occurrence_id
     where v.business_id = $1 and v.state = 'late_canceled'
       and ${rand("'make-up:' || v.person_id::text || ':' || o.start_at::text")} < 0.5
     on conflict (business_id, visit_id) do nothing`,
    [businessId, ownerStaffId]
  )

/** Attendance was taken for every past session of the history but the ones that just ended. */
const completeAttendance = (businessId: number, now: Date) =>
  countOf(
    `update event_occurrences o set attendance_complete = true, updated_at = $2
     where o.business_id = $1 and o.state = 'active' and o.event_id is not null and not o.attendance_complete
       and o.start_at >= $2::timestamptz - interval '${HISTORY_WEEKS} weeks'
       and o.end_at <= $2::timestamptz - interval '${ATTENDANCE_OPEN_HOURS} hours'`,
    [businessId, now]
  )

/** The next session of the full class a day or more ahead (time to fill its waitlist), or 0. */
const fullClassOf = (businessId: number, nowMs: number) =>
  sessionOf(businessId, FULL_CLASS_SERVICE, new Date(nowMs + 86_400_000), new Date(nowMs + UPCOMING_DAYS * 86_400_000), "first").pipe(
    Effect.map((session) => session?.id ?? 0)
  )

/** Seeds what the demo has none of yet; runs inside the demo seeding's transaction. */
export const seedDemoHistory = Effect.fn("Demo.seedHistory")(function* (businessId: number) {
  const nowMs = yield* Clock.currentTimeMillis
  const now = new Date(nowMs)
  const summary = { event_occurrences: 0, visits: 0, waitlist_entries: 0, make_ups: 0, notes: 0, plans: 0, punches: 0, invoices: 0, refunds: 0, pays: 0 }
  const owner = (yield* peopleByEmail(businessId, [DEMO_OWNER_EMAIL])).get(DEMO_OWNER_EMAIL)
  const ownerStaffId = owner?.staff_member_id ?? null
  if (!(yield* hasAny("visits", businessId))) {
    summary.event_occurrences = yield* materializePastSessions(businessId, nowMs)
    const fullClassId = yield* fullClassOf(businessId, nowMs)
    summary.visits = yield* seedVisits(businessId, now, fullClassId, ownerStaffId)
    summary.waitlist_entries = yield* seedWaitlists(businessId, now, fullClassId)
    summary.make_ups = yield* seedMakeUps(businessId, ownerStaffId)
    yield* completeAttendance(businessId, now)
  }
  if (!(yield* hasAny("notes", businessId))) {
    summary.notes = yield* seedDemoNotes(businessId, nowMs, yield* fullClassOf(businessId, nowMs))
  }
  // Plans after visits: their punches pay for the visits. Invoices after plans: they sold them.
  const plans = yield* seedDemoPlans(businessId, nowMs, DEMO_CLIENT_EMAIL)
  summary.plans = plans.plans
  summary.punches = plans.punches
  const invoices = yield* seedDemoInvoices(businessId, nowMs, DEMO_CLIENT_EMAIL)
  summary.invoices = invoices.invoices
  summary.refunds = invoices.refunds
  // Pays after attendance and invoices: they are paid for both.
  summary.pays = (yield* seedDemoPays(businessId, nowMs, ownerStaffId)).pays
  return summary satisfies HistorySummary
}, Effect.orDie)
