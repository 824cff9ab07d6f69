import { PgClient } from "@effect/sql-pg"
import { Effect } from "effect"
import { type SqlClient, Statement } from "effect/sql"
import * as rules from "../../../src/shared/plan-rules.ts"
import { changeLog } from "./change-scope.ts"

/**
 * Plans in the report sync. The plan rules (src/shared/plan-rules.ts) as SQL text for the sync, which
 * reads PostgreSQL through `pg` with statements assembled as text (sync.ts): the very fragments
 * the Core API runs, rendered by the PostgreSQL compiler. The rules take a SqlClient but only
 * build fragments with it (`sql\`...\`` and `sql.literal`), which the statement constructor
 * alone does: it is given an acquirer that would die, and is never run. References are column
 * expressions of the caller's query, so no bound parameter can appear (one would be a defect).
 * They must not name the rules' own aliases (`pu`, `h`), which the rules' subqueries shadow.
 */
const compiler = PgClient.makeCompiler()
const sql = Statement.make(Effect.die("the report sync renders plan rules, it never runs them"), compiler, [], undefined) as unknown as SqlClient.SqlClient

const text = (fragment: Statement.Fragment): string => {
  const [rendered, params] = compiler.compile(fragment, false)
  if (params.length > 0) throw new Error(`a plan rule rendered for the report sync has parameters: ${rendered}`)
  return rendered
}
const ref = (expression: string) => sql.literal(expression)

/** Current on `date`: between its dates and not deactivated. `plan` aliases a `plans` row. */
export const currentOnSql = (plan: string, date: string) => text(rules.currentOn(sql, plan, ref(date)))

/** On hold on `date`. */
export const onHoldOnSql = (plan: string, date: string) => text(rules.onHoldOn(sql, plan, ref(date)))

/** Available on `date` for `person` (current, not on hold, visits left). */
export const availableOnSql = (plan: string, person: string, date: string) => text(rules.availableOn(sql, plan, ref(person), ref(date)))

/** Visits left for `person` on `date`; null when the plan is unlimited. */
export const visitsLeftSql = (plan: string, person: string, date: string) => text(rules.visitsLeft(sql, plan, ref(person), ref(date)))

/** Punches that count against the plan for `person` on `date` (its period's, when it has one). */
export const punchesCountedSql = (plan: string, person: string, date: string) => text(rules.punchesCounted(sql, plan, ref(person), ref(date)))

/** A plan's type as the reports name it (person_plans' plan_type): a Pack of a single-visit-pass product is one. */
export const planTypeSql = (plan: string, product: string) =>
  `case when ${plan}.type = 'Pack' and ${product}.kind = 'single_visit_pass' then 'single_visit_pass' else lower(${plan}.type) end`

/**
 * Plans whose report rows may have changed, as `(business_id, id)`: every write to a plan, its
 * holders, holds or punches, recorded by trigger in report_plan_changes (deletions included).
 * Runs inside the sync's snapshot with `$1` = changed since, before the changed people and
 * occurrences, which expand it to the plans' holders and all their enrollments (what paid them
 * and what could).
 */
export const changedPlansSql = `
  select c.business_id, c.plan_id from report_plan_changes c where c.changed_at > $1`

export const changedPlans = changeLog("report_changed_plans", changedPlansSql)

/**
 * Holders of plans whose product or the product's revenue category was edited, as
 * `(business_id, id)` of people: a sold plan copies its product, so only the clients' current
 * plan types and revenue categories (read through the product) can change, not enrollments.
 */
export const changedProductHoldersSql = `
  select cpp.business_id, cpp.person_id from plan_people cpp
    join plans pl on pl.business_id = cpp.business_id and pl.id = cpp.plan_id
    join plan_products pr on pr.business_id = pl.business_id and pr.id = pl.plan_product_id
    left join revenue_categories rc on rc.business_id = pr.business_id and rc.id = pr.revenue_category_id
   where greatest(pr.updated_at, rc.updated_at) > $1`

/**
 * Holders of plans whose standing turned with the business's calendar day since `$1`: a plan
 * starting, ending (the day after its end date), or a hold starting or ending on a day that
 * began since then. Nothing is written when a day turns, yet current plans, membership and holds
 * change: found here, in the businesses whose local date moved (most minutes none).
 */
export const turnedDayHoldersSql = `
  select cpp.business_id, cpp.person_id
  from businesses b
  join plan_people cpp on cpp.business_id = b.id
  join plans pl on pl.business_id = cpp.business_id and pl.id = cpp.plan_id
  where ($1::timestamptz at time zone b.time_zone)::date < (now() at time zone b.time_zone)::date
    and exists (
      select 1 from (
        select pl.start_date as day union all select pl.end_date + 1
        union all select h.start_date from plan_holds h where h.business_id = pl.business_id and h.plan_id = pl.id
        union all select h.end_date + 1 from plan_holds h where h.business_id = pl.business_id and h.plan_id = pl.id) d
      where d.day > ($1::timestamptz at time zone b.time_zone)::date and d.day <= (now() at time zone b.time_zone)::date)`
