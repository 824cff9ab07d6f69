import type { DuckDBConnection } from "@duckdb/node-api"
import * as fs from "node:fs"
import * as path from "node:path"
import type pg from "pg"
import { copyToFile, inSnapshot, literal, OVERLAP_MS, readCsv, removeFile, withDuckDB } from "./copy.ts"
import { type CurrentGeneration, nextGeneration, publish, removeOldGenerations, storeFile } from "./generations.ts"
import { TABLES } from "./store-tables.ts"
import type { SyncResult } from "./summary.ts"
import { changedPeopleSql, clientsTable } from "./tables/clients.ts"
import { customFieldsTable } from "./tables/custom-fields.ts"
import { enrollmentsTable } from "./tables/enrollments.ts"
import { changedPlansSql, changedProductHoldersSql, turnedDayHoldersSql } from "./tables/plans.ts"
import { eventOccurrenceStaffMembersTable } from "./tables/event-occurrence-staff-members.ts"
import { changedOccurrencesSql, eventOccurrencesTable } from "./tables/event-occurrences.ts"
import { changedPersonPlanSourcesSql, personPlansChangedWhere, personPlansScopeSql } from "./tables/person-plan-changes.ts"
import { personPlansTable } from "./tables/person-plans.ts"
import { changedInvoicesSql, invoicesTable } from "./tables/invoices.ts"
import { invoiceItemsTable } from "./tables/invoice-items.ts"
import { invoiceItemTransactionsTable } from "./tables/invoice-item-transactions.ts"
import { transactionsTable } from "./tables/transactions.ts"
import { changedPaysSql, paysTable } from "./tables/pays.ts"
import { staffMembersTable } from "./tables/staff-members.ts"
import { metricsBusinessesTable, metricsStaffTable } from "./tables/business-facts.ts"
import { refreshMonthlyMetricsSql } from "./monthly-metrics.ts"
import { newestRowsStatements } from "./newest-rows.ts"

/** The store tables a refresh replaces rows of, by name. */
const occurrences = eventOccurrencesTable.name
const staff = eventOccurrenceStaffMembersTable.name
const enrollments = enrollmentsTable.name
const invoices = invoicesTable.name
const pays = paysTable.name
const staffMembers = staffMembersTable.name
const personPlans = personPlansTable.name
// The changed invoices: all their item and transaction rows are replaced (a canceled item or
// an invoice's last item gone leaves no fresh row to replace its old one by key).
const items = invoiceItemsTable.name
const transactions = invoiceItemTransactionsTable.name
// The transactions resource (one row per payment or refund): replaced per changed invoice too.
const transactionRows = transactionsTable.name
const changedInvoice = "(i.business_id, i.id) in (select business_id, id from report_changed_invoices)"
// The people whose client (and staff) rows may have changed (`p` is the person).
const changedPerson =
  "(p.business_id, p.id) in (select business_id, id from report_changed_people union select business_id, id from report_changed_clients)"

// Rows are replaced per changed person or occurrence: an occurrence's staff and enrollment
// rows all go together, so a staff member taken off it, or a deleted visit, disappears.
const inChangedOccurrences = (alias: string) =>
  `EXISTS (SELECT 1 FROM fresh_${occurrences} f WHERE f.business_id = ${alias}.business_id AND f.event_occurrence_id = ${alias}.event_occurrence_id)`
const inPersonPlansScope = (alias: string) =>
  `EXISTS (SELECT 1 FROM person_plans_scope s WHERE s.business_id = ${alias}.business_id AND (s.plan_id = ${alias}.plan_id OR s.person_id = ${alias}.person_id))`
const inInvoiceScope = (alias: string) =>
  `EXISTS (SELECT 1 FROM invoice_scope s WHERE s.business_id = ${alias}.business_id AND s.invoice_id = ${alias}.invoice_id)`

/** Where a refresh writes what it read: a CSV file per store table, and the two scopes'. */
interface ChangeFiles {
  readonly csv: Readonly<Record<string, string>>
  /** The (business, plan) and (business, person) pairs whose person_plans rows are re-read. */
  readonly scopeCsv: string
  readonly invoiceScopeCsv: string
}

