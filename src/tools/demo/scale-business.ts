import { Effect, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { IdRow } from "../../shared/sql-rows.ts"
import { seedPays } from "./scale-pays.ts"
import { seedPunches } from "./scale-punches.ts"
import { seedSales } from "./scale-sales.ts"
import { countOf, insertedCount } from "./scale-sql.ts"

/**
 * One business of the scale seed: its settings, services, staff and clients, then a few years of
 * sessions and enrollments, all written by set-based SQL.
 */

const TIME_ZONES = ["America/Los_Angeles", "America/New_York", "Europe/Berlin", "Australia/Sydney"] as const
const SERVICES: ReadonlyArray<readonly [name: string, type: "GroupClass" | "Course", capacity: number]> = [
  ["Vinyasa Flow", "GroupClass", 24],
  ["Power Yoga", "GroupClass", 20],
  ["Pilates Mat", "GroupClass", 16],
  ["Spin", "GroupClass", 30],
  ["Barre", "GroupClass", 18],
  ["Yin Yoga", "GroupClass", 20],
  ["Boxing Basics", "GroupClass", 14],
  ["Beginner Course", "Course", 12],
  ["Teacher Training", "Course", 10]
]
/** Clients per business: each one averages about this many enrollments over their stay. */
const ENROLLMENTS_PER_CLIENT = 30

/**
 * The clients present at an instant, as the index range (lo, hi] of scale_clients: joined by
 * then, and not more than a year before (a new business's first sessions have fewer).
 * Parameters: $2 first day, $3 clients, $4 span in days.
 */
const presentClients = (at: string) => {
  const joinedBy = (days: string) => `least($3::int, floor($3 * power(greatest(${days}, 0)::float / $4, 1 / 1.3))::int)`
  return `select greatest(0, least(lo, hi - 1)) as lo, greatest(1, hi) as hi from (
      select ${joinedBy(`${at}::date - $2::date - 365`)} as lo, ${joinedBy(`${at}::date - $2::date`)} as hi) r`
}

/** A deterministic fraction in [0, 1) from an SQL integer expression. */
const hash = (expression: string) => `((((${expression}) * 2654435761::bigint) % 4294967296) / 4294967296.0)`

const date = (d: Date) => d.toISOString().slice(0, 10)

/** What every part of one business's seed works with. */
interface Seed {
  readonly sql: SqlClient.SqlClient
  readonly count: ReturnType<typeof insertedCount>
  readonly businessId: number
  readonly subdomain: string
  readonly timeZone: string
  readonly now: Date
  /** The enrollments wanted over the period. */
  readonly enrollments: number
  /** The period: whole weeks ending four weeks after now. */
  readonly weeks: number
  readonly firstDay: Date
  readonly lastDay: Date
  /** Clients joining over the period, and its length in days. */
  readonly clients: number
  readonly spanDays: number
}

const seedStaff = ({ sql, businessId, subdomain }: Seed) =>
  Effect.gen(function* () {
    // Staff: an owner and six instructors, each with an account.
    yield* sql.unsafe(
      `with s as (
         select g, (array['Olive','Ivy','Tom','Maya','Leo','Nina','Omar'])[g] as first_name,
                (array['Owner','Instructor','Trainer','Coach','Stone','Park','Reyes'])[g] as last_name
         from generate_series(1, 7) g),
       a as (
         insert into accounts (email, first_name, last_name)
         select 'staff' || g || '@' || $2 || '.test', first_name, last_name from s
         on conflict (email) do update set updated_at = now() returning id, email),
       p as (
         insert into people (business_id, account_id, first_name, last_name, email)
         select $1, a.id, s.first_name, s.last_name, a.email from s join a on a.email = 'staff' || s.g || '@' || $2 || '.test'
         returning id, email)
       insert into staff_members (business_id, person_id, role)
       select $1, p.id, case when p.email like 'staff1@%' then 'primary_owner' else 'standard' end from p`,
      [businessId, subdomain]
    )

  })

/** Services, their weekly events and every session of those: returns the sessions made. */
const seedSchedule = ({ sql, businessId, timeZone, enrollments, weeks, firstDay, lastDay }: Seed) =>
  Effect.gen(function* () {
    const insertService = SqlSchema.findOne({
      Request: Schema.Struct({
        businessId: Schema.Number,
        type: Schema.Literals(["GroupClass", "Course"]),
        name: Schema.String,
        position: Schema.Number,
        capacity: Schema.Number
      }),
      Result: IdRow,
      execute: (service) =>
        sql`insert into services (business_id, type, name, position, duration_in_minutes, maximum_clients)
            values (${service.businessId}, ${service.type}, ${service.name}, ${service.position}, 55, ${service.capacity}) returning id`
    })
    // Services, with popularity 1/rank^0.8 and their share of the business's enrollments.
    const popularity = SERVICES.map((_, rank) => 1 / Math.pow(rank + 1, 0.8))
    const popularityTotal = popularity.reduce((sum, p) => sum + p, 0)
    for (const [rank, [name, type, capacity]] of SERVICES.entries()) {
      const share = popularity[rank]! / popularityTotal
      // Popular services fill their sessions more: 35 % to 95 % on average.
      const fill = 0.35 + 0.6 * (popularity[rank]! / popularity[0]!)
      const sessionsPerWeek = Math.max(1, Math.round((enrollments * share) / (weeks * capacity * fill)))
      const service = yield* insertService({ businessId, type, name, position: rank, capacity })
      // One weekly event per session slot, spread over the week and the day, with an instructor.
      yield* sql.unsafe(
        `with slots as (
           select j, (($3::int + j * 3) % 7)::smallint as weekday, make_time(6 + ((j * 5 + $3::int) % 14), ((j % 2) * 30), 0) as start_time
           from generate_series(0, $4::int - 1) j),
         ev as (
           insert into events (business_id, service_id, location_id, name, frequency, weekdays, start_date, end_date, start_time, end_time,
                               capacity, materialized_through)
           select $1, $2, (select id from locations where business_id = $1 order by position limit 1 offset (j % 2)), $5, 'weekly',
                  array[weekday], $6::date, $7::date, start_time, start_time + make_interval(mins => $8::int), $9, $7::date
           from slots
           returning id, start_time)
         insert into event_staff_members (business_id, event_id, staff_member_id)
         select $1, ev.id, (select id from staff_members where business_id = $1 and role = 'standard'
                            order by id limit 1 offset ((ev.id % 6)))
         from ev`,
        [businessId, service.id, rank, sessionsPerWeek, name, date(firstDay), date(lastDay), 55, capacity]
      )
    }
    // Materialize every weekly session of every event as an occurrence, with its instructor.
    const materialized = yield* countOf(sql)({
      text: `with made as (
         insert into event_occurrences (business_id, event_id, scheduled_date, service_id, location_id, name, start_at, end_at, time_zone, capacity)
         select e.business_id, e.id, d::date, e.service_id, e.location_id, e.name,
                (d::date + e.start_time) at time zone $2::text, (d::date + e.end_time) at time zone $2::text, $2::text, e.capacity
         from events e
         cross join lateral generate_series(e.start_date + ((e.weekdays[1] - extract(dow from e.start_date)::int + 7) % 7), e.end_date, interval '7 days') d
         where e.business_id = $1
         returning business_id, id, event_id),
       staff as (
         insert into event_occurrence_staff_members (business_id, event_occurrence_id, staff_member_id)
         select made.business_id, made.id, es.staff_member_id from made
         join event_staff_members es on es.business_id = made.business_id and es.event_id = made.event_id
         returning 1)
       select count(*)::int as n from staff`,
      params: [businessId, timeZone]
    })
    const occurrences = materialized.n
    return occurrences
  })

const seedClients = ({ sql, businessId, subdomain, firstDay, spanDays, clients }: Seed) =>
  Effect.gen(function* () {
    // Clients: joining over the period, more later (growth: the share joined by day t of the
    // span is (t / span)^(1 / 1.3)); ordered by joining, so "joined by t" is an index range.
    yield* sql.unsafe(
      `create temporary table scale_clients (idx int primary key, person_id bigint not null) on commit drop`,
      []
    )
    yield* sql.unsafe(
      `with made as (
         insert into people (business_id, first_name, last_name, email, phone, birthdate, is_member, joined_at)
         select $1,
                (array['Ann','Bob','Cat','Dan','Eve','Fay','Gus','Hal','Ida','Jon','Kay','Lou','Max','Ned','Oda','Pia','Quin','Rae','Sam','Tia'])[1 + i % 20],
                (array['Smith','Jones','Brown','Garcia','Miller','Davis','Lopez','Wilson','Moore','Lee','Clark','Hall','Young','King','Wright'])[1 + (i * 7) % 15],
                'client' || i || '@' || $2 || '.test',
                '555-' || lpad((i % 10000)::text, 4, '0'),
                date '1960-01-01' + (i * 7919) % 18000,
                ${hash("i")} < 0.3,
                $3::timestamptz + make_interval(days => floor($4 * power(i::float / $5, 1 / 1.3))::int)
         from generate_series(1, $5) i
         returning id, joined_at)
       insert into scale_clients (idx, person_id) select row_number() over (order by id), id from made`,
      [businessId, subdomain, date(firstDay), spanDays, clients]
    )
  })

/** Visits and waitlist entries of the sessions, from the clients present at each. */
const seedEnrollments = ({ count, businessId, firstDay, clients, spanDays, now }: Seed) =>
  Effect.gen(function* () {
    // Visits: each session draws its visitors from the clients present by its day: those who
    // joined in the year before it (churn: clients drift away about a year after joining). The
    // modular walk over that range (step 1000003, a prime larger than any range) picks distinct
    // clients.
    const visits = yield* count(
      `with sessions as (
         select o.business_id, o.id, o.start_at, o.end_at, o.capacity, p.lo, p.hi,
                least(o.capacity, greatest(0, round(o.capacity
                  * (0.35 + 0.6 / power(s.position + 1, 0.8))
                  * (1 + 0.2 * cos(2 * pi() * (extract(doy from o.start_at) - 15) / 365.0))
                  * (0.75 + 0.5 * ${hash("o.id")})))::int) as wanted
         from event_occurrences o
         join services s on s.business_id = o.business_id and s.id = o.service_id
         cross join lateral (${presentClients("o.start_at")}) p
         where o.business_id = $1),
       picked as (
         select se.*, g, c.person_id, ((se.id * 31 + g * 17) % 100) as h
         from sessions se
         cross join lateral generate_series(1, least(se.wanted, se.hi - se.lo)) g
         join scale_clients c on c.idx = se.lo + 1 + ((se.id * 7919 + g::bigint * 1000003) % (se.hi - se.lo)))
       insert into visits (business_id, event_occurrence_id, person_id, state, registered_at, completed_at, noshow_at, cancelled_at,
                           created_by_staff_member_id, created_at, updated_at)
       select business_id, id, person_id,
              case when start_at > $5 then 'registered' when h < 84 then 'completed' when h < 91 then 'noshowed' else 'late_canceled' end,
              start_at - make_interval(days => (1 + h % 14)::int),
              case when start_at <= $5 and h < 84 then end_at end,
              case when start_at <= $5 and h between 84 and 90 then end_at end,
              case when start_at <= $5 and h >= 91 then start_at - make_interval(hours => (h % 20)::int) end,
              case when h % 10 < 3 then (select id from staff_members where business_id = $1 and role = 'primary_owner') end,
              start_at - make_interval(days => (1 + h % 14)::int), start_at - make_interval(days => (1 + h % 14)::int)
       from picked`,
      [businessId, date(firstDay), clients, spanDays, now]
    )

    // Waitlists of full sessions: one to three more present clients who did not get in.
    const waitlistEntries = yield* count(
      `with full_sessions as (
         select o.business_id, o.id, o.start_at, o.capacity, p.lo, p.hi
         from event_occurrences o
         cross join lateral (${presentClients("o.start_at")}) p
         where o.business_id = $1 and o.capacity > 1
           and (select count(*) from visits v where v.business_id = o.business_id and v.event_occurrence_id = o.id) >= o.capacity)
       insert into waitlist_entries (business_id, event_occurrence_id, person_id, state, created_at, updated_at)
       select f.business_id, f.id, c.person_id,
              case when f.start_at > $5 then 'waiting' else 'expired' end, f.start_at - interval '2 days', f.start_at - interval '2 days'
       from full_sessions f
       cross join lateral generate_series(f.capacity + 1, f.capacity + 1 + (f.id % 3)::int) g
       join scale_clients c on c.idx = f.lo + 1 + ((f.id * 7919 + g::bigint * 1000003) % (f.hi - f.lo))
       where f.hi - f.lo > f.capacity + 3`,
      [businessId, date(firstDay), clients, spanDays, now]
    )
    return { visits, waitlistEntries }
  })

const seedMemberships = ({ sql, businessId, timeZone, now }: Seed) =>
  Effect.gen(function* () {
    // Memberships: the members hold an Unlimited Membership from the day they joined, for a year
    // (churn: those who joined over a year ago hold an ended one, so they are members no more).
    // Plan ids are drawn first (a materialized CTE, once each) to tie each plan to its holder.
    const memberships = yield* countOf(sql)({
      text: `with product as (
         insert into plan_products (business_id, kind, name, description, price_cents, commitment_length, commitment_unit,
                                    invoice_interval_count, invoice_interval_unit, consider_member, signup_fee_cents)
         values ($1, 'membership', 'Unlimited Membership', 'Every class, billed monthly.', 14900, 12, 'month', 1, 'monthly', true, 2500)
         returning id, name, price_cents),
       chosen as materialized (
         select nextval(pg_get_serial_sequence('plans', 'id')) as plan_id, p.id as person_id, p.joined_at,
                (p.joined_at at time zone $2)::date as start_date
         from scale_clients c join people p on p.business_id = $1 and p.id = c.person_id
         where p.is_member),
       made as (
         insert into plans (business_id, id, plan_product_id, type, name, price_cents, consider_member, start_date, end_date,
                            created_at, updated_at)
         select $1, ch.plan_id, pr.id, 'Membership', pr.name, pr.price_cents, true, ch.start_date,
                case when ch.start_date + 365 <= ($3::timestamptz at time zone $2)::date then ch.start_date + 364 end,
                least($3::timestamptz, ch.joined_at), $3
         from chosen ch cross join product pr
         returning id),
       holders as (
         insert into plan_people (business_id, plan_id, person_id, is_primary)
         select $1, ch.plan_id, ch.person_id, true from chosen ch join made m on m.id = ch.plan_id
         returning 1)
       select count(*)::int as n from holders`,
      params: [businessId, timeZone, now]
    })
    return memberships.n
  })

export const seedBusiness = (number: number, enrollments: number, years: number, now: Date) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const subdomain = `scale-${number}`
    const timeZone = TIME_ZONES[number % TIME_ZONES.length]!
    const { id: businessId } = yield* SqlSchema.findOne({
      Request: Schema.Struct({ subdomain: Schema.String, name: Schema.String, timeZone: Schema.String }),
      Result: IdRow,
      execute: (business) =>
        sql`insert into businesses (subdomain, name, time_zone) values (${business.subdomain}, ${business.name}, ${business.timeZone}) returning id`
    })({ subdomain, name: `Scale Studio ${number}`, timeZone })
    yield* sql`insert into locations (business_id, name, slug, time_zone, position)
      values (${businessId}, 'Downtown', 'downtown', ${timeZone}, 0), (${businessId}, 'Riverside', 'riverside', ${timeZone}, 1)`

    const weeks = Math.max(1, Math.round(years * 52))
    const lastDay = new Date(now.getTime() + 28 * 86_400_000)
    const firstDay = new Date(lastDay.getTime() - weeks * 7 * 86_400_000)
    const clients = Math.max(50, Math.ceil(enrollments / ENROLLMENTS_PER_CLIENT))
    const seed: Seed = { sql, count: insertedCount(sql), businessId, subdomain, timeZone, now, enrollments, weeks, firstDay, lastDay, clients, spanDays: weeks * 7 }
    yield* seedStaff(seed)
    const occurrences = yield* seedSchedule(seed)
    yield* seedClients(seed)
    const { visits, waitlistEntries } = yield* seedEnrollments(seed)
    const plans = yield* seedMemberships(seed)
    const sales = yield* seedSales(businessId, timeZone, now)
    const punches = yield* seedPunches(businessId, timeZone, now)
    const pays = yield* seedPays(businessId, timeZone, now)
    return { subdomain, clients, eventOccurrences: occurrences, visits, waitlistEntries, plans, sales, punches, pays }
  })
