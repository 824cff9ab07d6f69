import { SERVICE_TYPES } from "./service-fields.ts"
import { type ColumnDef, type ResourceCatalog, byName, column, commonDetail, commonGroupings, commonSummary, summary, total } from "./types.ts"

/**
 * Pays (`pays`): one row per staff pay (reports/sync/tables/pays.ts says how each is read).
 * `pay_period` is a range: the two-element list of its inclusive start and end dates, grouped by
 * the pair.
 */
export const PAY_STATES = ["approved", "denied", "pending"] as const
export const PAY_TYPES = ["adhoc", "commission", "service", "tip"] as const

const currency = (name: string) => column(name, "currency")

const detail = byName<ColumnDef>([
  ...commonDetail({ currency: true }),
  currency("base_pay_amount"),
  currency("final_pay_amount"),
  column("pay_description", "string"),
  column("pay_id", "integer"),
  column("pay_period", "range", "[r.pay_period_start_date, r.pay_period_end_date]"),
  column("pay_period_end_date", "date"),
  column("pay_period_start_date", "date"),
  column("pay_recorded_at", "datetime"),
  column("pay_reviewed_at", "datetime"),
  column("pay_reviewed_by_id", "integer"),
  column("pay_reviewed_by_name", "string"),
  column("pay_reviewed_date", "date", "CAST(r.local_reviewed_at AS DATE)"),
  column("pay_state", "enum", "r.pay_state", PAY_STATES),
  column("pay_type", "enum", "r.pay_type", PAY_TYPES),
  currency("per_head_pay_amount"),
  column("revenue_category", "string"),
  column("service_category", "string"),
  column("service_date", "date"),
  column("service_hours", "float"),
  column("service_id", "integer"),
  column("service_location_name", "string"),
  column("service_name", "string"),
  column("service_type", "enum", "r.service_type", SERVICE_TYPES),
  column("staff_home_location_name", "string"),
  column("staff_id", "integer"),
  column("staff_name", "string"),
  currency("tiered_pay_amount")
])
const pick = (name: string): ColumnDef => detail.get(name)!

export const paysCatalog: ResourceCatalog = {
  resource: "pays",
  source: "pays",
  businessIdSql: "r.business_id",
  keySql: "r.key",
  keyOrder: ["r.business_id", "r.pay_id"],
  timeZoneSql: "r.time_zone",
  detail,
  summary: byName([
    ...commonSummary,
    summary("pay_count", "integer", "count(DISTINCT (r.business_id, r.pay_id))"),
    // Pays without a service (sales, ad hoc) count no service.
    summary("service_count", "integer", "count(DISTINCT CASE WHEN r.service_id IS NOT NULL THEN (r.business_id, r.service_id) END)"),
    total("total_base_pay_amount", "currency", "base_pay_amount"),
    total("total_final_pay_amount", "currency", "final_pay_amount"),
    total("total_per_head_pay_amount", "currency", "per_head_pay_amount"),
    total("total_tiered_pay_amount", "currency", "tiered_pay_amount"),
    total("total_service_hours", "float", "service_hours")
  ]),
  groupings: byName([
    ...commonGroupings,
    ...[
      "pay_period",
      "pay_reviewed_by_id",
      "pay_reviewed_by_name",
      "pay_reviewed_date",
      "pay_state",
      "pay_type",
      "revenue_category",
      "service_category",
      "service_date",
      "service_id",
      "service_location_name",
      "service_name",
      "service_type",
      "staff_home_location_name",
      "staff_id",
      "staff_name"
    ].map(pick)
  ]),
  logical: new Map()
}
