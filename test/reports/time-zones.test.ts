import type { DuckDBConnection } from "@duckdb/node-api"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { invoicesCatalog } from "../../reports/catalog/invoices.ts"
import { invoicesTable } from "../../reports/sync/tables/invoices.ts"
import { memoryTables, runReport } from "./support.ts"

/**
 * Datetimes are written in their row's zone. Given the caller's business's zone, a detail row
 * in that zone comes back from DuckDB without it (compile.ts, `timeZone`), and the runner
 * writes its datetimes in the business's zone; a row of another zone (a location's) still
 * carries its own. The page must be the one read with every row's zone.
 */

let store: Awaited<ReturnType<typeof memoryTables>>
let connection: DuckDBConnection

beforeAll(async () => {
  store = await memoryTables(invoicesTable)
  connection = store.connection
  // Invoices 1 and 3 are in the business's zone; 2 was closed at a location in Sydney.
  await connection.run(`INSERT INTO invoices BY NAME
    SELECT 1 AS business_id, i AS invoice_id, '1-' || i AS key, CAST(i AS VARCHAR) AS invoice_number,
           CASE WHEN i = 2 THEN 'Australia/Sydney' ELSE 'America/Los_Angeles' END AS time_zone,
           'closed' AS invoice_state, TIMESTAMPTZ '2024-07-01 12:00:00+00' - to_days(CAST(i * 100 AS INTEGER)) AS closed_at
    FROM range(1, 4) t(i)`)
})

afterAll(() => store?.close())

const attributes = { fields: ["invoice_number", "closed_at"], sort: ["invoice_number+"] }

/** The page and its statements, the caller's business in `timeZone` when given. */
const ran = async (timeZone?: string) => {
  const result = await runReport(connection, attributes, { catalog: invoicesCatalog, ...(timeZone === undefined ? {} : { timeZone }) })
  if ("errors" in result) throw new Error(`unexpected problems: ${result.errors?.join("; ")}`)
  return result
}

describe("a detail row's zone", () => {
  it("is left out when it is the business's, and its datetimes are written in the business's zone", async () => {
    const result = await ran("America/Los_Angeles")
    expect(result.compiled.page.sql).toContain("nullif(r.time_zone, CAST($p2 AS VARCHAR)) AS tz")
    expect(result.page.rows).toEqual([
      ["1", "2024-03-23T05:00:00-07:00"],
      ["2", "2023-12-14T23:00:00+11:00"],
      ["3", "2023-09-05T05:00:00-07:00"]
    ])
    const plain = await ran()
    expect(plain.compiled.page.sql).not.toContain("nullif")
    expect(plain.page.rows).toEqual(result.page.rows)
  })

  it("is each row's own when the business's zone is another (a store older than a zone change)", async () => {
    const result = await ran("Europe/Paris")
    expect(result.page.rows.map((row) => row[1])).toEqual(["2024-03-23T05:00:00-07:00", "2023-12-14T23:00:00+11:00", "2023-09-05T05:00:00-07:00"])
  })
})
