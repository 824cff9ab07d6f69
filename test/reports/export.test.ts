import { DuckDBDateValue, DuckDBInstance, DuckDBTimestampTZValue, DuckDBTimeValue, type DuckDBValue } from "@duckdb/node-api"
import * as fs from "node:fs"
import * as http from "node:http"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { clientsCatalog } from "../../reports/catalog/clients.ts"
import { transactionsCatalog } from "../../reports/catalog/transactions.ts"
import type { WireType } from "../../reports/catalog/types.ts"
import { syncReports } from "../../reports/sync/sync.ts"
import { createBusiness, createPerson, createToken } from "../support/factories.ts"
import type { TestResponse } from "../support/http.ts"
import { TEST_BASE_DOMAIN, type TestServer, startTestServer } from "../support/server.ts"
import { csvOf, parseCsv } from "./export-support.ts"
import { type Sales, buildSales, closeSales } from "./sales-fixture.ts"

/**
 * Export on the query endpoint (`Accept: text/csv`, `application/vnd.apache.parquet`) over HTTP:
 * the CSV equals the JSON pages concatenated (detail and grouped rows, several pages each), its
 * header row and quoting; the Parquet file reads back in DuckDB as the same rows; the query's
 * access, validation and refusals (JSON); 406; and a client leaving mid-export interrupts the
 * query and leaves the store's connection usable.
 */

let sales: Sales
const PATH = (resource: string) => `/desk/api/v3/reports/${resource}/queries`

const post = (resource: string, attributes: unknown, accept?: string, token = sales.token, server: TestServer = sales.server) =>
  server.request("POST", PATH(resource), {
    token,
    body: { data: { type: "queries", attributes } },
    headers: { "content-type": "application/vnd.api+json", ...(accept === undefined ? {} : { accept }) }
  })

/** Every row of a query, page after page (`page.limit` small: several pages). */
const jsonPages = async (resource: string, attributes: Record<string, unknown>, limit: number) => {
  const rows: Array<Array<unknown>> = []
  let startingAfter: string | null = null
  let pages = 0
  let answer: TestResponse
  do {
    answer = await post(resource, { ...attributes, page: { limit, ...(startingAfter === null ? {} : { starting_after: startingAfter }) } })
    expect(answer.status, answer.text).toBe(200)
    rows.push(...answer.json.data.attributes.rows)
    startingAfter = answer.json.data.attributes.last_key
    pages += 1
  } while (answer.json.data.attributes.has_more)
  return { rows, pages, fields: answer.json.data.attributes.fields as Array<{ name: string; type: WireType }>, dataAsOf: answer.json.meta.data_as_of as string }
}

const csvExport = async (resource: string, attributes: Record<string, unknown>) => {
  const answer = await post(resource, { ...attributes, page: { limit: 1 } }, "text/csv")
  expect(answer.status, answer.text).toBe(200)
  expect(answer.headers["content-type"]).toMatch(/^text\/csv; charset=utf-8/)
  return { answer, rows: parseCsv(answer.text) }
}

beforeAll(async () => {
  sales = await buildSales("reports-export")
  const pool = sales.server.pool
  await createPerson(pool, sales.north.id, { first_name: "Smith, Jr.", last_name: 'The "Rock"', email: "rock@example.test" })
  await pool.query(`insert into people (business_id, first_name, last_name, email) values ($1, $2, $3, $4)`, [sales.north.id, "Two\nLines", "Carriage\r\nReturn", "lines@example.test"])
  await sales.sync("full")
})

afterAll(async () => {
  await closeSales(sales)
})

