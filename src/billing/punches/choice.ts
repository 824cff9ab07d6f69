import type { SqlClient, Statement } from "effect/sql"
import { availableOn, type DateRef, type PersonRef, visitsLeft } from "../../shared/plan-rules.ts"
import { bigintArray } from "../../shared/sql-rows.ts"

/**
 * The automatic plan choice, written once: which of a person's plans may pay for a visit, and
 * which of them goes first. Used by POST punches without `plan_id`, by auto-pay (a visit
 * registered or completed) and by eligibility's `plan_required` (Commerce.planHolders).
 *
 * Suitable for a visit of service S at location L with staff T on the business-local date D:
 * held by the person, available on D (src/shared/plan-rules.ts: current, not on hold, a visit left),
 * and covering the visit: the plan's product lists no services or lists S; the plan has no
 * location or L; the plan has no staff member or one of T. A visit without a location (or staff)
 * is covered only by plans without that restriction.
 *
 * Order (deterministic): the plan ending first (no end date last), then the fewest visits left
 * (unlimited last), then the oldest (lowest id) — spend what would lapse first.
 */
type Sql = SqlClient.SqlClient

export interface Coverage {
  readonly serviceId: number
  readonly locationId: number | null
  readonly staffMemberIds: ReadonlyArray<number>
  /** The business-local date of the visit (YYYY-MM-DD). */
  readonly date: string
}

/** The person holds plan `p` (one of its person_ids). */
export const heldBy = (sql: Sql, plan: string, personId: PersonRef): Statement.Fragment =>
  sql`exists (select 1 from plan_people hp
              where hp.business_id = ${sql.literal(plan)}.business_id and hp.plan_id = ${sql.literal(plan)}.id and hp.person_id = ${personId})`

/** Plan `plan` covers the visit's service, location and staff (the product's services; the plan's own restrictions). */
export const covers = (sql: Sql, plan: string, target: Omit<Coverage, "date">): Statement.Fragment => {
  const p = sql.literal(plan)
  return sql`((not exists (select 1 from plan_product_services ps
                          where ps.business_id = ${p}.business_id and ps.plan_product_id = ${p}.plan_product_id)
               or exists (select 1 from plan_product_services ps
                          where ps.business_id = ${p}.business_id and ps.plan_product_id = ${p}.plan_product_id
                            and ps.service_id = ${target.serviceId}))
              and (${p}.location_id is null or ${p}.location_id = ${target.locationId})
              and (${p}.staff_member_id is null or ${p}.staff_member_id = any(${bigintArray([...target.staffMemberIds])}::bigint[])))`
}

/** Plan `plan` may pay for the person's visit described by `target` (see above). */
export const suitableFor = (sql: Sql, plan: string, personId: PersonRef, target: Coverage): Statement.Fragment =>
  sql`(${heldBy(sql, plan, personId)} and ${availableOn(sql, plan, personId, target.date)} and ${covers(sql, plan, target)})`

/** The choice's order, for `order by`. */
export const choiceOrder = (sql: Sql, plan: string, personId: PersonRef, date: DateRef): Statement.Fragment =>
  sql`${sql.literal(plan)}.end_date asc nulls last, ${visitsLeft(sql, plan, personId, date)} asc nulls last, ${sql.literal(plan)}.id asc`
