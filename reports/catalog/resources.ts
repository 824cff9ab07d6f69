import { clientsCatalog } from "./clients.ts"
import { enrollmentsCatalog } from "./enrollments.ts"
import { eventOccurrenceStaffMembersCatalog } from "./event-occurrence-staff-members.ts"
import { eventOccurrencesCatalog } from "./event-occurrences.ts"
import { invoicesCatalog } from "./invoices.ts"
import { invoiceItemsCatalog } from "./invoice-items.ts"
import { invoiceItemTransactionsCatalog } from "./invoice-item-transactions.ts"
import { paysCatalog } from "./pays.ts"
import { monthlyBusinessMetricsCatalog } from "./monthly-business-metrics.ts"
import { personPlansCatalog } from "./person-plans.ts"
import type { ResourceCatalog } from "./types.ts"

/** The ten report resources of the spec, in its order. */
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
  "person_plans"
] as const
export type ReportResource = (typeof REPORT_RESOURCES)[number]

/**
 * A resource answers queries once the Core API holds the data it reports on. Until then it
 * answers a clear 422 rather than empty rows that would read as "no activity". Clients, event
 * occurrences, their staff members and enrollments read people, the schedule, visits and
 * waitlists; the six billing resources wait for billing.
 */
export type ResourceStatus =
  | { readonly _tag: "Available"; readonly catalog: ResourceCatalog }
  | { readonly _tag: "Pending"; readonly waitsFor: "billing" }

const statuses: Record<ReportResource, ResourceStatus> = {
  clients: { _tag: "Available", catalog: clientsCatalog },
  enrollments: { _tag: "Available", catalog: enrollmentsCatalog },
  event_occurrence_staff_members: { _tag: "Available", catalog: eventOccurrenceStaffMembersCatalog },
  event_occurrences: { _tag: "Available", catalog: eventOccurrencesCatalog },
  invoice_items: { _tag: "Available", catalog: invoiceItemsCatalog },
  invoice_item_transactions: { _tag: "Available", catalog: invoiceItemTransactionsCatalog },
  invoices: { _tag: "Available", catalog: invoicesCatalog },
  monthly_business_metrics: { _tag: "Available", catalog: monthlyBusinessMetricsCatalog },
  pays: { _tag: "Available", catalog: paysCatalog },
  person_plans: { _tag: "Available", catalog: personPlansCatalog }
}

export const isReportResource = (name: string): name is ReportResource => Object.hasOwn(statuses, name)

/** The status of a resource name from a URL, or undefined when the spec has no such resource. */
export const resourceStatus = (name: string): ResourceStatus | undefined => (isReportResource(name) ? statuses[name] : undefined)