describe("CSV export", () => {
  it("equals the JSON pages concatenated for a detail query, with a header row of the field names", async () => {
    const attributes = { fields: [...transactionsCatalog.detail.keys()], sort: ["transaction_at-"] }
    const json = await jsonPages("transactions", attributes, 2)
    expect(json.pages).toBeGreaterThan(2)
    expect(json.fields.some((field) => field.type === "datetime" && json.rows.some((row) => row[json.fields.indexOf(field)] !== null))).toBe(true)
    const { answer, rows } = await csvExport("transactions", attributes)
    expect(rows[0]).toEqual(json.fields.map((field) => field.name))
    expect(rows.slice(1)).toEqual(json.rows.map((row) => row.map(csvOf)))
    expect(answer.headers["content-disposition"]).toBe(`attachment; filename="transactions-${json.dataAsOf}.csv"`)
  })

  it("equals the JSON pages concatenated for a grouped query", async () => {
    const attributes = { group: "payment_method", fields: ["group_label", ...transactionsCatalog.summary.keys()], sort: ["group_label+"] }
    const json = await jsonPages("transactions", attributes, 1)
    expect(json.pages).toBeGreaterThan(1)
    const { rows } = await csvExport("transactions", attributes)
    expect(rows[0]).toEqual(json.fields.map((field) => field.name))
    expect(rows.slice(1)).toEqual(json.rows.map((row) => row.map(csvOf)))
  })

  it("quotes commas, quotes and line breaks, and tells an empty text from no value", async () => {
    const attributes = { fields: [...clientsCatalog.detail.keys()].filter((name) => clientsCatalog.detail.get(name)!.type !== "range"), sort: ["first_name+"] }
    const json = await jsonPages("clients", attributes, 3)
    const { answer, rows } = await csvExport("clients", attributes)
    expect(rows.slice(1)).toEqual(json.rows.map((row) => row.map(csvOf)))
    expect(answer.text).toContain('"Smith, Jr."')
    expect(answer.text).toContain('"The ""Rock"""')
    expect(answer.text).toContain('"Two\nLines"')
    expect(answer.text).toContain('"Carriage\r\nReturn"')
    // Clients without a phone: an empty field, never `""`.
    const phone = json.fields.findIndex((field) => field.name === "phone")
    expect(rows.slice(1).some((row) => row[phone] === null)).toBe(true)
  })

  it("ignores the page size: every row", async () => {
    const attributes = { fields: ["key"], page: { limit: 1 } }
    const all = await jsonPages("transactions", { fields: ["key"] }, 500)
    const answer = await post("transactions", attributes, "text/csv")
    expect(parseCsv(answer.text).length).toBe(all.rows.length + 1)
    expect(all.rows.length).toBeGreaterThan(1)
  })
})

/** A JSON cell and a Parquet value, compared in the JSON's terms. */
const fromParquet = (value: DuckDBValue, type: WireType): unknown => {
  if (value === null) return null
  if (type === "boolean") return value === true ? "t" : "f"
  // The JSON writes datetimes to the second; the file keeps the instant as stored.
  if (type === "datetime") return Number((value as DuckDBTimestampTZValue).micros / 1_000_000n) * 1000
  if (value instanceof DuckDBDateValue || value instanceof DuckDBTimeValue) return value.toString()
  if (typeof value === "bigint") return Number(value)
  return typeof value === "object" ? String(value) : value
}

