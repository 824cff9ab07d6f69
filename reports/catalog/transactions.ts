import { CREDIT_CARD_NAMES, FAILED_DATE, NET_METHODS, PROCESSING_METHODS, TRANSACTION_DATE, TRANSACTION_FIELDS, TRANSACTION_INVOICE_FIELDS } from "./invoice-item-transactions.ts"
import { type ColumnDef, type ResourceCatalog, type SummaryDef, byName, commonGroupings, commonSummary, countTrue, dateBuckets, summary } from "./types.ts"

/**
 * Transactions (`transactions`): one row per payment or refund, in any state
 * (reports/sync/tables/transactions.ts says how they are read). Every field means what it means
 * in invoice_item_transactions, for the transaction's whole amount instead of an item's share:
 * a transaction's row here equals the sum of its rows there.
 *
 * Summary names the public API spells its own way (docs/decisions.md, the section on the
 * transactions resource): `total_net_mastercard_paid_amount` sums the `master_card` network;
 * `total_net_amex_processing_paid_amount` the `american_express` processing method and
 * `total_net_global_pay_processing_paid_amount` the payment processor's (`sandbox`), so the
 * three processing totals add up to `total_net_paid_amount` as the spec's do.
 */
const detail = byName<ColumnDef>([...TRANSACTION_INVOICE_FIELDS, ...TRANSACTION_FIELDS])
const pick = (name: string): ColumnDef => detail.get(name)!

const netWhere = (name: string, condition: string): SummaryDef =>
  summary(name, "currency", `coalesce(sum(r.net_paid_amount) FILTER (WHERE ${condition}), 0)`)

/** The card networks as the public API spells them in summary names, and the network each sums. */
const CARD_SUMMARIES = [
  ["visa", "visa"],
  ["mastercard", "master_card"],
  ["american_express", "american_express"],
  ["discover", "discover"],
  ["other_credit_card", "other_credit_card"]
] as const satisfies ReadonlyArray<readonly [string, (typeof CREDIT_CARD_NAMES)[number]]>

/** The processing totals as the public API names them, and the processing method each sums. */
const PROCESSING_SUMMARIES = [
  ["amex", "american_express"],
  ["global_pay", "sandbox"],
  ["other", "other"]
] as const satisfies ReadonlyArray<readonly [string, (typeof PROCESSING_METHODS)[number]]>

const summaries: ReadonlyArray<SummaryDef> = [
  ...commonSummary,
  summary("failed_count", "integer", "count(*) FILTER (WHERE r.transaction_state = 'failed')"),
  summary("settled_count", "integer", "count(*) FILTER (WHERE r.transaction_state = 'settled')"),
  summary("invoice_count", "integer", "count(DISTINCT (r.business_id, r.invoice_id))"),
  countTrue("transaction_autopay_count", "transaction_autopay"),
  // One row per transaction: every row counts.
  summary("transaction_count", "integer", "count(*)"),
  ...["net_paid_amount", "net_paid_revenue_amount", "net_paid_tax_amount", "payments_amount", "refunds_amount"].map((name) =>
    summary(`total_${name}`, "currency", `coalesce(sum(${pick(name).sql}), 0)`)
  ),
  ...NET_METHODS.map((method) => netWhere(`total_net_${method}_paid_amount`, `r.payment_method = '${method}'`)),
  ...CARD_SUMMARIES.map(([name, card]) => netWhere(`total_net_${name}_paid_amount`, `r.payment_method = 'creditcard' AND r.credit_card_name = '${card}'`)),
  ...PROCESSING_SUMMARIES.map(([name, processing]) => netWhere(`total_net_${name}_processing_paid_amount`, `r.processing_method = '${processing}'`))
]

export const transactionsCatalog: ResourceCatalog = {
  resource: "transactions",
  source: "transactions",
  businessIdSql: "r.business_id",
  keySql: "r.key",
  keyOrder: ["r.business_id", "r.transaction_type", "r.transaction_id"],
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
      "invoice_autobill",
      "invoice_due_date",
      "invoice_id",
      "invoice_number",
      "invoice_payer_home_location",
      "invoice_payer_id",
      "invoice_payer_name",
      "invoice_payer_primary_staff_name_at_sale",
      "invoice_state",
      "payment_method",
      "processing_method",
      "sale_location_name",
      "transaction_autopay",
      "transaction_date",
      "transaction_state",
      "transaction_type"
    ].map(pick),
    ...dateBuckets("failed", FAILED_DATE),
    ...dateBuckets("transaction", TRANSACTION_DATE)
  ]),
  logical: new Map()
}
