import { clientsCatalog } from "./clients.ts"
import { enrollmentsCatalog } from "./enrollments.ts"
import { eventOccurrenceStaffMembersCatalog } from "./event-occurrence-staff-members.ts"
import { eventOccurrencesCatalog } from "./event-occurrences.ts"
import { invoicesCatalog } from "./invoices.ts"
import { invoiceItemsCatalog } from "./invoice-items.ts"
import { invoiceItemTransactionsCatalog } from "./invoice-item-transactions.ts"
import { paysCatalog } from "./pays.ts"
import { staffMembersCatalog } from "./staff-members.ts"
import { monthlyBusinessMetricsCatalog } from "./monthly-business-metrics.ts"
import { personPlansCatalog } from "./person-plans.ts"
import { transactionsCatalog } from "./transactions.ts"
import type { ResourceCatalog } from "./types.ts"

/** The report resources: the spec's ten in its order, then the public API's two beyond them. */
export const REPORT_RESOURCES = [
  "clients",
  "enrollments",
  "event_occurrence_staff_members",
  "event_occurrences",
  "invoice_items",
  "invoice_item_transactions",
  "invoices",
  "monthly_business_metrics",
  "pays",
  "person_plans",
  "staff_members",
  "transactions"
] as const
export type ReportResource = (typeof REPORT_RESOURCES)[number]

/** The catalog of every resource: all twelve answer queries. */
const catalogs: Record<ReportResource, ResourceCatalog> = {
  clients: clientsCatalog,
  enrollments: enrollmentsCatalog,
  event_occurrence_staff_members: eventOccurrenceStaffMembersCatalog,
  event_occurrences: eventOccurrencesCatalog,
  invoice_items: invoiceItemsCatalog,
  invoice_item_transactions: invoiceItemTransactionsCatalog,
  invoices: invoicesCatalog,
  monthly_business_metrics: monthlyBusinessMetricsCatalog,
  pays: paysCatalog,
  person_plans: personPlansCatalog,
  staff_members: staffMembersCatalog,
  transactions: transactionsCatalog
}

export const isReportResource = (name: string): name is ReportResource => Object.hasOwn(catalogs, name)

/** The catalog of a resource name from a URL, or undefined when the spec has no such resource. */
export const resourceCatalog = (name: string): ResourceCatalog | undefined => (isReportResource(name) ? catalogs[name] : undefined)