describe("Parquet export", () => {
  it("answers a file DuckDB reads back as the same rows, with the decided column types", async () => {
    const attributes = { fields: [...transactionsCatalog.detail.keys()], sort: ["transaction_at-"] }
    const json = await jsonPages("transactions", attributes, 3)
    const answer = await new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
      const payload = JSON.stringify({ data: { type: "queries", attributes } })
      const request = http.request(
        { host: "127.0.0.1", port: sales.server.port, method: "POST", path: PATH("transactions"), headers: {
          host: `demo.${TEST_BASE_DOMAIN}`, authorization: `Bearer ${sales.token}`, accept: "application/vnd.apache.parquet",
          "content-type": "application/vnd.api+json", "content-length": Buffer.byteLength(payload) } },
        (response) => {
          const chunks: Array<Buffer> = []
          response.on("data", (chunk: Buffer) => chunks.push(chunk))
          response.on("end", () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }))
        }
      )
      request.on("error", reject)
      request.end(payload)
    })
    expect(answer.status, answer.body.toString()).toBe(200)
    expect(answer.headers["content-type"]).toBe("application/vnd.apache.parquet")
    expect(answer.headers["content-disposition"]).toBe(`attachment; filename="transactions-${json.dataAsOf}.parquet"`)
    const file = path.join(sales.dataDir, "read-back.parquet")
    fs.writeFileSync(file, answer.body)
    const instance = await DuckDBInstance.create(":memory:")
    const connection = await instance.connect()
    try {
      const reader = await connection.runAndReadAll(`SELECT * FROM read_parquet('${file}')`)
      expect(reader.columnNames()).toEqual(json.fields.map((field) => field.name))
      const types = Object.fromEntries(reader.columnNames().map((name, i) => [name, reader.columnType(i).toString()]))
      expect(types["transaction_amount"]).toBe("BIGINT")
      expect(types["transaction_at"]).toBe("TIMESTAMP WITH TIME ZONE")
      const expected = json.rows.map((row) =>
        row.map((value, i) => (value !== null && json.fields[i]!.type === "datetime" ? Date.parse(String(value)) : value)))
      expect(reader.getRows().map((row) => row.map((value, i) => fromParquet(value, json.fields[i]!.type)))).toEqual(expected)
    } finally {
      connection.closeSync()
      instance.closeSync()
    }
    // The temporary file is gone once the answer was sent.
    const exports = path.join(sales.dataDir, "report-exports", String(process.pid))
    expect(fs.readdirSync(exports)).toEqual([])
  })
})

describe("refusals", () => {
  it("refuses staff without report access, in JSON", async () => {
    const pool = sales.server.pool
    const clerk = await createPerson(pool, sales.north.id, { role: "standard", first_name: "Clerk", last_name: "Staff" })
    const answer = await post("transactions", { fields: ["key"] }, "text/csv", await createToken(pool, clerk.accountId, sales.north.id))
    expect(answer.status).toBe(403)
    expect(answer.headers["content-type"]).toMatch(/json/)
    expect(answer.json.errors[0]).toMatch(/owners and to staff members an owner has granted access/)
  })

  it("answers an invalid query with 400 and its errors in JSON even when CSV was asked", async () => {
    const answer = await post("transactions", { fields: ["no_such_field"] }, "text/csv")
    expect(answer.status).toBe(400)
    expect(answer.headers["content-type"]).toMatch(/json/)
    expect(answer.json.errors[0]).toMatch(/no_such_field/)
    expect((await post("no_such_resource", { fields: ["key"] }, "application/vnd.apache.parquet")).status).toBe(404)
  })

  it("answers 406 with errors for an Accept it cannot produce, JSON for */*", async () => {
    const refused = await post("transactions", { fields: ["key"] }, "application/xml, text/html;q=0.5")
    expect(refused.status).toBe(406)
    expect(refused.json.errors[0]).toMatch(/text\/csv/)
    expect((await post("transactions", { fields: ["key"] }, "text/csv;q=0")).status).toBe(406)
    const any = await post("transactions", { fields: ["key"] }, "*/*")
    expect(any.status).toBe(200)
    expect(any.json.data.attributes.rows.length).toBeGreaterThan(0)
  })
})

describe("OpenAPI", () => {
  it("lists the export media types and the 406, and says the page is ignored", async () => {
    const document = (await sales.server.request("GET", "/api/openapi.json")).json
    for (const route of ["/desk/api/v3/reports/{resource}/queries", "/api/v3/{resource}/queries"]) {
      const operation = document.paths[route].post
      expect(Object.keys(operation.responses["200"].content)).toEqual(expect.arrayContaining(["text/csv", "application/vnd.apache.parquet"]))
      expect(operation.responses["406"].content["application/vnd.api+json"].schema.properties.errors.type).toBe("array")
    }
    expect(document.paths["/desk/api/v3/reports/{resource}/queries"].post.description).toMatch(/page.*ignored/)
  })
})