const loadFresh = async (connection: DuckDBConnection, temporary: boolean, { csv, scopeCsv, invoiceScopeCsv }: ChangeFiles) => {
  for (const table of TABLES) {
    await connection.run(`CREATE ${temporary ? "TEMPORARY " : ""}TABLE fresh_${table.name} AS ${readCsv(table.columns, csv[table.name]!)}`)
  }
  await connection.run(`CREATE ${temporary ? "TEMPORARY " : ""}TABLE person_plans_scope AS ${readCsv(PERSON_PLANS_SCOPE_COLUMNS, scopeCsv)}`)
  await connection.run(`CREATE ${temporary ? "TEMPORARY " : ""}TABLE invoice_scope AS ${readCsv(INVOICE_SCOPE_COLUMNS, invoiceScopeCsv)}`)
}

/** In one snapshot: what changed since `since`, then the rows it touches, table by table, into the files. */
const readChanges = (client: pg.Client, since: Date, { csv, scopeCsv, invoiceScopeCsv }: ChangeFiles) =>
  inSnapshot(client, async () => {
    await client.query("create temporary table report_changed_plans (business_id bigint, id bigint) on commit drop")
    await client.query(`insert into report_changed_plans ${changedPlansSql}`, [since])
    // Plans whose person_plans rows alone may have changed (terms, invoices): not the holders' enrollments.
    await client.query("create temporary table report_changed_person_plans (business_id bigint, id bigint) on commit drop")
    await client.query(`insert into report_changed_person_plans ${changedPersonPlanSourcesSql}`, [since])
    await client.query("create temporary table report_changed_people (business_id bigint, id bigint) on commit drop")
    await client.query(`insert into report_changed_people ${changedPeopleSql}`, [since])
    // People whose client row alone may have changed (their enrollments did not): holders of
    // plans whose product was edited, or whose plans' standing turned with the day.
    await client.query("create temporary table report_changed_clients (business_id bigint, id bigint) on commit drop")
    await client.query(`insert into report_changed_clients ${changedProductHoldersSql} union ${turnedDayHoldersSql}`, [since])
    await client.query("create temporary table report_changed_occurrences (business_id bigint, id bigint) on commit drop")
    await client.query(`insert into report_changed_occurrences ${changedOccurrencesSql}`, [since])
    const changedOccurrence = "(o.business_id, o.id) in (select business_id, id from report_changed_occurrences)"
    await client.query("create temporary table report_changed_invoices (business_id bigint, id bigint) on commit drop")
    await client.query(`insert into report_changed_invoices ${changedInvoicesSql}`, [since])
    await client.query("create temporary table report_changed_pays (business_id bigint, id bigint) on commit drop")
    await client.query(`insert into report_changed_pays ${changedPaysSql}`, [since])
    return {
      clients: await copyToFile(client, clientsTable.select(changedPerson), csv.clients!),
      custom_fields: await copyToFile(client, customFieldsTable.select("true"), csv.custom_fields!),
      // Small, read whole (as custom_fields): what monthly_business_metrics alone needs.
      metrics_businesses: await copyToFile(client, metricsBusinessesTable.select("true"), csv.metrics_businesses!),
      metrics_staff: await copyToFile(client, metricsStaffTable.select("true"), csv.metrics_staff!),
      [occurrences]: await copyToFile(client, eventOccurrencesTable.select(changedOccurrence), csv[occurrences]!),
      [staff]: await copyToFile(client, eventOccurrenceStaffMembersTable.select(changedOccurrence), csv[staff]!),
      [enrollments]: await copyToFile(client, enrollmentsTable.select(changedOccurrence), csv[enrollments]!),
      [personPlans]: await copyToFile(client, personPlansTable.select(personPlansChangedWhere), csv[personPlans]!),
      scope: await copyToFile(client, personPlansScopeSql, scopeCsv),
      [invoices]: await copyToFile(client, invoicesTable.select(changedInvoice), csv[invoices]!),
      [items]: await copyToFile(client, invoiceItemsTable.select(changedInvoice), csv[items]!),
      [transactions]: await copyToFile(client, invoiceItemTransactionsTable.select(changedInvoice), csv[transactions]!),
      [transactionRows]: await copyToFile(client, transactionsTable.select(changedInvoice), csv[transactionRows]!),
      invoiceScope: await copyToFile(client, INVOICE_SCOPE_SQL, invoiceScopeCsv),
      [pays]: await copyToFile(client, paysTable.select("(y.business_id, y.id) in (select business_id, id from report_changed_pays)"), csv[pays]!),
      // Staff rows are re-read with the changed people (a staff record's change is among them).
      [staffMembers]: await copyToFile(client, staffMembersTable.select(changedPerson), csv[staffMembers]!)
    }
  })

