import {
  type ColumnDef,
  type ResourceCatalog,
  byName,
  column,
  commonDetail,
  commonGroupings,
  commonSummary,
  countTrue,
  dateBuckets,
  summary
} from "./types.ts"

/**
 * Invoices (`invoices`): one row per invoice out of the checkout (reports/sync/tables/invoices.ts
 * says which and how its money is read). Revenue amounts are the amount less its tax share, so
 * revenue + tax = amount on every row and in every sum.
 */
export const INVOICE_STATES = ["canceled", "closed", "on_hold", "open", "purchase_request"] as const
export const PURCHASE_REQUEST_STATES = ["canceled", "declined", "expired", "not_applicable", "open", "purchased"] as const

const closedDate = "CAST(r.local_closed_at AS DATE)"
const issuedDate = "CAST(r.local_issued_at AS DATE)"
const today = "CAST(timezone(r.time_zone, CAST($now AS TIMESTAMPTZ)) AS DATE)"

const currency = (name: string) => column(name, "currency")
const revenue = (name: string, amount: string, tax: string) => column(name, "currency", `(r.${amount} - r.${tax})`)

const detail = byName<ColumnDef>([
  ...commonDetail({ currency: true }),
  currency("adjustments_amount"),
  column("closed_at", "datetime"),
  column("closed_date", "date", closedDate),
  column("commission_recipient_name", "string"),
  currency("coupons_amount"),
  column("created_by_client", "boolean"),
  column("created_by_name", "string"),
  // Blank while the due date is in the future.
  column("days_since_invoice_due", "integer", `CASE WHEN r.invoice_due_date <= ${today} THEN date_diff('day', r.invoice_due_date, ${today}) END`),
  currency("discounts_amount"),
  currency("expected_amount"),
  revenue("expected_revenue_amount", "expected_amount", "expected_tax_amount"),
  currency("expected_tax_amount"),
  column("failed_transactions", "integer"),
  currency("gross_amount"),
  column("invoice_autobill", "boolean"),
  column("invoice_due_date", "date"),
  column("invoice_id", "integer"),
  column("invoice_number", "string"),
  column("invoice_payer_email", "string"),
  column("invoice_payer_home_location", "string"),
  column("invoice_payer_id", "integer"),
  column("invoice_payer_name", "string"),
  column("invoice_payer_phone", "string"),
  column("invoice_payer_primary_staff_name_at_sale", "string"),
  column("invoice_state", "enum", "r.invoice_state", INVOICE_STATES),
  column("issued_at", "datetime"),
  column("issued_date", "date", issuedDate),
  currency("net_paid_amount"),
  revenue("net_paid_revenue_amount", "net_paid_amount", "net_paid_tax_amount"),
  currency("net_paid_tax_amount"),
  currency("outstanding_amount"),
  revenue("outstanding_revenue_amount", "outstanding_amount", "outstanding_tax_amount"),
  currency("outstanding_tax_amount"),
  currency("payments_amount"),
  column("purchase_order_number", "integer"),
  column("purchase_request_cancel_reason", "string"),
  column("purchase_request_message", "string"),
  column("purchase_request_state", "enum", "r.purchase_request_state", PURCHASE_REQUEST_STATES),
  column("refunded_transactions", "integer"),
  currency("refunds_amount"),
  column("sale_location_name", "string"),
  column("voided_transactions", "integer")
])
const pick = (name: string): ColumnDef => detail.get(name)!

/** The currency fields summed as `total_<name>` by invoices and invoice items alike. */
export const INVOICE_AMOUNTS = [
  "adjustments_amount",
  "coupons_amount",
  "discounts_amount",
  "expected_amount",
  "expected_revenue_amount",
  "expected_tax_amount",
  "gross_amount",
  "net_paid_amount",
  "net_paid_revenue_amount",
  "net_paid_tax_amount",
  "outstanding_amount",
  "outstanding_revenue_amount",
  "outstanding_tax_amount",
  "payments_amount",
  "refunds_amount"
]

const sumOf = (name: string) => summary(`total_${name}`, "currency", `coalesce(sum(${detail.get(name)!.sql}), 0)`)

const summaries = [
  ...commonSummary,
  countTrue("created_by_client_count", "created_by_client"),
  countTrue("invoice_autobill_count", "invoice_autobill"),
  summary("invoice_count", "integer", "count(DISTINCT (r.business_id, r.invoice_id))"),
  ...INVOICE_AMOUNTS.map(sumOf)
]

export const invoicesCatalog: ResourceCatalog = {
  resource: "invoices",
  source: "invoices",
  businessIdSql: "r.business_id",
  keySql: "r.key",
  keyOrder: ["r.business_id", "r.invoice_id"],
  timeZoneSql: "r.time_zone",
  newestFirst: { sql: "r.closed_at", source: "invoices_newest" },
  detail,
  summary: byName(summaries),
  groupings: byName([
    ...commonGroupings,
    ...[
      "closed_date",
      "commission_recipient_name",
      "created_by_client",
      "created_by_name",
      "invoice_autobill",
      "invoice_due_date",
      "invoice_payer_home_location",
      "invoice_payer_id",
      "invoice_payer_name",
      "invoice_payer_primary_staff_name_at_sale",
      "invoice_state",
      "issued_date",
      "purchase_request_state",
      "sale_location_name"
    ].map(pick),
    ...dateBuckets("closed", closedDate),
    ...dateBuckets("due", "r.invoice_due_date"),
    ...dateBuckets("issued", issuedDate)
  ]),
  logical: new Map()
}
