import * as path from "node:path"
import type pg from "pg"
import { inSnapshot, literal, OVERLAP_MS, removeFile, SNAPSHOT_SETTINGS, withDuckDB } from "./copy.ts"
import { mirrorTables } from "./mirror.ts"
import { nextGeneration, publish, removeOldGenerations, storeFile } from "./generations.ts"
import { STORE_ROWS, STORE_SCHEMA, TABLES } from "./store-tables.ts"
import type { SyncResult } from "./summary.ts"
import { createTableSql, type StoreTable } from "./tables/types.ts"
import { createMonthlyMetricsSql } from "./monthly-metrics.ts"
import { newestRowsStatements } from "./newest-rows.ts"

/**
 * The full rebuild: the base tables copied in one snapshot, every store table built from them
 * into a new generation file that is checkpointed, closed, then published.
 */

/**
 * The store's tables are built in DuckDB, from mirrors of the PostgreSQL tables they read
 * (mirror.ts): READERS connections share the sync's snapshot (the first exports it, the others
 * import it, as `pg_dump -j` does) and stream the tables out with COPY while DuckDB loads them;
 * then each store table's SQL runs on DuckDB over the mirrors, and its rows are inserted sorted
 * by business (then by the table's `newestFirstBy` date), so a query's business filter skips the
 * other businesses' row groups (DuckDB's zone maps). The SQL is the same text an incremental
 * refresh runs on PostgreSQL, so each field keeps one definition; the build session reads
 * instants in UTC and sorts NULLs as PostgreSQL does.
 */
const loadOrder = (table: StoreTable) => (table.newestFirstBy ? `business_id, ${table.newestFirstBy} DESC NULLS LAST` : "business_id")

/**
 * The DuckDB session that builds the store's tables, set to read as the same SQL reads on
 * PostgreSQL: instants turned into dates in UTC, as the sync's PostgreSQL session, and NULLs
 * sorted last ascending and first descending.
 */
const BUILD_SETTINGS = "SET TimeZone = 'UTC'; SET default_null_order = 'nulls_last_on_asc_first_on_desc'"

/** PostgreSQL connections reading at once (the first is the sync's own). */
const READERS = 2

/** Opens a reader in the snapshot `snapshot` that the sync's own transaction exported. */
const joinSnapshot = async (connect: () => Promise<pg.Client>, snapshot: string): Promise<pg.Client> => {
  const reader = await connect()
  try {
    await reader.query("begin isolation level repeatable read")
    await reader.query(`set transaction snapshot ${literal(snapshot)}`)
    await reader.query(SNAPSHOT_SETTINGS)
    return reader
  } catch (error) {
    await reader.end().catch(() => {})
    throw error
  }
}

/**
 * `connect` opens another connection to the same database (for the readers after the first).
 */
export const fullRebuild = async (client: pg.Client, dir: string, connect: () => Promise<pg.Client>): Promise<SyncResult> => {
  const generation = nextGeneration(dir)
  const target = path.join(dir, storeFile(generation))
  const mirrorFile = path.join(dir, `mirror-${process.pid}.duckdb`)
  const rows: Record<string, number> = {}
  const buildMs: Record<string, number> = {}
  const helpers: Array<pg.Client> = []
  let at: string
  try {
    ;({ at } = await inSnapshot(client, () =>
      withDuckDB(target, async (connection) => {
        // The store is attached as `store`; the mirrors go to a file of their own next to it
        // (compressed, and evicted from memory under pressure as the store is), removed after.
        for (const table of TABLES) await connection.run(createTableSql(table))
        await connection.run(`ATTACH ${literal(mirrorFile)} AS mirror`)
        await connection.run("USE mirror")
        await connection.run(BUILD_SETTINGS)
        const { rows: [exported] } = await client.query<{ snapshot: string }>("select pg_export_snapshot() as snapshot")
        for (let i = 1; i < READERS; i++) helpers.push(await joinSnapshot(connect, exported!.snapshot))
        const mirroring = performance.now()
        await mirrorTables([client, ...helpers], connection, dir, TABLES.map((table) => table.select("true")).join("\n"))
        buildMs.mirrors = Math.round(performance.now() - mirroring)
        // The other readers are done with the snapshot (the sync's own keeps it to its end).
        for (const helper of helpers.splice(0)) await helper.end().catch(() => {})
        for (const table of TABLES) {
          const started = performance.now()
          const inserted = await connection.run(`INSERT INTO store.${table.name} SELECT * FROM (${table.select("true")}) ORDER BY ${loadOrder(table)}`)
          rows[table.name] = inserted.rowsChanged
          buildMs[table.name] = Math.round(performance.now() - started)
        }
        await connection.run("USE store")
        await connection.run("DETACH mirror")
        removeFile(mirrorFile)
        // Computed from the tables just built (reports/sync/monthly-metrics.ts).
        await connection.run(createMonthlyMetricsSql(new Date().toISOString()))
        // Each business's newest invoices and items, in a first page's order (newest-rows.ts).
        for (const sql of newestRowsStatements(TABLES)) await connection.run(sql)
        await connection.run("CHECKPOINT")
      })
    ))
  } catch (error) {
    removeFile(target)
    throw error
  } finally {
    for (const helper of helpers) await helper.end().catch(() => {})
    removeFile(mirrorFile)
  }
  publish(dir, { generation, file: storeFile(generation), synced_at: at, rebuilt_at: at, mode: "full", schema: STORE_SCHEMA, rows: STORE_ROWS })
  removeOldGenerations(dir, generation)
  // Deletions before this snapshot are in the store now; later refreshes only look after it.
  const pruneBefore = new Date(Date.parse(at) - OVERLAP_MS)
  await client.query("delete from report_enrollment_deletions where deleted_at < $1", [pruneBefore])
  await client.query("delete from report_plan_changes where changed_at < $1", [pruneBefore])
  await client.query("delete from report_invoice_changes where changed_at < $1", [pruneBefore])
  return { outcome: "full", generation, rows, build_ms: buildMs, synced_at: at }
}
