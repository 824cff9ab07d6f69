import type { DuckDBConnection } from "@duckdb/node-api"
import * as fs from "node:fs"
import * as path from "node:path"
import type pg from "pg"
import { copyToFile, inSnapshot, literal, OVERLAP_MS, readCsv, removeFile, withDuckDB } from "./copy.ts"
import { type CurrentGeneration, nextGeneration, publish, removeOldGenerations, storeFile } from "./generations.ts"
import { TABLES } from "./store-tables.ts"
import type { SyncResult } from "./summary.ts"
import { logsInOrder, type RefreshScope } from "./tables/change-scope.ts"
import type { StoreTable } from "./tables/types.ts"
import { refreshMonthlyMetricsSql } from "./monthly-metrics.ts"
import { newestRowsStatements } from "./newest-rows.ts"

// What each store table's refresh reads and replaces is declared in the table's file (tables/change-scope.ts).

/** The relation of a table's rows the refresh read. */
const freshOf = (table: string) => `fresh_${table}`

/** The scopes the tables' replacements name, each once. */
const SCOPES: ReadonlyArray<RefreshScope> = [
  ...new Map(TABLES.flatMap((t) => (t.changes.scope === undefined ? [] : [[t.changes.scope.name, t.changes.scope] as const]))).values()
]

/** The rows of the store `alias` the fresh rows of `table` replace, as a condition (replaced by key: those of their keys). */
const replacedRows = (table: StoreTable, alias: string): string => {
  const replaces = table.changes.replaces
  switch (replaces.kind) {
    case "key":
      return `${alias}.key IN (SELECT key FROM ${freshOf(table.name)})`
    case "whole":
      return "true"
    case "within":
      return replaces.rows(alias, freshOf)
  }
}

/** Where a refresh writes what it read: a CSV file per store table and per scope. */
interface ChangeFiles {
  readonly csv: Readonly<Record<string, string>>
  readonly scopeCsv: Readonly<Record<string, string>>
}

const loadFresh = async (connection: DuckDBConnection, temporary: boolean, { csv, scopeCsv }: ChangeFiles) => {
  for (const table of TABLES) {
    await connection.run(`CREATE ${temporary ? "TEMPORARY " : ""}TABLE ${freshOf(table.name)} AS ${readCsv(table.columns, csv[table.name]!)}`)
  }
  for (const scope of SCOPES) {
    await connection.run(`CREATE ${temporary ? "TEMPORARY " : ""}TABLE ${scope.name} AS ${readCsv(scope.columns, scopeCsv[scope.name]!)}`)
  }
}

/** In one snapshot: what changed since `since` (the change logs), then the rows it touches, table by table, into the files. */
const readChanges = (client: pg.Client, since: Date, { csv, scopeCsv }: ChangeFiles) =>
  inSnapshot(client, async () => {
    for (const log of logsInOrder(TABLES.map((table) => table.changes))) {
      await client.query(`create temporary table ${log.table} (business_id bigint, id bigint) on commit drop`)
      await client.query(`insert into ${log.table} ${log.sql}`, [since])
    }
    const rows: Record<string, number> = {}
    for (const table of TABLES) rows[table.name] = await copyToFile(client, table.select(table.changes.where), csv[table.name]!)
    for (const scope of SCOPES) await copyToFile(client, scope.sql, scopeCsv[scope.name]!)
    return rows
  })

/**
 * The rows read that differ from the current generation's, counted: fresh rows not in the
 * store; for tables whose replacement can remove rows, also the store's rows it would remove.
 */
const differenceSql = (table: StoreTable) => {
  const fresh = freshOf(table.name)
  if (table.changes.replaces.kind === "key") {
    return `(SELECT count(*) FROM (SELECT * FROM ${fresh} EXCEPT SELECT c.* FROM cur.${table.name} c SEMI JOIN ${fresh} f ON f.key = c.key))`
  }
  const current = `SELECT * FROM cur.${table.name} c${table.changes.replaces.kind === "whole" ? "" : ` WHERE ${replacedRows(table, "c")}`}`
  return `(SELECT count(*) FROM (SELECT * FROM ${fresh} EXCEPT ${current}))
      + (SELECT count(*) FROM (${current} EXCEPT SELECT * FROM ${fresh}))`
}

