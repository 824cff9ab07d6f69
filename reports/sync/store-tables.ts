import { createHash } from "node:crypto"
import { clientsTable } from "./tables/clients.ts"
import { customFieldsTable } from "./tables/custom-fields.ts"
import { enrollmentsTable } from "./tables/enrollments.ts"
import { eventOccurrenceStaffMembersTable } from "./tables/event-occurrence-staff-members.ts"
import { eventOccurrencesTable } from "./tables/event-occurrences.ts"
import { personPlansTable } from "./tables/person-plans.ts"
import { invoicesTable } from "./tables/invoices.ts"
import { invoiceItemsTable } from "./tables/invoice-items.ts"
import { invoiceItemTransactionsTable } from "./tables/invoice-item-transactions.ts"
import { paysTable } from "./tables/pays.ts"
import { transactionsTable } from "./tables/transactions.ts"
import { staffMembersTable } from "./tables/staff-members.ts"
import { metricsBusinessesTable, metricsStaffTable } from "./tables/business-facts.ts"
import { createMonthlyMetricsSql } from "./monthly-metrics.ts"
import { newestRowsStatements } from "./newest-rows.ts"
import { createTableSql, type StoreTable } from "./tables/types.ts"

/** The store's tables, in the order a full rebuild creates and loads them. */
export const TABLES: ReadonlyArray<StoreTable> = [
  clientsTable,
  customFieldsTable,
  eventOccurrencesTable,
  eventOccurrenceStaffMembersTable,
  enrollmentsTable,
  personPlansTable,
  invoicesTable,
  invoiceItemsTable,
  invoiceItemTransactionsTable,
  paysTable,
  transactionsTable,
  staffMembersTable,
  metricsBusinessesTable,
  metricsStaffTable
]

const digest = (parts: ReadonlyArray<string>) => createHash("sha256").update(parts.join(";")).digest("hex").slice(0, 16)

/** Changes when a release changes the store's tables: the next sync then rebuilds in full. */
export const STORE_SCHEMA = digest([...TABLES.map(createTableSql), createMonthlyMetricsSql(""), ...newestRowsStatements(TABLES)])

/**
 * Changes when a release changes how rows are read (a field once a constant now read from
 * plans, say): the next sync rebuilds in full, while readers keep the store they have.
 */
export const STORE_ROWS = digest(TABLES.map((table) => table.select("true")))
