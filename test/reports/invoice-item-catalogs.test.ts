import { describe, expect, it } from "vitest"
import { invoiceItemTransactionsCatalog } from "../../reports/catalog/invoice-item-transactions.ts"
import { invoiceItemsCatalog } from "../../reports/catalog/invoice-items.ts"
import type { ResourceCatalog } from "../../reports/catalog/types.ts"
import { invoiceItemTransactionsTable } from "../../reports/sync/tables/invoice-item-transactions.ts"
import { invoiceItemsTable } from "../../reports/sync/tables/invoice-items.ts"
import type { StoreTable } from "../../reports/sync/tables/types.ts"

/** The two item catalogs list what the spec lists (the lists below are the spec's), and their tables hold what they read. */

const words = (text: string) => text.trim().split(/\s+/).sort()
const buckets = (base: string) => ["month", "quarter", "week_mon", "week_sun", "year"].map((p) => `${base}_${p}_start_date`).join(" ")

const SPEC = {
  invoice_items: {
    detail:
      "adjustments_amount business_id business_name business_subdomain closed_at closed_date commission_recipient_name coupon_code coupons_amount created_by_client created_by_name currency_code days_since_invoice_due discount_type discounts_amount expected_amount expected_revenue_amount expected_tax_amount failed_transactions franchise_id grants_membership gross_amount invoice_autobill invoice_due_date invoice_id invoice_item_id invoice_number invoice_payer_email invoice_payer_home_location invoice_payer_name invoice_payer_phone invoice_payer_primary_staff_name_at_sale invoice_payer_id invoice_state issued_at issued_date key net_paid_amount net_paid_revenue_amount net_paid_tax_amount outstanding_amount outstanding_revenue_amount outstanding_tax_amount payments_amount plan_id product_id product_name product_name_at_sale product_type purchase_order_number purchase_request_cancel_reason purchase_request_message purchase_request_state recipient_names refunded_transactions refunds_amount retail_add_ons retail_options revenue_category sale_location_name tax_types tax_types_extended voided_transactions",
    summary:
      "business_id_summary business_subdomain_summary total_count grants_membership_count invoice_count invoice_item_count total_adjustments_amount total_coupons_amount total_discounts_amount total_expected_amount total_expected_revenue_amount total_expected_tax_amount total_gross_amount total_net_paid_amount total_net_paid_revenue_amount total_net_paid_tax_amount total_outstanding_amount total_outstanding_revenue_amount total_outstanding_tax_amount total_payments_amount total_refunds_amount",
    groupings: `business_id business_name business_subdomain closed_date ${buckets("closed")} commission_recipient_name coupon_code created_by_client created_by_name discount_type ${buckets("due")} grants_membership invoice_autobill invoice_due_date invoice_id invoice_number invoice_payer_home_location invoice_payer_id invoice_payer_name invoice_payer_primary_staff_name_at_sale invoice_state issued_date ${buckets("issued")} plan_id product_id product_name product_name_at_sale product_type purchase_request_state revenue_category sale_location_name`
  },
  invoice_item_transactions: {
    detail:
      "business_id business_name business_subdomain commission_recipient_name created_by_name credit_card_name currency_code error_message external_payment_name failed_at failed_date franchise_id grants_membership invoice_autobill invoice_due_date invoice_id invoice_item_id invoice_number invoice_payer_email invoice_payer_home_location invoice_payer_id invoice_payer_name invoice_payer_phone invoice_payer_primary_staff_name_at_sale invoice_state key net_paid_amount net_paid_revenue_amount net_paid_tax_amount payment_method payment_method_detail payment_transaction_id payments_amount plan_id processing_method processor_transaction_id product_id product_name product_name_at_sale product_type refunds_amount revenue_category sale_location_name transaction_amount transaction_at transaction_autopay transaction_date transaction_id transaction_state transaction_type voided_at",
    summary: `business_id_summary business_subdomain_summary total_count failed_count settled_count grants_membership_count invoice_count invoice_item_count transaction_autopay_count transaction_count total_net_paid_amount total_net_paid_revenue_amount total_net_paid_tax_amount total_payments_amount total_refunds_amount ${["ach", "cash", "check", "credit", "external", "visa", "master_card", "american_express", "discover", "other_credit_card"].map((m) => `total_net_${m}_paid_amount`).join(" ")} ${["sandbox", "american_express", "other"].map((p) => `total_net_${p}_processing_paid_amount`).join(" ")}`,
    groupings: `business_id business_name business_subdomain commission_recipient_name created_by_name credit_card_name external_payment_name failed_date ${buckets("failed")} grants_membership invoice_autobill invoice_due_date invoice_id invoice_item_id invoice_number invoice_payer_home_location invoice_payer_id invoice_payer_name invoice_payer_primary_staff_name_at_sale invoice_state payment_method plan_id processing_method product_id product_name product_name_at_sale product_type revenue_category sale_location_name transaction_autopay transaction_date ${buckets("transaction")} transaction_id transaction_state transaction_type`
  }
}

const names = (catalog: ResourceCatalog) => ({
  detail: [...catalog.detail.keys()].sort(),
  summary: [...catalog.summary.keys()].sort(),
  groupings: [...catalog.groupings.keys()].sort()
})

describe("the invoice item catalogs", () => {
  for (const [catalog, table] of [
    [invoiceItemsCatalog, invoiceItemsTable],
    [invoiceItemTransactionsCatalog, invoiceItemTransactionsTable]
  ] as ReadonlyArray<readonly [ResourceCatalog, StoreTable]>) {
    it(`${catalog.resource} lists what the spec lists, and its table holds every column it reads`, () => {
      const spec = SPEC[catalog.resource as keyof typeof SPEC]
      expect(names(catalog)).toEqual({ detail: words(spec.detail), summary: words(spec.summary), groupings: words(spec.groupings) })
      expect(catalog.source).toBe(table.name)
      const stored = new Set(table.columns.map(([name]) => name))
      const sqls = [...catalog.detail.values(), ...catalog.summary.values(), ...catalog.groupings.values()].map((c) => c.sql)
      for (const sql of [...sqls, ...catalog.keyOrder, catalog.timeZoneSql]) {
        for (const [, name] of sql.matchAll(/\br\.([a-z0-9_]+)/g)) expect(stored.has(name!), name).toBe(true)
      }
    })
  }
})
