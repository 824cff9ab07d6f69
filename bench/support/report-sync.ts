import { DuckDBInstance } from "@duckdb/node-api"
import * as fs from "node:fs"
import * as path from "node:path"
import { pipeline } from "node:stream/promises"
import type pg from "pg"
import { from as copyFrom, to as copyTo } from "pg-copy-streams"
import { readCurrent } from "../../reports/sync/generations.ts"
import { syncReports } from "../../reports/sync/sync.ts"
import { DUCKDB_OPTIONS } from "../../reports/sync/copy.ts"
import { TABLES } from "../../reports/sync/store-tables.ts"
import { createTableSql } from "../../reports/sync/tables/types.ts"

/**
 * `npm run bench:reports`' first measure: the full sync against its baseline, a plain
 * COPY-to-DuckDB of the same rows (every table of the store).
 */

interface Dirs {
  /** Where the baseline's files go. */
  readonly benchDir: string
  /** The report store the sync writes. */
  readonly reportsDir: string
}

/** The store's DuckDB column types as PostgreSQL's, for the baseline's tables. */
const PG_TYPES: Readonly<Record<string, string>> = {
  BIGINT: "bigint", INTEGER: "integer", VARCHAR: "text", DATE: "date", TIMESTAMPTZ: "timestamptz",
  TIMESTAMP: "timestamp", BOOLEAN: "boolean", DOUBLE: "double precision"
}

/**
 * The baseline's rows, untimed: the store the sync just built, exported table by table and
 * copied into PostgreSQL tables `bench_rows_<table>` (so they are exactly the same rows).
 */
const materializeRows = async (pool: pg.Pool, { benchDir, reportsDir }: Dirs) => {
  const current = readCurrent(reportsDir)
  if (!current) throw new Error("the sync published no store")
  const instance = await DuckDBInstance.create(":memory:", DUCKDB_OPTIONS)
  const connection = await instance.connect()
  const client = await pool.connect()
  try {
    await connection.run("SET TimeZone = 'UTC'")
    await connection.run(`ATTACH '${path.join(reportsDir, current.file)}' AS store (READ_ONLY)`)
    for (const table of TABLES) {
      const file = path.join(benchDir, `${table.name}.rows.csv`)
      await connection.run(`COPY store.${table.name} TO '${file}' (FORMAT csv, HEADER false)`)
      const columns = table.columns.map(([name, type]) => `${name} ${PG_TYPES[type.replace(/ NOT NULL$/, "")]}`)
      await client.query(`drop table if exists bench_rows_${table.name}`)
      await client.query(`create table bench_rows_${table.name} (${columns.join(", ")})`)
      await pipeline(fs.createReadStream(file), client.query(copyFrom(`COPY bench_rows_${table.name} FROM STDIN (FORMAT csv)`)))
      fs.rmSync(file)
    }
  } finally {
    client.release()
    connection.closeSync()
    instance.closeSync()
  }
}

/** The full sync, then the plain COPY-to-DuckDB of the same rows (materialized first, untimed). */
export const measureSync = async (pool: pg.Pool, databaseUrl: string, dirs: Dirs & { readonly log: (message: string) => void }) => {
  const { benchDir, reportsDir, log } = dirs
  log("full sync")
  const sync = await syncReports({ databaseUrl, dir: reportsDir, mode: "full" })
  const syncMs = sync.duration_ms
  log(`full sync ${(syncMs / 1000).toFixed(1)} s; mirrors and each table's build (ms): ${JSON.stringify(sync.build_ms)}`)
  const tables = TABLES
  await materializeRows(pool, dirs)
  const copyMsByTable: Record<string, number> = {}
  const copyStarted = performance.now()
  const baselineFile = path.join(benchDir, "baseline.duckdb")
  fs.rmSync(baselineFile, { force: true })
  fs.rmSync(`${baselineFile}.wal`, { force: true })
  const instance = await DuckDBInstance.create(baselineFile, DUCKDB_OPTIONS)
  const connection = await instance.connect()
  const client = await pool.connect()
  for (const table of tables) {
    const tableStarted = performance.now()
    const file = path.join(benchDir, `${table.name}.csv`)
    await pipeline(client.query(copyTo(`COPY bench_rows_${table.name} TO STDOUT (FORMAT csv)`)), fs.createWriteStream(file))
    await connection.run(createTableSql(table))
    const columns = table.columns.map(([name, type]) => `'${name}': '${type.replace(/ NOT NULL$/, "")}'`).join(", ")
    await connection.run(
      `INSERT INTO ${table.name} SELECT * FROM read_csv('${file}', header = false, auto_detect = false, allow_quoted_nulls = false, columns = {${columns}})`
    )
    fs.rmSync(file)
    copyMsByTable[table.name] = Math.round(performance.now() - tableStarted)
  }
  await connection.run("CHECKPOINT")
  const copyMs = performance.now() - copyStarted
  client.release()
  connection.closeSync()
  instance.closeSync()
  for (const table of tables) await pool.query(`drop table bench_rows_${table.name}`)
  return { syncMs, copyMs, rows: sync.rows, buildMs: sync.build_ms, copyMsByTable }
}
