import * as path from "node:path"
import type pg from "pg"
import { copyToFile, inSnapshot, OVERLAP_MS, readCsv, removeFile, withDuckDB } from "./copy.ts"
import { nextGeneration, publish, removeOldGenerations, storeFile } from "./generations.ts"
import { STORE_ROWS, STORE_SCHEMA, TABLES } from "./store-tables.ts"
import type { SyncResult } from "./summary.ts"
import { createTableSql } from "./tables/types.ts"
import { createMonthlyMetricsSql } from "./monthly-metrics.ts"

/**
 * The full rebuild: every table read in one snapshot, part by part, into a new generation file
 * that is checkpointed, closed, then published.
 */

/**
 * The large tables are read from PostgreSQL in parts (by business), so that PostgreSQL writes
 * the next part while DuckDB loads the last one: the two overlap instead of taking turns. Each
 * part is loaded sorted by business, so a query's business filter skips the other businesses'
 * row groups (DuckDB's zone maps).
 */
const PARTS: Readonly<Record<string, number>> = { enrollments: 4, clients: 2, invoice_items: 2, invoice_item_transactions: 2 }

/** `ids` in at most `count` consecutive runs of about equal length (one run: the whole table). */
const partition = (ids: ReadonlyArray<string>, count: number): ReadonlyArray<ReadonlyArray<string>> => {
  const n = Math.min(count, ids.length)
  if (n <= 1) return [ids]
  return Array.from({ length: n }, (_, i) => ids.slice(Math.floor((i * ids.length) / n), Math.floor(((i + 1) * ids.length) / n)))
}

export const fullRebuild = async (client: pg.Client, dir: string): Promise<SyncResult> => {
  const generation = nextGeneration(dir)
  const target = path.join(dir, storeFile(generation))
  const rows: Record<string, number> = {}
  const readMs: Record<string, number> = {}
  const files: Array<string> = []
  let at: string
  try {
    ;({ at } = await inSnapshot(client, () =>
      withDuckDB(target, async (connection) => {
        for (const table of TABLES) await connection.run(createTableSql(table))
        const businessIds = (await client.query<{ id: string }>("select id from businesses order by id")).rows.map((row) => row.id)
        // At most one load runs while the next part is read; its failure surfaces at the next await.
        let loading: Promise<unknown> = Promise.resolve()
        for (const table of TABLES) {
          // Parts are runs of business ids (a list the planner estimates well; a modulo it does not).
          const parts = partition(businessIds, PARTS[table.name] ?? 1)
          for (const [part, ids] of parts.entries()) {
            const file = path.join(dir, `${table.name}-${part}-${process.pid}.csv`)
            files.push(file)
            const where = parts.length === 1 ? "true" : `${table.businessIdSql} in (${ids.join(", ")})`
            if (table.rebuildWithHashJoins) await client.query("set local enable_nestloop = off; set local enable_mergejoin = off")
            const started = performance.now()
            rows[table.name] = (rows[table.name] ?? 0) + (await copyToFile(client, table.select(where), file))
            readMs[table.name] = Math.round((readMs[table.name] ?? 0) + performance.now() - started)
            if (table.rebuildWithHashJoins) await client.query("set local enable_nestloop = on; set local enable_mergejoin = on")
            await loading
            loading = connection.run(`INSERT INTO ${table.name} ${readCsv(table, file)} ORDER BY business_id`).then(() => removeFile(file))
            loading.catch(() => {})
          }
        }
        await loading
        // Computed from the tables just loaded (reports/sync/monthly-metrics.ts).
        await connection.run(createMonthlyMetricsSql(new Date().toISOString()))
        await connection.run("CHECKPOINT")
      })
    ))
  } catch (error) {
    removeFile(target)
    throw error
  } finally {
    for (const file of files) removeFile(file)
  }
  publish(dir, { generation, file: storeFile(generation), synced_at: at, rebuilt_at: at, mode: "full", schema: STORE_SCHEMA, rows: STORE_ROWS })
  removeOldGenerations(dir, generation)
  // Deletions before this snapshot are in the store now; later refreshes only look after it.
  const pruneBefore = new Date(Date.parse(at) - OVERLAP_MS)
  await client.query("delete from report_enrollment_deletions where deleted_at < $1", [pruneBefore])
  await client.query("delete from report_plan_changes where changed_at < $1", [pruneBefore])
  await client.query("delete from report_invoice_changes where changed_at < $1", [pruneBefore])
  return { outcome: "full", generation, rows, read_ms: readMs, synced_at: at }
}
