import { INVOICE_AMOUNTS, invoicesCatalog } from "./invoices.ts"
import { type ColumnDef, type ResourceCatalog, byName, column, countTrue, summary } from "./types.ts"

/**
 * Invoice items (`invoice_items`): one row per live item of a reported invoice
 * (reports/sync/tables/invoice-items.ts says which and how its money is shared). Its
 * invoice-level fields are the invoices resource's own definitions, so they read alike.
 *
 * product_type from the item and its plan product: a signup fee → `signup_fee`; a membership →
 * `recurring`; a pack or single-visit pass → `pass`; a prepaid plan → `prepaid`; an item of kind
 * `tip` → `tip`; anything else → `unknown_plan`. The spec's other values (retail, fees, deposits,
 * plan changes, ad-hoc charges) have no item kind yet. retail_add_ons and retail_options are null:
 * there is no retail yet.
 */
export const PRODUCT_TYPES = [
  "cancellation_fee",
  "deposit",
  "external",
  "hold_fee",
  "pass",
  "plan_change",
  "plan_participants_update",
  "prepaid",
  "recurring",
  "retail",
  "signup_fee",
  "tip",
  "unknown_adhoc_charge",
  "unknown_plan"
] as const
export const DISCOUNT_TYPES = ["fixed", "percent"] as const

/** The item-level fields the two item resources share. */
export const itemFields: ReadonlyArray<ColumnDef> = [
  column("grants_membership", "boolean"),
  column("invoice_item_id", "integer"),
  column("plan_id", "integer"),
  column("product_id", "integer"),
  column("product_name", "string"),
  column("product_name_at_sale", "string"),
  column("product_type", "enum", "r.product_type", PRODUCT_TYPES),
  column("revenue_category", "string")
]

const detail = byName<ColumnDef>([
  ...invoicesCatalog.detail.values(),
  ...itemFields,
  column("coupon_code", "string"),
  column("discount_type", "enum", "r.discount_type", DISCOUNT_TYPES),
  column("recipient_names", "string"),
  column("retail_add_ons", "string"),
  column("retail_options", "string"),
  column("tax_types", "string"),
  column("tax_types_extended", "string")
])
const pick = (name: string): ColumnDef => detail.get(name)!


export const invoiceItemsCatalog: ResourceCatalog = {
  resource: "invoice_items",
  source: "invoice_items",
  businessIdSql: "r.business_id",
  keySql: "r.key",
  keyOrder: ["r.business_id", "r.invoice_item_id"],
  timeZoneSql: "r.time_zone",
  newestFirst: { sql: "r.closed_at", source: "invoice_items_newest" },
  detail,
  summary: byName([
    ...[...invoicesCatalog.summary.values()].filter((s) => !["created_by_client_count", "invoice_autobill_count"].includes(s.name) && !INVOICE_AMOUNTS.includes(s.name.slice(6))),
    countTrue("grants_membership_count", "grants_membership"),
    summary("invoice_item_count", "integer", "count(DISTINCT (r.business_id, r.invoice_item_id))"),
    ...INVOICE_AMOUNTS.map((name) => summary(`total_${name}`, "currency", `coalesce(sum(${pick(name).sql}), 0)`))
  ]),
  groupings: byName([
    ...invoicesCatalog.groupings.values(),
    ...["coupon_code", "discount_type", "grants_membership", "invoice_id", "invoice_number", "plan_id", "product_id", "product_name", "product_name_at_sale", "product_type", "revenue_category"].map(pick)
  ]),
  logical: new Map()
}
