import { Effect } from "effect"
import { businessStatements, hash } from "./scale-sql.ts"

/**
 * The staff pay of one `studio seed scale` business, set-based in its seeding transaction, by
 * the rules of src/billing/staff-pay/rules.ts (docs/decisions.md, "Staff pay"):
 *
 * - Rates: each instructor has a default rate, $30 to $50 a session (by a hash of their id), $2
 *   per attendee beyond 8, tier bonuses of $10 at 15 attendees and $20 at 20 (the highest tier
 *   reached pays alone). The first instructor also earns a 5 % commission.
 * - Service pays: one per instructor of every past active occurrence, from its completed visits;
 *   the occurrence is marked attendance-complete, as the desk does before pays are recorded.
 * - Commission pays: 5 % of the closed invoices name the first instructor as commission
 *   recipient and pay them round(5 % of the live commissionable items' revenue).
 * - Pay periods: semimonthly (the default rule). Pays of periods that ended before the current
 *   one are reviewed by the primary owner two days after the period: 97 % approved, 3 % denied;
 *   the current period's stay pending.
 */

/** The semimonthly pay period (start, end) holding the local date `d`. */
const periodStart = (d: string) => `(date_trunc('month', ${d})::date + case when extract(day from ${d}) > 15 then 15 else 0 end)`
const periodEnd = (d: string) =>
  `(case when extract(day from ${d}) > 15 then (date_trunc('month', ${d}) + interval '1 month - 1 day')::date
         else date_trunc('month', ${d})::date + 14 end)`

/** Statements get `$1` the business id, `$2` its time zone, `$3` now. Returns the number of pays. */
export const seedPays = (businessId: number, timeZone: string, now: Date) =>
  Effect.gen(function* () {
    const { run, count } = yield* businessStatements(businessId, timeZone, now)
    const today = `($3::timestamptz at time zone $2)::date`

    // The business's sessions and visits were written in this transaction: statistics first, or
    // the planner takes them for empty and joins them row by row.
    yield* run(`analyze event_occurrences, event_occurrence_staff_members, visits`)
    yield* run(`
      with rates as (
        insert into pay_rates (business_id, staff_member_id, base_cents, per_head_cents, per_head_minimum)
        select $1, sm.id, 3000 + (floor(${hash("sm.id")} * 5) * 500)::int, 200, 8
        from staff_members sm where sm.business_id = $1 and sm.role = 'standard'
        returning id)
      insert into pay_rate_tiers (business_id, pay_rate_id, attendance_threshold, bonus_cents)
      select $1, r.id, t.threshold, t.bonus from rates r cross join (values (15, 1000), (20, 2000)) t(threshold, bonus)`)
    yield* run(`
      insert into staff_commission_rates (business_id, staff_member_id, basis_points)
      select $1, min(sm.id), 500 from staff_members sm where sm.business_id = $1 and sm.role = 'standard'`)
    yield* run(`
      update event_occurrences o set attendance_complete = true, updated_at = $3
      where o.business_id = $1 and o.state = 'active' and (o.end_at at time zone $2) < ($3::timestamptz at time zone $2)
        and not o.attendance_complete`)

    yield* run(`
      with past as (
        select o.id, o.service_id, o.start_at, o.end_at from event_occurrences o
        where o.business_id = $1 and o.state = 'active' and o.end_at < $3),
      -- Completed visits per occurrence, one aggregate joined once.
      attendance as (
        select v.event_occurrence_id as id, count(*) as n from visits v
        where v.business_id = $1 and v.state = 'completed' group by 1),
      done as (
        select p.id, p.service_id, es.staff_member_id,
               round(extract(epoch from p.end_at - p.start_at) / 3600.0, 2) as hours,
               (p.start_at at time zone $2)::date as day,
               coalesce(a.n, 0) as attendees
        from past p
        join event_occurrence_staff_members es on es.business_id = $1 and es.event_occurrence_id = p.id
        left join attendance a on a.id = p.id),
      priced as (
        select d.*, r.base_cents as base,
               r.per_head_cents * greatest(0, d.attendees - r.per_head_minimum) as per_head,
               coalesce((select max(t.bonus_cents) from pay_rate_tiers t
                          where t.business_id = $1 and t.pay_rate_id = r.id and t.attendance_threshold <= d.attendees), 0) as tiered
        from done d
        join pay_rates r on r.business_id = $1 and r.staff_member_id = d.staff_member_id and r.service_id is null)
      insert into pays (business_id, pay_type, staff_member_id, service_id, event_occurrence_id, description,
                        base_cents, per_head_cents, tiered_cents, final_cents, service_hours,
                        pay_period_start, pay_period_end, recorded_at, updated_at)
      select $1, 'service', p.staff_member_id, p.service_id, p.id, null,
             p.base, p.per_head, p.tiered, p.base + p.per_head + p.tiered, p.hours,
             ${periodStart("p.day")}, ${periodEnd("p.day")}, least($3::timestamptz, (p.day + 1)::timestamp at time zone $2), $3
      from priced p`)

    yield* run(`
      update invoices i set commission_recipient_id = (select staff_member_id from staff_commission_rates where business_id = $1)
      where i.business_id = $1 and i.state = 'closed' and ${hash("i.id + 7")} < 0.05`)
    // Sales too were written in this transaction (scale-sales.ts): statistics before the join.
    yield* run(`analyze invoices, invoice_items`)
    yield* run(`
      with sales as (
        select i.id, i.commission_recipient_id as staff_member_id, (i.closed_at at time zone $2)::date as day, i.closed_at,
               sum(it.total_cents - it.additional_tax_total_cents - it.included_tax_total_cents) as revenue
        from invoices i
        join invoice_items it on it.business_id = i.business_id and it.invoice_id = i.id
        where i.business_id = $1 and i.state = 'closed' and i.commission_recipient_id is not null
          and it.canceled_at is null and it.commissionable
        group by 1, 2, 3, 4)
      insert into pays (business_id, pay_type, staff_member_id, invoice_id, description, final_cents,
                        pay_period_start, pay_period_end, recorded_at, updated_at)
      select $1, 'commission', s.staff_member_id, s.id, 'Commission on invoice ' || s.id,
             ((2 * s.revenue * c.basis_points + sign(s.revenue) * 10000) / 20000)::bigint,
             ${periodStart("s.day")}, ${periodEnd("s.day")}, s.closed_at, $3
      from sales s join staff_commission_rates c on c.business_id = $1 and c.staff_member_id = s.staff_member_id`)

    yield* run(`
      update pays y set
        pay_state = case when ${hash("y.id + 3")} < 0.03 then 'denied' else 'approved' end,
        reviewed_at = least($3::timestamptz, (y.pay_period_end + 2)::timestamp at time zone $2),
        reviewed_by_staff_member_id = (select id from staff_members where business_id = $1 and role = 'primary_owner'),
        updated_at = $3
      where y.business_id = $1 and y.pay_period_end < ${periodStart(today)}`)
    return yield* count(`select count(*)::int as n from pays where business_id = $1`)
  })