/** Whether the rows read differ from the current generation's (most minutes change nothing). */
const storeDiffers = (dir: string, current: CurrentGeneration, files: ChangeFiles) =>
  withDuckDB(":memory:", async (connection) => {
    await connection.run(`ATTACH ${literal(path.join(dir, current.file))} AS cur (READ_ONLY)`)
    await loadFresh(connection, false, files)
    const reader = await connection.runAndReadAll(`SELECT ${TABLES.map(differenceSql).join("\n      + ")}`)
    return Number(reader.getRows()[0]?.[0] ?? 0) > 0
  })

/**
 * The businesses whose monthly metrics may change: those with rows refreshed in the tables
 * metrics read, and in their scopes; of tables read whole, those whose rows differ.
 */
const metricsScopeSql = () => {
  const sources = TABLES.filter((table) => table.changes.metrics).flatMap((table) => {
    const fresh = freshOf(table.name)
    if (table.changes.replaces.kind === "whole") {
      return [`SELECT business_id FROM (SELECT * FROM ${fresh} EXCEPT SELECT * FROM ${table.name})`,
        `SELECT business_id FROM (SELECT * FROM ${table.name} EXCEPT SELECT * FROM ${fresh})`]
    }
    const scope = table.changes.scope
    return [`SELECT business_id FROM ${fresh}`, ...(scope === undefined ? [] : [`SELECT business_id FROM ${scope.name}`])]
  })
  return `CREATE TEMPORARY TABLE metrics_scope AS ${[...new Set(sources)].join(" UNION ")}`
}

/** Replaces the changed rows in a new generation's file, in one transaction (fresh rows loaded). */
const replaceChanged = async (connection: DuckDBConnection) => {
  // Before any row is replaced: the tables read whole are compared with the store's.
  await connection.run(metricsScopeSql())
  for (const table of TABLES) {
    await connection.run(table.changes.replaces.kind === "whole" ? `DELETE FROM ${table.name}` : `DELETE FROM ${table.name} WHERE ${replacedRows(table, table.name)}`)
    await connection.run(`INSERT INTO ${table.name} SELECT * FROM ${freshOf(table.name)}`)
  }
  // Their months, recomputed from the refreshed tables (reports/sync/monthly-metrics.ts).
  for (const sql of refreshMonthlyMetricsSql(new Date().toISOString(), "business_id IN (SELECT business_id FROM metrics_scope)")) {
    await connection.run(sql)
  }
  // The newest rows again: the refreshed rows were appended out of their order (newest-rows.ts).
  for (const sql of newestRowsStatements(TABLES)) await connection.run(sql)
}

/** The tables whose changed rows a refresh counts (those read whole are not changes). */
const COUNTED = TABLES.filter((table) => table.changes.replaces.kind !== "whole").map((table) => table.name)

/**
 * The incremental refresh: the rows that may have changed since the current generation's
 * snapshot are read again and compared with the store's; only when they differ is the current
 * file copied to a new generation, the rows replaced there, and it published.
 */
export const incrementalRefresh = async (client: pg.Client, dir: string, current: CurrentGeneration): Promise<SyncResult> => {
  const since = new Date(Date.parse(current.synced_at) - OVERLAP_MS)
  const files: ChangeFiles = {
    csv: Object.fromEntries(TABLES.map((table) => [table.name, path.join(dir, `${table.name}-${process.pid}.csv`)])),
    scopeCsv: Object.fromEntries(SCOPES.map((scope) => [scope.name, path.join(dir, `${scope.name}-${process.pid}.csv`)]))
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
        rows: Object.fromEntries(COUNTED.map((name) => [name, 0])),
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
    const rows = Object.fromEntries(COUNTED.map((name) => [name, changed[name]!]))
    return { outcome: "incremental", generation, rows, synced_at: at }
  } finally {
    for (const file of [...Object.values(files.csv), ...Object.values(files.scopeCsv)]) removeFile(file)
  }
}
