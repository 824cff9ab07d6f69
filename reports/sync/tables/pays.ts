import { changeLog, inLogs } from "./change-scope.ts"
import { businessColumns, franchiseId, franchiseJoin, fullName, localTime, type StoreTable } from "./types.ts"

/**
 * Pays whose row may have changed since `$1`: every writer of `pays` stamps `updated_at`
 * (recording, review), plus the pays of staff members and reviewers whose person record changed,
 * and of services and occurrences edited. A renamed location or category shows at the nightly rebuild.
 */
export const changedPaysSql = `
  with changed_staff as (select sm.business_id, sm.id from staff_members sm join people p on p.business_id = sm.business_id and p.id = sm.person_id
                          where p.updated_at > $1 or sm.updated_at > $1)
  select y.business_id, y.id from pays y
   where y.updated_at > $1
      or (y.business_id, y.staff_member_id) in (select business_id, id from changed_staff)
      or (y.business_id, y.reviewed_by_staff_member_id) in (select business_id, id from changed_staff)
      or (y.business_id, y.service_id) in (select s.business_id, s.id from services s where s.updated_at > $1)
      or (y.business_id, y.event_occurrence_id) in (select o.business_id, o.id from event_occurrences o where o.updated_at > $1)`

export const changedPays = changeLog("report_changed_pays", changedPaysSql)

/**
 * Pays (`pays`): one row per pay in any state (src/staff-pay). Amounts are cents as recorded.
 * A service pay reads its occurrence (service date and location, in the occurrence's zone) and
 * service; other pays have no service, their dates in the business's zone. `revenue_category`
 * is the revenue categories of a sale pay's invoice items (commissionable ones for a commission),
 * distinct and comma-separated; null for service and ad-hoc pays. The staff member's home
 * location is their person's. `where` is a condition on the pay `y`.
 */
const zone = "coalesce(o.time_zone, b.time_zone)"

export const paysTable: StoreTable = {
  name: "pays",
  // Pays are never deleted: a changed one is replaced by key.
  changes: { logs: [changedPays], where: inLogs("(y.business_id, y.id)", [changedPays]), replaces: { kind: "key" }, metrics: false },
  columns: [
    ["key", "VARCHAR NOT NULL"],
    ...businessColumns,
    ["pay_id", "BIGINT NOT NULL"],
    ["pay_type", "VARCHAR"],
    ["pay_state", "VARCHAR"],
    ["pay_description", "VARCHAR"],
    ["base_pay_amount", "BIGINT"],
    ["per_head_pay_amount", "BIGINT"],
    ["tiered_pay_amount", "BIGINT"],
    ["final_pay_amount", "BIGINT"],
    ["service_hours", "DOUBLE"],
    ["pay_period_start_date", "DATE"],
    ["pay_period_end_date", "DATE"],
    ["pay_recorded_at", "TIMESTAMPTZ"],
    ["pay_reviewed_at", "TIMESTAMPTZ"],
    ["local_reviewed_at", "TIMESTAMP"],
    ["pay_reviewed_by_id", "BIGINT"],
    ["pay_reviewed_by_name", "VARCHAR"],
    ["revenue_category", "VARCHAR"],
    ["service_category", "VARCHAR"],
    ["service_date", "DATE"],
    ["service_id", "BIGINT"],
    ["service_location_name", "VARCHAR"],
    ["service_name", "VARCHAR"],
    ["service_type", "VARCHAR"],
    ["staff_home_location_name", "VARCHAR"],
    ["staff_name", "VARCHAR"],
    ["staff_id", "BIGINT"]
  ],
  select: (where) => `
    select
      y.business_id || '-' || y.id as key,
      y.business_id,
      b.name as business_name,
      b.subdomain as business_subdomain,
      ${franchiseId("b")} as franchise_id,
      b.currency_code,
      ${zone} as time_zone,
      y.id as pay_id,
      y.pay_type,
      y.pay_state,
      y.description as pay_description,
      y.base_cents as base_pay_amount,
      y.per_head_cents as per_head_pay_amount,
      y.tiered_cents as tiered_pay_amount,
      y.final_cents as final_pay_amount,
      y.service_hours::float8 as service_hours,
      y.pay_period_start as pay_period_start_date,
      y.pay_period_end as pay_period_end_date,
      y.recorded_at as pay_recorded_at,
      y.reviewed_at as pay_reviewed_at,
      ${localTime("y.reviewed_at", zone)} as local_reviewed_at,
      y.reviewed_by_staff_member_id as pay_reviewed_by_id,
      ${fullName("rp")} as pay_reviewed_by_name,
      (select string_agg(distinct rc.name collate "C", ', ' order by rc.name collate "C")
         from invoice_items it
         join plan_products pp on pp.business_id = it.business_id and pp.id = it.plan_product_id
         join revenue_categories rc on rc.business_id = pp.business_id and rc.id = pp.revenue_category_id
        where y.invoice_id is not null and it.business_id = y.business_id and it.invoice_id = y.invoice_id
          and it.canceled_at is null and (y.pay_type <> 'commission' or it.commissionable)) as revenue_category,
      sc.name as service_category,
      (o.start_at at time zone o.time_zone)::date as service_date,
      y.service_id,
      ol.name as service_location_name,
      s.name as service_name,
      case s.type when 'Appointment' then 'appointment' when 'GroupClass' then 'group_class' when 'Course' then 'course' end as service_type,
      hl.name as staff_home_location_name,
      ${fullName("sp")} as staff_name,
      y.staff_member_id as staff_id
    from pays y
    join businesses b on b.id = y.business_id
    ${franchiseJoin("b")}
    join staff_members sm on sm.business_id = y.business_id and sm.id = y.staff_member_id
    join people sp on sp.business_id = sm.business_id and sp.id = sm.person_id
    left join locations hl on hl.business_id = sp.business_id and hl.id = sp.location_id
    left join staff_members rs on rs.business_id = y.business_id and rs.id = y.reviewed_by_staff_member_id
    left join people rp on rp.business_id = rs.business_id and rp.id = rs.person_id
    left join event_occurrences o on o.business_id = y.business_id and o.id = y.event_occurrence_id
    left join locations ol on ol.business_id = o.business_id and ol.id = o.location_id
    left join services s on s.business_id = y.business_id and s.id = y.service_id
    left join service_categories sc on sc.business_id = s.business_id and sc.id = s.category_id
    where ${where}`
}