describe("a client leaving mid-export", () => {
  let server: TestServer
  let token: string
  const dataDir = path.resolve(`.data/test/reports-export-cancel-${process.pid}`)

  beforeAll(async () => {
    fs.rmSync(dataDir, { recursive: true, force: true })
    server = await startTestServer({ dataDir, metrics: true })
    const business = await createBusiness(server.pool, { subdomain: "demo", name: "Big Studio" })
    const owner = await createPerson(server.pool, business.id, { role: "owner", first_name: "Olga", last_name: "Owner" })
    token = await createToken(server.pool, owner.accountId, business.id)
    // Enough rows that the CSV (tens of MB) cannot sit in the socket's buffers when the client leaves.
    await server.pool.query(
      `insert into people (business_id, first_name, last_name, email, phone)
       select $1, 'First ' || g, 'Last ' || g, 'person' || g || '@example.test', '555-' || g from generate_series(1, 80000) g`,
      [business.id]
    )
    await syncReports({ databaseUrl: server.databaseUrl, dir: path.join(dataDir, "reports"), mode: "full" })
  }, 120_000)

  afterAll(async () => {
    await server?.close()
    fs.rmSync(dataDir, { recursive: true, force: true })
  })

  const cancelled = async () => {
    const metrics = await new Promise<string>((resolve, reject) =>
      http.get({ host: "127.0.0.1", port: server.metricsPort, path: "/metrics" }, (response) => {
        let text = ""
        response.setEncoding("utf8").on("data", (chunk: string) => (text += chunk)).on("end", () => resolve(text))
      }).on("error", reject))
    return Number(/studio_report_exports_total\{[^}]*format="csv"[^}]*outcome="cancelled"[^}]*\} (\d+)/.exec(metrics)?.[1] ?? NaN)
  }

  it("interrupts the query and leaves the store's connection usable", async () => {
    const before = await cancelled()
    expect(before).not.toBeNaN()
    const attributes = { fields: [...clientsCatalog.detail.keys()].filter((name) => clientsCatalog.detail.get(name)!.type !== "range"), sort: ["last_name-"] }
    const received = await new Promise<number>((resolve, reject) => {
      const payload = JSON.stringify({ data: { type: "queries", attributes } })
      const request = http.request(
        { host: "127.0.0.1", port: server.port, method: "POST", path: PATH("clients"), headers: {
          host: `demo.${TEST_BASE_DOMAIN}`, authorization: `Bearer ${token}`, accept: "text/csv",
          "content-type": "application/vnd.api+json", "content-length": Buffer.byteLength(payload) } },
        (response) => {
          if (response.statusCode !== 200) reject(new Error(`export answered ${response.statusCode}`))
          // The first bytes came: leave.
          response.once("data", (chunk: Buffer) => {
            request.destroy()
            resolve(chunk.length)
          })
        }
      )
      request.on("error", () => {})
      request.end(payload)
    })
    expect(received).toBeGreaterThan(0)
    // The server notices the closed socket and interrupts the export (bounded by the test's timeout, never timed).
    while ((await cancelled()) === before) await new Promise((resolve) => setTimeout(resolve, 50))
    expect(await cancelled()).toBe(before + 1)
    // The connection went back usable: queries and a whole export answer.
    const page = await post("clients", { fields: ["first_name"], sort: ["last_name-"] }, undefined, token, server)
    expect(page.status, page.text).toBe(200)
    expect(page.json.data.attributes.rows.length).toBe(100)
    const whole = await post("clients", { fields: ["key"] }, "text/csv", token, server)
    expect(whole.status).toBe(200)
    expect(parseCsv(whole.text).length).toBe(80_000 + 2)
    expect(await cancelled()).toBe(before + 1)
  }, 120_000)
})
