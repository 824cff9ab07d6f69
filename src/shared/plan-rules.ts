import type { SqlClient, Statement } from "effect/sql"

/**
 * The rules of a person plan, written once as SQL fragments that every reader of plans shares:
 * the plan lists' filters, punches and the automatic plan choice, eligibility (`plan_required`),
 * `is_member`, person delete, and the report store. `plan` is the alias of a `plans` row in the
 * caller's query; `date` is a calendar date in the business's time zone (a 'YYYY-MM-DD' string).
 *
 * - On hold on D: a hold of the plan has start_date <= D and (no end_date or end_date >= D).
 * - Current on D: start_date <= D, no end_date or end_date >= D, not deactivated.
 * - Visits left for a person: null when unlimited (count null); otherwise
 *   count + rollover_count - punches, where punches count the plan's punches (only that person's
 *   when visits are not shared; only those whose visit_date falls in D's period when the plan
 *   has a limit_period: the ISO week, month or year containing D).
 * - Available on D for a person (the person_plans resource's definition): current on D, not on
 *   hold on D, and not used up (visits left is null or > 0).
 * - Usable = available (spec filter `usable`: active and not on hold).
 * - Active (spec filter `active`): current with visits left; `upcoming`: visits left and not started.
 */
type Sql = SqlClient.SqlClient
/** A date or person given as a value, or as an expression of the caller's query (`sql\`v.person_id\``). */
export type DateRef = string | Statement.Fragment
export type PersonRef = number | Statement.Fragment

const col = (sql: Sql, plan: string, column: string) => sql.literal(`${plan}.${column}`)

export const onHoldOn = (sql: Sql, plan: string, date: DateRef): Statement.Fragment =>
  sql`exists (select 1 from plan_holds h
              where h.business_id = ${col(sql, plan, "business_id")} and h.plan_id = ${col(sql, plan, "id")}
                and h.start_date <= (${date})::date and (h.end_date is null or h.end_date >= (${date})::date))`

export const currentOn = (sql: Sql, plan: string, date: DateRef): Statement.Fragment =>
  sql`(${col(sql, plan, "start_date")} <= (${date})::date
       and (${col(sql, plan, "end_date")} is null or ${col(sql, plan, "end_date")} >= (${date})::date)
       and ${col(sql, plan, "deactivated_at")} is null)`

/** Punches spent against the plan that count for `personId` on `date` (see the rules above). */
export const punchesCounted = (sql: Sql, plan: string, personId: PersonRef, date: DateRef): Statement.Fragment =>
  sql`(select count(*)::int from punches pu
       where pu.business_id = ${col(sql, plan, "business_id")} and pu.plan_id = ${col(sql, plan, "id")}
         and (${col(sql, plan, "visits_shared")} or pu.person_id = ${personId})
         and (${col(sql, plan, "limit_period")} is null
              or date_trunc(${col(sql, plan, "limit_period")}, pu.visit_date) = date_trunc(${col(sql, plan, "limit_period")}, (${date})::date)))`

/** Visits left for `personId` on `date`; null when the plan is unlimited. */
export const visitsLeft = (sql: Sql, plan: string, personId: PersonRef, date: DateRef): Statement.Fragment =>
  sql`(case when ${col(sql, plan, "count")} is null then null
            else ${col(sql, plan, "count")} + ${col(sql, plan, "rollover_count")} - ${punchesCounted(sql, plan, personId, date)} end)`

export const availableOn = (sql: Sql, plan: string, personId: PersonRef, date: DateRef): Statement.Fragment =>
  sql`(${currentOn(sql, plan, date)} and not ${onHoldOn(sql, plan, date)}
       and (${col(sql, plan, "count")} is null or ${visitsLeft(sql, plan, personId, date)} > 0))`

/**
 * A member on D: holds a plan with `consider_member` that is current on D and not on hold
 * (whether visits are left does not matter: membership does not lapse with a used-up period).
 * Drives `is_member`, the members-only and clients-only rules, and Members-only visibility.
 */
export const memberOn = (sql: Sql, businessId: number | Statement.Fragment, personId: PersonRef, date: DateRef): Statement.Fragment =>
  sql`exists (select 1 from plan_people mp join plans m on m.business_id = mp.business_id and m.id = mp.plan_id
              where mp.business_id = ${businessId} and mp.person_id = ${personId} and m.consider_member
                and ${currentOn(sql, "m", date)} and not ${onHoldOn(sql, "m", date)})`
