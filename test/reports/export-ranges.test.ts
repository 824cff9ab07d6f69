import * as http from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { clientsCatalog } from "../../reports/catalog/clients.ts"
import { transactionsCatalog } from "../../reports/catalog/transactions.ts"
import { csvOf, parseCsv } from "./export-support.ts"
import { type Sales, buildSales, closeSales } from "./sales-fixture.ts"

/**
 * A detail CSV export read range by range of its order (REPORT_EXPORT_RANGE_ROWS, here 3 rows):
 * it still equals the JSON pages concatenated, whatever the sort (ties across ranges, NULLs
 * last either way, dates, datetimes, texts), and after a refresh appended changed rows out of
 * the store's order. The statements metric shows the export was split.
 */

const RANGE_ROWS = 3
let sales: Sales
const PATH = (resource: string) => `/desk/api/v3/reports/${resource}/queries`

const post = (resource: string, attributes: unknown, accept?: string) =>
  sales.server.request("POST", PATH(resource), {
    token: sales.token,
    body: { data: { type: "queries", attributes } },
    headers: { "content-type": "application/vnd.api+json", ...(accept === undefined ? {} : { accept }) }
  })

/** Every row of a query, page after page. */
const jsonRows = async (resource: string, attributes: Record<string, unknown>) => {
  const rows: Array<Array<unknown>> = []
  let startingAfter: string | null = null
  for (;;) {
    const answer = await post(resource, { ...attributes, page: { limit: 7, ...(startingAfter === null ? {} : { starting_after: startingAfter }) } })
    expect(answer.status, answer.text).toBe(200)
    rows.push(...answer.json.data.attributes.rows)
    startingAfter = answer.json.data.attributes.last_key
    if (!answer.json.data.attributes.has_more) return rows
  }
}

const statements = async () => {
  const metrics = await new Promise<string>((resolve, reject) =>
    http.get({ host: "127.0.0.1", port: sales.server.metricsPort, path: "/metrics" }, (response) => {
      let text = ""
      response.setEncoding("utf8").on("data", (chunk: string) => (text += chunk)).on("end", () => resolve(text))
    }).on("error", reject))
  return Number(/studio_report_export_statements_total(?:\{[^}]*\})? (\d+)/.exec(metrics)?.[1] ?? NaN)
}

/** The CSV export equals the JSON pages, and took `ranges` statements (at least). */
const expectSameAsPages = async (resource: string, attributes: Record<string, unknown>) => {
  const json = await jsonRows(resource, attributes)
  const before = await statements()
  const answer = await post(resource, attributes, "text/csv")
  expect(answer.status, answer.text).toBe(200)
  const rows = parseCsv(answer.text)
  expect(rows.slice(1)).toEqual(json.map((row) => row.map(csvOf)))
  return { rows: json.length, statements: (await statements()) - before }
}

const clientFields = [...clientsCatalog.detail.keys()].filter((name) => clientsCatalog.detail.get(name)!.type !== "range")

beforeAll(async () => {
  sales = await buildSales("reports-export-ranges", { reportExportRangeRows: RANGE_ROWS, metrics: true })
  // Clients sharing last names (ties across ranges) and birthdates, some without one (NULLs last).
  await sales.server.pool.query(
    `insert into people (business_id, first_name, last_name, email, birthdate)
     select $1, 'First ' || g, 'Last ' || (g % 4), 'ranges' || g || '@example.test',
            case when g % 3 = 0 then null else date '1990-01-01' + (g % 5) end
     from generate_series(1, 40) g`,
    [sales.north.id]
  )
  await sales.sync("full")
}, 120_000)

afterAll(async () => {
  await closeSales(sales)
})

describe("a detail CSV export read range by range", () => {
  it("equals the pages sorted by a datetime, newest first, and is split into ranges", async () => {
    const answer = await expectSameAsPages("transactions", { fields: [...transactionsCatalog.detail.keys()], sort: ["transaction_at-"] })
    expect(answer.rows).toBeGreaterThan(RANGE_ROWS)
    expect(answer.statements).toBeGreaterThan(1)
  })

  it("equals the pages when many rows share the sort values and some have none", async () => {
    for (const sort of [["last_name+"], ["birthdate-"], ["birthdate+", "last_name-"], ["person_id+"]]) {
      const answer = await expectSameAsPages("clients", { fields: clientFields, sort })
      expect(answer.rows).toBeGreaterThan(40)
      expect(answer.statements).toBeGreaterThanOrEqual(Math.ceil(answer.rows / RANGE_ROWS) - 2)
    }
  })

  it("equals the pages after a refresh appended changed rows out of the store's order", async () => {
    const pool = sales.server.pool
    // Moved to the other end of the sort, renamed into the middle, added, removed.
    await pool.query(`update people set birthdate = date '2030-01-01', updated_at = now() where business_id = $1 and email like 'ranges1%@example.test'`, [sales.north.id])
    await pool.query(`update people set last_name = 'Last 2', updated_at = now() where business_id = $1 and email like 'ranges2%@example.test'`, [sales.north.id])
    await pool.query(
      `insert into people (business_id, first_name, last_name, email) select $1, 'New ' || g, 'Last ' || (g % 2), 'later' || g || '@example.test' from generate_series(1, 9) g`,
      [sales.north.id]
    )
    await pool.query(`update people set deleted_at = now(), updated_at = now() where business_id = $1 and email like 'ranges3%@example.test'`, [sales.north.id])
    expect((await sales.sync("incremental")).outcome).toBe("incremental")
    for (const sort of [["birthdate-"], ["last_name+"]]) {
      const answer = await expectSameAsPages("clients", { fields: clientFields, sort })
      expect(answer.statements).toBeGreaterThan(1)
    }
  })
})