/** Whether the rows read differ from the current generation's (most minutes change nothing). */
const storeDiffers = (dir: string, current: CurrentGeneration, files: ChangeFiles) =>
  withDuckDB(":memory:", async (connection) => {
    await connection.run(`ATTACH ${literal(path.join(dir, current.file))} AS cur (READ_ONLY)`)
    await loadFresh(connection, false, files)
    const reader = await connection.runAndReadAll(`SELECT
        (SELECT count(*) FROM (SELECT * FROM fresh_clients EXCEPT SELECT c.* FROM cur.clients c SEMI JOIN fresh_clients f ON f.key = c.key))
      + (SELECT count(*) FROM (SELECT * FROM fresh_custom_fields EXCEPT SELECT * FROM cur.custom_fields))
      + (SELECT count(*) FROM (SELECT * FROM cur.custom_fields EXCEPT SELECT * FROM fresh_custom_fields))${["metrics_businesses", "metrics_staff"]
        .map((t) => `
      + (SELECT count(*) FROM (SELECT * FROM fresh_${t} EXCEPT SELECT * FROM cur.${t}))
      + (SELECT count(*) FROM (SELECT * FROM cur.${t} EXCEPT SELECT * FROM fresh_${t}))`)
        .join("")}
      + (SELECT count(*) FROM (SELECT * FROM fresh_${occurrences}
                               EXCEPT SELECT c.* FROM cur.${occurrences} c SEMI JOIN fresh_${occurrences} f ON f.key = c.key))
      + (SELECT count(*) FROM (SELECT * FROM fresh_${staff} EXCEPT SELECT * FROM cur.${staff} c WHERE ${inChangedOccurrences("c")}))
      + (SELECT count(*) FROM (SELECT * FROM cur.${staff} c WHERE ${inChangedOccurrences("c")} EXCEPT SELECT * FROM fresh_${staff}))
      + (SELECT count(*) FROM (SELECT * FROM fresh_${enrollments} EXCEPT SELECT * FROM cur.${enrollments} c WHERE ${inChangedOccurrences("c")}))
      + (SELECT count(*) FROM (SELECT * FROM cur.${enrollments} c WHERE ${inChangedOccurrences("c")} EXCEPT SELECT * FROM fresh_${enrollments}))
      + (SELECT count(*) FROM (SELECT * FROM fresh_${personPlans} EXCEPT SELECT * FROM cur.${personPlans} c WHERE ${inPersonPlansScope("c")}))
      + (SELECT count(*) FROM (SELECT * FROM cur.${personPlans} c WHERE ${inPersonPlansScope("c")} EXCEPT SELECT * FROM fresh_${personPlans}))
      + (SELECT count(*) FROM (SELECT * FROM fresh_${invoices} EXCEPT SELECT * FROM cur.${invoices} c WHERE ${inInvoiceScope("c")}))
      + (SELECT count(*) FROM (SELECT * FROM cur.${invoices} c WHERE ${inInvoiceScope("c")} EXCEPT SELECT * FROM fresh_${invoices}))
      + (SELECT count(*) FROM (SELECT * FROM fresh_${items} EXCEPT SELECT * FROM cur.${items} c WHERE ${inInvoiceScope("c")}))
      + (SELECT count(*) FROM (SELECT * FROM cur.${items} c WHERE ${inInvoiceScope("c")} EXCEPT SELECT * FROM fresh_${items}))
      + (SELECT count(*) FROM (SELECT * FROM fresh_${transactions} EXCEPT SELECT * FROM cur.${transactions} c WHERE ${inInvoiceScope("c")}))
      + (SELECT count(*) FROM (SELECT * FROM cur.${transactions} c WHERE ${inInvoiceScope("c")} EXCEPT SELECT * FROM fresh_${transactions}))
      + (SELECT count(*) FROM (SELECT * FROM fresh_${transactionRows} EXCEPT SELECT * FROM cur.${transactionRows} c WHERE ${inInvoiceScope("c")}))
      + (SELECT count(*) FROM (SELECT * FROM cur.${transactionRows} c WHERE ${inInvoiceScope("c")} EXCEPT SELECT * FROM fresh_${transactionRows}))
      + (SELECT count(*) FROM (SELECT * FROM fresh_${pays} EXCEPT SELECT c.* FROM cur.${pays} c SEMI JOIN fresh_${pays} f ON f.key = c.key))
      + (SELECT count(*) FROM (SELECT * FROM fresh_${staffMembers} EXCEPT SELECT c.* FROM cur.${staffMembers} c SEMI JOIN fresh_${staffMembers} f ON f.key = c.key))`)
    return Number(reader.getRows()[0]?.[0] ?? 0) > 0
  })

