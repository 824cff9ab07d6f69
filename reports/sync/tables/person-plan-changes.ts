import { type ChangeScope, changeLog, inLogs } from "./change-scope.ts"
import { changedClients, changedPeople } from "./clients.ts"
import { changedPlans } from "./plans.ts"

/**
 * What an incremental refresh of person_plans re-reads (incremental-refresh.ts): the plans whose
 * rows may have changed outside the plan change log, and the rows of changed plans and people.
 */

/** A plan's invoices: its sale (the item's recipients) and its renewals (billing periods). */
const planInvoices = `
  select r.business_id, r.plan_id, it.invoice_id from invoice_item_recipients r
    join invoice_items it on it.business_id = r.business_id and it.id = r.invoice_item_id
   where r.plan_id is not null
  union all
  select m.business_id, m.plan_id, m.invoice_id from membership_billing_periods m where m.invoice_id is not null`

/**
 * Plans whose person_plans rows may have changed outside the plan change log, as
 * \`(business_id, id)\` with \`$1\` = changed since: terms accepted or declined, billing periods
 * written, invoices of the plan written; and, in the businesses whose calendar day turned, open
 * invoices of the plan that turned past due, plans whose visit period (week, month, year)
 * began anew, and plans still in their commitment (remaining_commitment counts down).
 */
export const changedPersonPlanSourcesSql = `
  select t.business_id, t.plan_id from plan_terms t where t.updated_at > $1
  union
  select m.business_id, m.plan_id from membership_billing_periods m where m.updated_at > $1
  union
  select pi.business_id, pi.plan_id from (${planInvoices}) pi
    join invoices inv on inv.business_id = pi.business_id and inv.id = pi.invoice_id
    join businesses b on b.id = inv.business_id
   where inv.updated_at > $1
      or (inv.state = 'open'
          and inv.invoice_date + 1 > ($1::timestamptz at time zone b.time_zone)::date
          and inv.invoice_date + 1 <= (now() at time zone b.time_zone)::date)
  union
  select pl.business_id, pl.id from plans pl
    join businesses b on b.id = pl.business_id
    join plan_products pr on pr.business_id = pl.business_id and pr.id = pl.plan_product_id
   where ($1::timestamptz at time zone b.time_zone)::date < (now() at time zone b.time_zone)::date
     and ((pl.limit_period is not null
           and date_trunc(pl.limit_period, (now() at time zone b.time_zone)::date) > ($1::timestamptz at time zone b.time_zone)::date)
          or (pr.commitment_length is not null
              and pl.start_date + (pr.commitment_length || ' ' || pr.commitment_unit)::interval > ($1::timestamptz at time zone b.time_zone)::date))`

/**
 * The part of person_plans an incremental refresh re-reads, as `(business_id, plan_id,
 * person_id)` with one of the two ids null: every row of a changed plan, every row of a changed
 * person (holders whose product, revenue category or day turned included). Rows of the store in
 * this scope are replaced by the fresh ones, so a holder removed or a plan deleted disappears.
 */
export const personPlansScopeSql = `
  select business_id, id as plan_id, null::bigint as person_id from report_changed_plans
  union select business_id, id, null::bigint from report_changed_person_plans
  union select business_id, null::bigint, id from report_changed_people
  union select business_id, null::bigint, id from report_changed_clients`

export const changedPersonPlans = changeLog("report_changed_person_plans", changedPersonPlanSourcesSql)

const planLogs = [changedPlans, changedPersonPlans]
const personLogs = [changedPeople, changedClients]

/** person_plans' change scope (`pp` is the plan_people row): the rows of changed plans and people replace all theirs. */
export const personPlansChanges: ChangeScope = {
  logs: [...planLogs, ...personLogs],
  where: `(${inLogs("(pp.business_id, pp.plan_id)", planLogs)} or ${inLogs("(pp.business_id, pp.person_id)", personLogs)})`,
  replaces: {
    kind: "within",
    rows: (alias) =>
      `EXISTS (SELECT 1 FROM person_plans_scope s WHERE s.business_id = ${alias}.business_id AND (s.plan_id = ${alias}.plan_id OR s.person_id = ${alias}.person_id))`
  },
  scope: { name: "person_plans_scope", columns: [["business_id", "BIGINT"], ["plan_id", "BIGINT"], ["person_id", "BIGINT"]], sql: personPlansScopeSql },
  metrics: true
}
