import { type DuckDBConnection, DuckDBInstance } from "@duckdb/node-api"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { CompiledSql } from "../../reports/compile-filter.ts"
import { StoreConnection, withLiterals } from "../../reports/store-connection.ts"
import { DUCKDB_OPTIONS } from "../../reports/sync/copy.ts"

/**
 * Store queries run with their values written into the text as literals (store.ts,
 * `withLiterals`): DuckDB plans a statement with parameters again at every run. A value must
 * come back exactly as bound, whatever it holds, and nothing in it may reach the SQL.
 */

let instance: DuckDBInstance
let connection: DuckDBConnection

beforeAll(async () => {
  instance = await DuckDBInstance.create(":memory:", DUCKDB_OPTIONS)
  connection = await instance.connect()
  await connection.run("CREATE TABLE secrets (v VARCHAR)")
  await connection.run("INSERT INTO secrets VALUES ('hidden')")
})

afterAll(() => {
  connection.closeSync()
  instance.closeSync()
})

/** The statement's one row, run with literals and with bound parameters. */
const bothWays = async (statement: CompiledSql) => {
  const literal = withLiterals(statement)
  const inlined = (await connection.runAndReadAll(literal ?? statement.sql)).getRows()
  const prepared = await connection.prepare(statement.sql)
  prepared.bind({ ...statement.params })
  const bound = (await prepared.runAndReadAll()).getRows()
  prepared.destroySync()
  return { literal, inlined: inlined.map((row) => row.map(String)), bound: bound.map((row) => row.map(String)) }
}

const NASTY = [
  "",
  "it's",
  "''",
  "'; SELECT v FROM secrets; --",
  "' OR 1=1 --",
  "back\\slash\\'",
  "$p1 and $p2",
  "-- a comment",
  "/* open comment",
  "E'\\x41'",
  "line\nbreak\r\ttab",
  "ünïcødé ✓ 𝄞 日本",
  "$$dollar$$",
  "%_wildcards_%"
]

describe("values written as literals", () => {
  it("reads every string back exactly as a bound parameter does", async () => {
    for (const value of NASTY) {
      const { literal, inlined, bound } = await bothWays({ sql: "SELECT CAST($p1 AS VARCHAR) AS v, count(*) AS n FROM secrets WHERE v <> CAST($p1 AS VARCHAR)", params: { p1: value } })
      expect(literal).toBeDefined()
      expect(inlined).toEqual([[value, "1"]])
      expect(inlined).toEqual(bound)
    }
  })

  it("keeps numbers and booleans as the types DuckDB binds them as", async () => {
    for (const value of [0, -3, 2_147_483_647, -2_147_483_649, 9_007_199_254_740_991, 3.5, -0.1, 1e-7, 0.30000000000000004, true, false]) {
      // `1 - -3` must not become `1 --3`, a comment.
      const arithmetic = typeof value === "number" ? ", 1 - $p1 AS d" : ""
      const statement = { sql: `SELECT $p1 AS v, typeof($p1) AS t, CAST($p1 AS BIGINT) AS b${arithmetic}`, params: { p1: value } }
      const { literal, inlined, bound } = await bothWays(statement)
      expect(literal).not.toContain("--")
      expect(inlined).toEqual(bound)
    }
  })

  it("replaces only the statement's own parameters, each everywhere it appears", () => {
    expect(withLiterals({ sql: "SELECT $p1, $p10, $p1, $now", params: { p1: "a", p10: 7, now: "2024-06-15T12:00:00.000Z" } })).toBe(
      "SELECT 'a', CAST('7' AS INTEGER), 'a', '2024-06-15T12:00:00.000Z'"
    )
    // A value that spells a parameter stays text: replacement is one pass over the statement.
    expect(withLiterals({ sql: "SELECT $p1, $p2", params: { p1: "$p2", p2: "x" } })).toBe("SELECT '$p2', 'x'")
  })

  it("leaves a value with a NUL character to a bound parameter", async () => {
    const statement = { sql: "SELECT length(CAST($p1 AS VARCHAR))", params: { p1: "a\u0000b" } }
    expect(withLiterals(statement)).toBeUndefined()
    const rows = await new StoreConnection(connection, 0).execute(statement)
    expect(rows.map((row) => row.map(String))).toEqual([["3"]])
  })

  it("keeps one prepared statement per text for the next run", async () => {
    const store = new StoreConnection(connection)
    const statement = { sql: "SELECT CAST($p1 AS BIGINT) + 1", params: { p1: 41 } }
    expect((await store.execute(statement))[0]).toEqual([42n])
    expect((await store.execute(statement))[0]).toEqual([42n])
    expect((await store.execute({ ...statement, params: { p1: 1 } }))[0]).toEqual([2n])
    expect(store.keptStatements).toBe(2)
    // The clock's text never repeats: such a statement runs and is not kept.
    await store.execute({ sql: "SELECT CAST($now AS TIMESTAMPTZ) > CAST($p1 AS TIMESTAMPTZ)", params: { now: new Date().toISOString(), p1: "2020-01-01T00:00:00Z" } })
    expect(store.keptStatements).toBe(2)
    store.close()
  })
})
