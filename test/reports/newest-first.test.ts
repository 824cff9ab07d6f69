import type { DuckDBConnection } from "@duckdb/node-api"
import { Schema } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { invoiceItemsCatalog } from "../../reports/catalog/invoice-items.ts"
import { invoicesCatalog } from "../../reports/catalog/invoices.ts"
import { compile } from "../../reports/compile.ts"
import { QueryAttributes } from "../../reports/grammar.ts"
import { normalize } from "../../reports/normalize.ts"
import { readPage } from "../../reports/run.ts"
import { StoreConnection } from "../../reports/store-connection.ts"
import { NEWEST_ROWS, newestRowsStatements } from "../../reports/sync/newest-rows.ts"
import { TABLES } from "../../reports/sync/store-tables.ts"
import { invoiceItemsTable } from "../../reports/sync/tables/invoice-items.ts"
import { invoicesTable } from "../../reports/sync/tables/invoices.ts"
import { memoryTables, NO_CUSTOM_FIELDS, NOW } from "./support.ts"

/**
 * A first page sorted newest first is read from the store's newest rows of each business
 * (compile.ts, `newestFirst`; reports/sync/newest-rows.ts), for one business in the order they
 * are stored. It must be the very page the plain statement reads: with ties at the bound, rows
 * without the date, filters that keep few of the newest rows (the page then falls back to all
 * rows), more sort keys, a scope of several businesses, and rows appended after the build (as
 * an incremental refresh appends them) once the newest rows are built again.
 */

let memory: Awaited<ReturnType<typeof memoryTables>>
let connection: DuckDBConnection

// Business 1 has three times NEWEST_ROWS invoices, closed on few distinct minutes (many ties),
// a tenth of them open (no closed_at); one payer in 500 is "Rare". Business 2 has 300, newer.
// Rows are inserted in no particular order: only the newest rows' table is ordered.
beforeAll(async () => {
  memory = await memoryTables(invoicesTable)
  connection = memory.connection
  const rows = (business: number, count: number, newestMinute: string) => `
    SELECT ${business} AS business_id, i AS invoice_id, '${business}-' || i AS key, 'UTC' AS time_zone,
           CAST(i AS VARCHAR) AS invoice_number,
           CASE WHEN i % 500 = 7 THEN 'Rare Payer' ELSE 'Payer ' || (i % 40) END AS invoice_payer_name,
           CASE WHEN i % 10 = 0 THEN 'open' ELSE 'closed' END AS invoice_state,
           CASE WHEN i % 10 = 0 THEN NULL ELSE TIMESTAMPTZ '${newestMinute}' - to_minutes(CAST(i // 7 AS BIGINT)) END AS closed_at,
           i * 100 AS expected_amount
    FROM range(${count}) t(i) ORDER BY hash(i)`
  await connection.run(`INSERT INTO invoices BY NAME ${rows(1, NEWEST_ROWS * 3, "2024-06-01 00:00:00+00")}`)
  await connection.run(`INSERT INTO invoices BY NAME ${rows(2, 300, "2024-06-10 00:00:00+00")}`)
  await buildNewestRows()
})

const buildNewestRows = async () => {
  for (const sql of newestRowsStatements([invoicesTable])) await connection.run(sql)
}

afterAll(() => memory?.close())

const decode = Schema.decodeUnknownSync(QueryAttributes)

/** The page through readPage, and the plain page's rows, for the same query. */
const both = async (attributes: unknown, scope: ReadonlyArray<number>) => {
  const normalized = normalize(decode(attributes), invoicesCatalog, NO_CUSTOM_FIELDS)
  if (normalized._tag === "Invalid") throw new Error(JSON.stringify(normalized.problems))
  const compiled = compile(normalized.query, { scope, now: NOW })
  const store = new StoreConnection(connection, 0)
  return {
    compiled,
    read: (await readPage(store, normalized.query, compiled)).map((row) => row.map(String)),
    plain: (await store.execute(compiled.page)).map((row) => row.map(String)),
    bound: compiled.newestFirst ? await store.remember(compiled.newestFirst.bound) : null
  }
}

const newestFirst = (filter?: unknown, limit = 100) => ({
  fields: ["invoice_number", "invoice_payer_name", "closed_at"],
  sort: ["closed_at-"],
  page: { limit },
  ...(filter === undefined ? {} : { filter })
})