/** Replaces the changed rows in a new generation's file, in one transaction (fresh rows loaded). */
const replaceChanged = async (connection: DuckDBConnection) => {
  // The businesses whose monthly metrics may change: those with rows refreshed, plans in
  // person_plans' scope, or staff and business facts that differ (these two are read whole).
  await connection.run(`CREATE TEMPORARY TABLE metrics_scope AS
    ${REFRESHED_BY_KEY.map((t) => `SELECT business_id FROM fresh_${t}`).join(" UNION ")}
    UNION SELECT business_id FROM person_plans_scope
    UNION SELECT business_id FROM invoice_scope
    ${["metrics_businesses", "metrics_staff"]
      .map((t) => `UNION SELECT business_id FROM (SELECT * FROM fresh_${t} EXCEPT SELECT * FROM ${t})
    UNION SELECT business_id FROM (SELECT * FROM ${t} EXCEPT SELECT * FROM fresh_${t})`)
      .join(" ")}`)
  await connection.run("DELETE FROM clients WHERE key IN (SELECT key FROM fresh_clients)")
  await connection.run("INSERT INTO clients SELECT * FROM fresh_clients")
  await connection.run("DELETE FROM custom_fields")
  await connection.run("INSERT INTO custom_fields SELECT * FROM fresh_custom_fields")
  await connection.run(`DELETE FROM ${occurrences} WHERE key IN (SELECT key FROM fresh_${occurrences})`)
  await connection.run(`INSERT INTO ${occurrences} SELECT * FROM fresh_${occurrences}`)
  await connection.run(`DELETE FROM ${staff} WHERE ${inChangedOccurrences(staff)}`)
  await connection.run(`INSERT INTO ${staff} SELECT * FROM fresh_${staff}`)
  await connection.run(`DELETE FROM ${enrollments} WHERE ${inChangedOccurrences(enrollments)}`)
  await connection.run(`INSERT INTO ${enrollments} SELECT * FROM fresh_${enrollments}`)
  await connection.run(`DELETE FROM ${personPlans} WHERE ${inPersonPlansScope(personPlans)}`)
  await connection.run(`INSERT INTO ${personPlans} SELECT * FROM fresh_${personPlans}`)
  // A changed invoice's row is replaced; one deleted with its uncompleted booking leaves none.
  await connection.run(`DELETE FROM ${invoices} WHERE ${inInvoiceScope(invoices)}`)
  await connection.run(`INSERT INTO ${invoices} SELECT * FROM fresh_${invoices}`)
  await connection.run(`DELETE FROM ${items} WHERE ${inInvoiceScope(items)}`)
  await connection.run(`INSERT INTO ${items} SELECT * FROM fresh_${items}`)
  await connection.run(`DELETE FROM ${transactions} WHERE ${inInvoiceScope(transactions)}`)
  await connection.run(`INSERT INTO ${transactions} SELECT * FROM fresh_${transactions}`)
  await connection.run(`DELETE FROM ${transactionRows} WHERE ${inInvoiceScope(transactionRows)}`)
  await connection.run(`INSERT INTO ${transactionRows} SELECT * FROM fresh_${transactionRows}`)
  // Pays are never deleted: a changed one is replaced by key.
  await connection.run(`DELETE FROM ${pays} WHERE key IN (SELECT key FROM fresh_${pays})`)
  await connection.run(`INSERT INTO ${pays} SELECT * FROM fresh_${pays}`)
  // Staff rows are replaced by key, as clients'.
  await connection.run(`DELETE FROM ${staffMembers} WHERE key IN (SELECT key FROM fresh_${staffMembers})`)
  await connection.run(`INSERT INTO ${staffMembers} SELECT * FROM fresh_${staffMembers}`)
  for (const t of ["metrics_businesses", "metrics_staff"]) {
    await connection.run(`DELETE FROM ${t}`)
    await connection.run(`INSERT INTO ${t} SELECT * FROM fresh_${t}`)
  }
  // Their months, recomputed from the refreshed tables (reports/sync/monthly-metrics.ts).
  for (const sql of refreshMonthlyMetricsSql(new Date().toISOString(), "business_id IN (SELECT business_id FROM metrics_scope)")) {
    await connection.run(sql)
  }
  // The newest rows again: the refreshed rows were appended out of their order (newest-rows.ts).
  for (const sql of newestRowsStatements(TABLES)) await connection.run(sql)
}

