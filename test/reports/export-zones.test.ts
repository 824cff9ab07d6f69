import type { DuckDBConnection } from "@duckdb/node-api"
import { Schema } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { invoicesCatalog } from "../../reports/catalog/invoices.ts"
import { compileExport } from "../../reports/compile.ts"
import type { CompiledSql } from "../../reports/compile-filter.ts"
import { columnZones, csvCopySql } from "../../reports/export-csv.ts"
import { periodsSql, zonePeriods } from "../../reports/export-zones.ts"
import { QueryAttributes } from "../../reports/grammar.ts"
import { normalize } from "../../reports/normalize.ts"
import type { PreparedExport } from "../../reports/service.ts"
import { withLiterals } from "../../reports/store-connection.ts"
import { invoicesTable } from "../../reports/sync/tables/invoices.ts"
import { formatZoned } from "../../src/shared/zoned-time.ts"
import { memoryTables, NO_CUSTOM_FIELDS, NOW, page } from "./support.ts"

/**
 * The CSV export writes a datetime of the rows in the caller's zone by that zone's periods
 * (reports/export-zones.ts), not by a conversion per value: every text must be the one the JSON
 * pages write (zoned-time.ts formatZoned), across offset changes, in zones of half-hour and
 * quarter-hour offsets, of DST of half an hour, of a DST abolished, and for rows of another zone.
 */

let store: Awaited<ReturnType<typeof memoryTables>>
let connection: DuckDBConnection
let dir: string

beforeAll(async () => {
  store = await memoryTables(invoicesTable)
  connection = store.connection
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "export-zones-"))
})

afterAll(() => {
  store?.close()
  if (dir) fs.rmSync(dir, { recursive: true, force: true })
})

const rows = async (sql: string) => (await connection.runAndReadAll(sql)).getRows()

const ZONES = ["America/New_York", "Europe/London", "Australia/Lord_Howe", "Asia/Kathmandu", "America/St_Johns", "Pacific/Chatham", "America/Sao_Paulo", "Africa/Casablanca", "UTC"]

describe("a zone's periods", () => {
  for (const zone of ZONES) {
    it(`write every instant as the JSON does in ${zone}`, async () => {
      // Every 53 minutes and 7 seconds (and some microseconds) over three years and a half.
      const from = Date.UTC(2017, 9, 1)
      const to = Date.UTC(2021, 2, 1)
      const periods = zonePeriods(zone, from, to)
      expect(periods).toBeDefined()
      const written = await rows(
        `SELECT u, ${periodsSql("u", periods!)} FROM (SELECT range AS u FROM range(${from * 1000}, ${to * 1000}, ${(53 * 60 + 7) * 1_000_000 + 1234}))`
      )
      expect(written.length).toBeGreaterThan(30_000)
      const wrong = written.filter(([u, text]) => text !== formatZoned(Number(BigInt(u as bigint) / 1000n), zone))
      expect(wrong.slice(0, 3)).toEqual([])
    })
  }

  it("change a few times a year, and are refused for an unknown zone or a span of centuries", () => {
    expect(zonePeriods("America/New_York", Date.UTC(2023, 0, 1), Date.UTC(2026, 0, 1))?.length).toBe(7)
    expect(zonePeriods("Asia/Tokyo", Date.UTC(2023, 0, 1), Date.UTC(2026, 0, 1))?.length).toBe(1)
    expect(zonePeriods("Mars/Olympus_Mons", Date.UTC(2023, 0, 1), Date.UTC(2026, 0, 1))).toBeUndefined()
    expect(zonePeriods("America/New_York", Date.UTC(1800, 0, 1), Date.UTC(2026, 0, 1))).toBeUndefined()
    expect(zonePeriods("Asia/Tokyo", Date.UTC(1900, 0, 1), Date.UTC(2026, 0, 1))).toBeUndefined()
  })
})

describe("a CSV export's datetimes", () => {
  it("equal the JSON pages' for rows in the caller's zone and in their own", async () => {
    // A closing every 61 hours over two years, every fifth at a location in Sydney.
    await connection.run(`INSERT INTO invoices BY NAME
      SELECT 1 AS business_id, i AS invoice_id, '1-' || i AS key, CAST(i AS VARCHAR) AS invoice_number,
             CASE WHEN i % 5 = 0 THEN 'Australia/Sydney' ELSE 'America/Los_Angeles' END AS time_zone,
             'closed' AS invoice_state, TIMESTAMPTZ '2022-01-01 00:00:00+00' + to_hours(CAST(i * 61 AS INTEGER)) AS closed_at
      FROM range(1, 288) t(i)`)
    const attributes = { fields: ["invoice_number", "closed_at"], sort: ["invoice_number+"], page: { limit: 500 } }
    const json = await page(connection, attributes, { catalog: invoicesCatalog, timeZone: "America/Los_Angeles", now: NOW })
    expect(json.rows.length).toBe(287)

    const normalized = normalize(Schema.decodeUnknownSync(QueryAttributes)(attributes), invoicesCatalog, NO_CUSTOM_FIELDS)
    if (normalized._tag === "Invalid") throw new Error("invalid query")
    const compiled = compileExport(normalized.query, { scope: [1], now: NOW, timeZone: "America/Los_Angeles" })
    const prepared = { compiled, fields: normalized.query.fields, summary: false } as unknown as PreparedExport
    const run = async (statement: CompiledSql) => (await rows(withLiterals(statement)!)) as Array<Array<unknown>>
    const zones = await columnZones(prepared, run)
    expect(zones[1]?.length).toBeGreaterThan(3)
    // By periods, and converted per value (an export read in one statement): both write the JSON's text.
    for (const [name, byZone] of [["periods", zones], ["conversions", []]] as const) {
      const file = path.join(dir, `${name}.csv`)
      await connection.run(withLiterals(csvCopySql(prepared, file, undefined, byZone))!)
      const lines = fs.readFileSync(file, "utf8").trimEnd().split("\r\n").map((line) => line.split(","))
      expect(lines).toEqual(json.rows.map((row) => row.map(String)))
    }
  })
})