describe("first pages newest first", () => {
  it("reads the page from the newest rows, and it is the plain page", async () => {
    const { compiled, read, plain, bound } = await both(newestFirst(["eq", "invoice_state", "closed"]), [1])
    expect(compiled.newestFirst?.page.sql).toContain("FROM invoices_newest r WHERE")
    expect(compiled.newestFirst?.page.sql).toContain("r.closed_at >= CAST($bound AS TIMESTAMPTZ)")
    // One business, sorted by the date alone: the rows come in the order they are stored.
    expect(compiled.newestFirst?.page.sql).not.toContain("ORDER BY")
    // The bound is the NEWEST_ROWS-th newest closed_at: older than the page's last row.
    expect(bound).not.toBeNull()
    expect(read).toHaveLength(101)
    expect(read).toEqual(plain)
  })

  it("keeps every row tied at the bound, in key order", async () => {
    // Seven invoices share each minute: pages of many sizes end inside a run of ties.
    for (const limit of [1, 6, 7, 50, 333, 500]) {
      const { read, plain } = await both(newestFirst(undefined, limit), [1])
      expect(read).toEqual(plain)
    }
  })

  it("falls back to all rows when the newest ones do not fill the page", async () => {
    // One invoice in 500 is "Rare Payer": a handful among the newest NEWEST_ROWS rows, seven in all.
    const { read, plain } = await both(newestFirst(["eq", "invoice_payer_name", "Rare Payer"]), [1])
    expect(plain.length).toBeGreaterThan(6)
    expect(read).toEqual(plain)
  })

  it("puts rows without the date last, as the plain page does", async () => {
    const { read, plain } = await both(newestFirst(["eq", "invoice_state", "open"]), [1])
    expect(read.every((row) => row[2] === "null")).toBe(true)
    expect(read).toEqual(plain)
  })

  it("takes the bound over every business of the scope, and sorts their rows", async () => {
    const { compiled, read, plain } = await both(newestFirst(undefined, 400), [1, 2])
    expect(compiled.newestFirst?.page.sql).toContain("ORDER BY")
    expect(read).toHaveLength(401)
    expect(read).toEqual(plain)
  })

  it("sorts the newest rows by further sort keys", async () => {
    const attributes = { ...newestFirst(["eq", "invoice_state", "closed"], 60), sort: ["closed_at-", "invoice_payer_name-"] }
    const { compiled, read, plain } = await both(attributes, [1])
    expect(compiled.newestFirst?.page.sql).toContain("ORDER BY")
    expect(read).toHaveLength(61)
    expect(read).toEqual(plain)
  })

  it("reads rows appended after the build once the newest rows are built again", async () => {
    // As an incremental refresh does: a changed invoice is deleted and inserted at the table's end.
    await connection.run("BEGIN TRANSACTION")
    await connection.run("DELETE FROM invoices WHERE business_id = 1 AND invoice_id IN (1, 2, 3)")
    await connection.run(`INSERT INTO invoices BY NAME
      SELECT 1 AS business_id, i AS invoice_id, '1-' || i AS key, 'UTC' AS time_zone, CAST(i AS VARCHAR) AS invoice_number,
             'Late Payer' AS invoice_payer_name, 'closed' AS invoice_state,
             TIMESTAMPTZ '2024-06-01 00:00:00+00' + to_minutes(CAST(i AS BIGINT)) AS closed_at, 0 AS expected_amount
      FROM range(1, 4) t(i)`)
    await buildNewestRows()
    const { read, plain } = await both(newestFirst(["eq", "invoice_state", "closed"], 5), [1])
    expect(read.slice(0, 3).map((row) => row[1])).toEqual(["Late Payer", "Late Payer", "Late Payer"])
    expect(read).toEqual(plain)
    await connection.run("ROLLBACK")
    await buildNewestRows()
  })

  it("has, for each resource read this way, a table of newest rows stored in its pages' order", () => {
    for (const catalog of [invoicesCatalog, invoiceItemsCatalog]) {
      const table = TABLES.find((t) => t.name === catalog.source)!
      expect(catalog.newestFirst).toEqual({ sql: `r.${table.newestFirstBy}`, source: `${table.name}_newest` })
      // The stored order after the date (newest-rows.ts) is the key order that breaks the page's ties.
      expect(catalog.keyOrder).toEqual(["r.business_id", `r.${table.newestRowsBy}`])
    }
    expect(newestRowsStatements(TABLES)).toHaveLength(2)
    expect(invoiceItemsTable.newestRowsBy).toBe("invoice_item_id")
  })

  it("is used for a first page sorted newest first only", async () => {
    const compiledOf = (attributes: unknown) => {
      const normalized = normalize(decode(attributes), invoicesCatalog, NO_CUSTOM_FIELDS)
      if (normalized._tag === "Invalid") throw new Error("invalid")
      return compile(normalized.query, { scope: [1], now: NOW })
    }
    expect(compiledOf({ fields: ["invoice_number"], sort: ["closed_at+"] }).newestFirst).toBeUndefined()
    expect(compiledOf({ fields: ["invoice_number"], sort: ["issued_at-"] }).newestFirst).toBeUndefined()
    expect(compiledOf({ fields: ["invoice_number"], sort: ["closed_at-"], page: { starting_after: "1-5" } }).newestFirst).toBeUndefined()
    expect(compiledOf({ fields: ["invoice_count"], group: "invoice_state", sort: ["invoice_count-"] }).newestFirst).toBeUndefined()
  })
})