/**
 * The incremental refresh: the rows that may have changed since the current generation's
 * snapshot are read again and compared with the store's; only when they differ is the current
 * file copied to a new generation, the rows replaced there, and it published.
 */
export const incrementalRefresh = async (client: pg.Client, dir: string, current: CurrentGeneration): Promise<SyncResult> => {
  const since = new Date(Date.parse(current.synced_at) - OVERLAP_MS)
  const files: ChangeFiles = {
    csv: Object.fromEntries(TABLES.map((table) => [table.name, path.join(dir, `${table.name}-${process.pid}.csv`)])),
    scopeCsv: path.join(dir, `person_plans_scope-${process.pid}.csv`),
    invoiceScopeCsv: path.join(dir, `invoice_scope-${process.pid}.csv`)
  }
  try {
    const { result: changed, at } = await readChanges(client, since, files)
    // Compare with the store first: most minutes change nothing, and then no copy is made.
    if (!(await storeDiffers(dir, current, files))) {
      // Only the watermark moves; readers keep the file they have.
      publish(dir, { ...current, synced_at: at })
      return {
        outcome: "unchanged",
        generation: current.generation,
        rows: { clients: 0, [occurrences]: 0, [staff]: 0, [enrollments]: 0, [personPlans]: 0, [invoices]: 0, [items]: 0, [transactions]: 0, [transactionRows]: 0, [pays]: 0, [staffMembers]: 0 },
        synced_at: at
      }
    }
    const generation = nextGeneration(dir)
    const target = path.join(dir, storeFile(generation))
    try {
      // A published generation is never written again: readers may hold it open.
      fs.copyFileSync(path.join(dir, current.file), target)
      await withDuckDB(target, async (connection) => {
        await connection.run("BEGIN TRANSACTION")
        await loadFresh(connection, true, files)
        await replaceChanged(connection)
        await connection.run("COMMIT")
        await connection.run("CHECKPOINT")
      })
    } catch (error) {
      removeFile(target)
      throw error
    }
    publish(dir, { ...current, generation, file: storeFile(generation), synced_at: at, mode: "incremental" })
    removeOldGenerations(dir, generation)
    const { custom_fields: _, scope: _scope, invoiceScope: _invoiceScope, metrics_businesses: _b, metrics_staff: _s, ...rows } = changed
    return { outcome: "incremental", generation, rows, synced_at: at }
  } finally {
    for (const file of Object.values(files.csv)) removeFile(file)
    removeFile(files.scopeCsv)
    removeFile(files.invoiceScopeCsv)
  }
}

/** The tables whose refreshed rows tell a business's monthly metrics may have changed. */
const REFRESHED_BY_KEY = ["clients", "event_occurrences", "event_occurrence_staff_members", "enrollments", "person_plans", "invoices"]

/** The CSV columns of person_plans' refresh scope (personPlansScopeSql). */
const PERSON_PLANS_SCOPE_COLUMNS = [["business_id", "BIGINT"], ["plan_id", "BIGINT"], ["person_id", "BIGINT"]] as const

/** The invoice tables' refresh scope (the changed invoices), and its CSV columns. */
const INVOICE_SCOPE_SQL = "select business_id, id as invoice_id from report_changed_invoices"
const INVOICE_SCOPE_COLUMNS = [["business_id", "BIGINT"], ["invoice_id", "BIGINT"]] as const
