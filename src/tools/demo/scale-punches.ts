import { Effect } from "effect"
import { businessStatements } from "./scale-sql.ts"

/**
 * The punches of one `studio seed scale` business: its visits paid by the plans its clients
 * bought (scale-sales.ts), as auto-pay pays a visit when it is booked (src/billing/punches/choice.ts), so
 * the report store sees paid visits and used-up packs rather than millions of unpaid visits each
 * with a dozen unused passes. Every visit of the seed was registered when booked, and a no-show
 * or late cancel keeps its punch, so every state is paid when a plan covers it.
 *
 * A plan covers the visits of its holder whose session's local date falls within its dates; a
 * pack pays up to its count, in session order; memberships and the prepaid Intro Month are
 * unlimited. A visit covered by several plans takes the one auto-pay would choose: ending first,
 * then the smallest count (unlimited last), then the oldest. Set-based, in rounds: each round
 * gives every plan its earliest open visits up to its remaining count and every such visit its
 * first choice; a visit a plan offered but lost frees that plan's place for the next round,
 * until a round adds none: then no unpaid visit is covered by a plan with a visit left.
 * Visits no plan covers (drop-in buyers between passes, pack buyers past their packs) stay
 * unpaid, and their enrollments list what is available (nothing, once their plans are spent).
 * Used-up packs get exhausted_at at their last punch, as the Core API sets it.
 */
/** Rounds until no visit is added; a few suffice (a cap, so a bug cannot loop forever). */
const MAX_ROUNDS = 20

/** Statements get `$1` the business id, `$2` its time zone, `$3` now. Returns the number of punches. */
export const seedPunches = (businessId: number, timeZone: string, now: Date) =>
  Effect.gen(function* () {
    const { run, count } = yield* businessStatements(businessId, timeZone, now)

    // Visits and plans were written in this transaction: statistics first (see scale-pays.ts).
    yield* run(`analyze visits, event_occurrences, plans, plan_people`)
    // Every (visit, plan) pair a plan's dates cover, with what the choice orders by.
    yield* run(`create temporary table scale_cover on commit drop as
      select v.id as visit_id, v.person_id, o.start_at, (o.start_at at time zone $2)::date as visit_date,
             least($3::timestamptz, greatest(v.registered_at, pl.created_at)) as punched_at,
             pl.id as plan_id, pl.name, pl.count, pl.end_date
      from visits v
      join event_occurrences o on o.business_id = v.business_id and o.id = v.event_occurrence_id
      join plan_people pp on pp.business_id = v.business_id and pp.person_id = v.person_id
      join plans pl on pl.business_id = pp.business_id and pl.id = pp.plan_id
      where v.business_id = $1 and v.punch_id is null and pl.deactivated_at is null
        and (o.start_at at time zone $2)::date between pl.start_date and coalesce(pl.end_date, 'infinity')`)
    yield* run(`analyze scale_cover`)
    yield* run(`create temporary table scale_punched (visit_id bigint primary key, plan_id bigint not null) on commit drop`)
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const added = yield* count(`with waiting as (
          select c.*, row_number() over (partition by c.plan_id order by c.start_at, c.visit_id) as k
          from scale_cover c where not exists (select 1 from scale_punched s where s.visit_id = c.visit_id)),
        used as (select plan_id, count(*) as n from scale_punched group by 1),
        offered as (
          select distinct on (o.visit_id) o.visit_id, o.plan_id
          from waiting o left join used u on u.plan_id = o.plan_id
          where o.count is null or o.k <= o.count - coalesce(u.n, 0)
          order by o.visit_id, o.end_date asc nulls last, o.count asc nulls last, o.plan_id),
        made as (insert into scale_punched select visit_id, plan_id from offered returning 1)
        select count(*)::int as n from made`)
      if (added === 0) break
    }

    const punches = yield* count(`with made as (
        insert into punches (business_id, visit_id, plan_id, person_id, visit_date, created_at)
        select $1, c.visit_id, c.plan_id, c.person_id, c.visit_date, c.punched_at
        from scale_punched s join scale_cover c on c.visit_id = s.visit_id and c.plan_id = s.plan_id
        returning 1)
      select count(*)::int as n from made`)
    yield* run(`update visits v set punch_id = pu.id, paid_for_by = c.name
      from punches pu join scale_cover c on c.visit_id = pu.visit_id and c.plan_id = pu.plan_id
      where v.business_id = $1 and pu.business_id = $1 and v.id = pu.visit_id`)
    yield* run(`update plans pl set exhausted_at = x.last_at
      from (select c.plan_id, max(c.punched_at) as last_at, count(*) as n, min(c.count) as count
            from scale_punched s join scale_cover c on c.visit_id = s.visit_id and c.plan_id = s.plan_id
            where c.count is not null group by 1) x
      where pl.business_id = $1 and pl.id = x.plan_id and x.n >= x.count`)
    return punches
  })
