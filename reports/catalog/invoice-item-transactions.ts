import { itemFields } from "./invoice-items.ts"
import { invoicesCatalog } from "./invoices.ts"
import { type ColumnDef, type ResourceCatalog, type SummaryDef, byName, column, commonDetail, commonGroupings, commonSummary, countTrue, dateBuckets, summary } from "./types.ts"

/**
 * Invoice item transactions (`invoice_item_transactions`): one row per payment or refund and
 * live item of its invoice (reports/sync/tables/invoice-item-transactions.ts says how they are
 * read, shared and signed). Invoice-level and item-level fields are the invoices and invoice
 * items resources' own definitions.
 */
export const TRANSACTION_INVOICE_STATES = ["canceled", "cart", "closed", "on_hold", "open", "purchase_request"] as const
export const CARD_NAMES = ["american_express", "discover", "master_card", "visa"] as const
export const CREDIT_CARD_NAMES = [...CARD_NAMES, "other_credit_card"] as const
export const PAYMENT_METHODS = ["ach", "cash", "check", "credit", "creditcard", "external", "free", "other", "paypal"] as const
export const NET_METHODS = ["ach", "cash", "check", "credit", "external"] as const
export const PROCESSING_METHODS = ["american_express", "other", "sandbox"] as const
export const TRANSACTION_STATES = ["checkout", "completed", "failed", "processing", "settled", "voided"] as const
export const TRANSACTION_TYPES = ["payment", "refund"] as const

/** Local dates of the transaction's instants (transactions.ts groups by them too). */
export const FAILED_DATE = "CAST(r.local_failed_at AS DATE)"
export const TRANSACTION_DATE = "CAST(r.local_transaction_at AS DATE)"
const invoiceField = (name: string): ColumnDef => invoicesCatalog.detail.get(name)!

/** The invoice's fields on a transaction's row: the invoices resource's own, declared here once for both transaction resources. */
export const TRANSACTION_INVOICE_FIELDS: ReadonlyArray<ColumnDef> = [
  ...commonDetail({ currency: true }),
  ...[
    "commission_recipient_name",
    "created_by_name",
    "invoice_autobill",
    "invoice_due_date",
    "invoice_id",
    "invoice_number",
    "invoice_payer_email",
    "invoice_payer_home_location",
    "invoice_payer_id",
    "invoice_payer_name",
    "invoice_payer_phone",
    "invoice_payer_primary_staff_name_at_sale",
    "sale_location_name"
  ].map(invoiceField),
  column("invoice_state", "enum", "r.invoice_state", TRANSACTION_INVOICE_STATES)
]

/** The payment's or refund's own fields, for an item's share here and the whole transaction in transactions.ts. */
export const TRANSACTION_FIELDS: ReadonlyArray<ColumnDef> = [
  column("credit_card_name", "enum", "r.credit_card_name", CREDIT_CARD_NAMES),
  column("error_message", "string"),
  column("external_payment_name", "string"),
  column("failed_at", "datetime"),
  column("failed_date", "date", FAILED_DATE),
  column("net_paid_amount", "currency"),
  column("net_paid_revenue_amount", "currency", "(r.net_paid_amount - r.net_paid_tax_amount)"),
  column("net_paid_tax_amount", "currency"),
  column("payment_method", "enum", "r.payment_method", PAYMENT_METHODS),
  column("payment_method_detail", "string"),
  column("payment_transaction_id", "integer"),
  column("payments_amount", "currency"),
  column("processing_method", "enum", "r.processing_method", PROCESSING_METHODS),
  column("processor_transaction_id", "string"),
  column("refunds_amount", "currency"),
  column("transaction_amount", "currency"),
  column("transaction_at", "datetime"),
  column("transaction_autopay", "boolean"),
  column("transaction_date", "date", TRANSACTION_DATE),
  column("transaction_id", "integer"),
  column("transaction_state", "enum", "r.transaction_state", TRANSACTION_STATES),
  column("transaction_type", "enum", "r.transaction_type", TRANSACTION_TYPES),
  column("voided_at", "datetime")
]

const detail = byName<ColumnDef>([...TRANSACTION_INVOICE_FIELDS, ...itemFields, ...TRANSACTION_FIELDS])
const pick = (name: string): ColumnDef => detail.get(name)!

const netWhere = (name: string, condition: string): SummaryDef =>
  summary(name, "currency", `coalesce(sum(r.net_paid_amount) FILTER (WHERE ${condition}), 0)`)

const summaries: ReadonlyArray<SummaryDef> = [
  ...commonSummary,
  summary("failed_count", "integer", "count(*) FILTER (WHERE r.transaction_state = 'failed')"),
  summary("settled_count", "integer", "count(*) FILTER (WHERE r.transaction_state = 'settled')"),
  countTrue("grants_membership_count", "grants_membership"),
  summary("invoice_count", "integer", "count(DISTINCT (r.business_id, r.invoice_id))"),
  summary("invoice_item_count", "integer", "count(DISTINCT (r.business_id, r.invoice_item_id))"),
  countTrue("transaction_autopay_count", "transaction_autopay"),
  summary("transaction_count", "integer", "count(DISTINCT (r.business_id, r.transaction_type, r.transaction_id))"),
  ...["net_paid_amount", "net_paid_revenue_amount", "net_paid_tax_amount", "payments_amount", "refunds_amount"].map((name) =>
    summary(`total_${name}`, "currency", `coalesce(sum(${pick(name).sql}), 0)`)
  ),
  ...NET_METHODS.map((method) => netWhere(`total_net_${method}_paid_amount`, `r.payment_method = '${method}'`)),
  ...CREDIT_CARD_NAMES.map((card) => netWhere(`total_net_${card}_paid_amount`, `r.payment_method = 'creditcard' AND r.credit_card_name = '${card}'`)),
  ...PROCESSING_METHODS.map((processing) => netWhere(`total_net_${processing}_processing_paid_amount`, `r.processing_method = '${processing}'`))
]

export const invoiceItemTransactionsCatalog: ResourceCatalog = {
  resource: "invoice_item_transactions",
  source: "invoice_item_transactions",
  businessIdSql: "r.business_id",
  keySql: "r.key",
  keyOrder: ["r.business_id", "r.transaction_type", "r.transaction_id", "r.invoice_item_id"],
  timeZoneSql: "r.time_zone",
  detail,
  summary: byName(summaries),
  groupings: byName([
    ...commonGroupings,
    ...[
      "commission_recipient_name",
      "created_by_name",
      "credit_card_name",
      "external_payment_name",
      "failed_date",
      "grants_membership",
      "invoice_autobill",
      "invoice_due_date",
      "invoice_id",
      "invoice_item_id",
      "invoice_number",
      "invoice_payer_home_location",
      "invoice_payer_id",
      "invoice_payer_name",
      "invoice_payer_primary_staff_name_at_sale",
      "invoice_state",
      "payment_method",
      "plan_id",
      "processing_method",
      "product_id",
      "product_name",
      "product_name_at_sale",
      "product_type",
      "revenue_category",
      "sale_location_name",
      "transaction_autopay",
      "transaction_date",
      "transaction_id",
      "transaction_state",
      "transaction_type"
    ].map(pick),
    ...dateBuckets("failed", FAILED_DATE),
    ...dateBuckets("transaction", TRANSACTION_DATE)
  ]),
  logical: new Map()
}
