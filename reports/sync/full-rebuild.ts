import * as path from "node:path"
import type pg from "pg"
import { copyToFile, inSnapshot, literal, OVERLAP_MS, readCsv, removeFile, SNAPSHOT_SETTINGS, withDuckDB } from "./copy.ts"
import { nextGeneration, publish, removeOldGenerations, storeFile } from "./generations.ts"
import { STORE_ROWS, STORE_SCHEMA, TABLES } from "./store-tables.ts"
import type { SyncResult } from "./summary.ts"
import { createTableSql, HASH_JOINS_ONLY, PLANNER_JOINS, type StoreTable } from "./tables/types.ts"
import { createMonthlyMetricsSql } from "./monthly-metrics.ts"

/**
 * The full rebuild: every table read in one snapshot, part by part, into a new generation file
 * that is checkpointed, closed, then published.
 */

/**
 * The large tables are read from PostgreSQL in parts (by business), on READERS connections that
 * share one snapshot (the first exports it, the others import it, as `pg_dump -j` does): each
 * PostgreSQL backend runs one part's denormalizing query on a core of its own, while DuckDB
 * loads the parts already read, one at a time. Each part is loaded sorted by business (then by
 * the table's `newestFirstBy` date), so a query's business filter skips the other businesses'
 * row groups (DuckDB's zone maps).
 */
const PARTS: Readonly<Record<string, number>> = { enrollments: 4, clients: 2, person_plans: 4, invoice_items: 2, invoice_item_transactions: 2 }

const loadOrder = (table: StoreTable) => (table.newestFirstBy ? `business_id, ${table.newestFirstBy} DESC NULLS LAST` : "business_id")

/** PostgreSQL connections reading parts at once (the first is the sync's own). */
const READERS = 2

/** `ids` in at most `count` consecutive runs of about equal length (one run: the whole table). */
const partition = (ids: ReadonlyArray<string>, count: number): ReadonlyArray<ReadonlyArray<string>> => {
  const n = Math.min(count, ids.length)
  if (n <= 1) return [ids]
  return Array.from({ length: n }, (_, i) => ids.slice(Math.floor((i * ids.length) / n), Math.floor(((i + 1) * ids.length) / n)))
}

interface Part {
  readonly table: StoreTable
  readonly where: string
  readonly file: string
}

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
  const rows: Record<string, number> = {}
  const readMs: Record<string, number> = {}
  const files: Array<string> = []
  const helpers: Array<pg.Client> = []
  let at: string
  try {
    ;({ at } = await inSnapshot(client, () =>
      withDuckDB(target, async (connection) => {
        for (const table of TABLES) await connection.run(createTableSql(table))
        const businessIds = (await client.query<{ id: string }>("select id from businesses order by id")).rows.map((row) => row.id)
        const { rows: [exported] } = await client.query<{ snapshot: string }>("select pg_export_snapshot() as snapshot")
        for (let i = 1; i < READERS; i++) helpers.push(await joinSnapshot(connect, exported!.snapshot))

        // Parts are runs of business ids (a list the planner estimates well; a modulo it does not).
        const queue: Array<Part> = TABLES.flatMap((table) => {
          const parts = partition(businessIds, PARTS[table.name] ?? 1)
          return parts.map((ids, part) => ({
            table,
            where: parts.length === 1 ? "true" : `${table.businessIdSql} in (${ids.join(", ")})`,
            file: path.join(dir, `${table.name}-${part}-${process.pid}.csv`)
          }))
        })
        files.push(...queue.map((part) => part.file))

        // Loads run one at a time, in the order parts are read; the first failure stops the readers.
        let loading: Promise<unknown> = Promise.resolve()
        let failed = false
        const load = (part: Part) => {
          loading = loading.then(() => connection.run(`INSERT INTO ${part.table.name} ${readCsv(part.table, part.file)} ORDER BY ${loadOrder(part.table)}`))
            .then(() => removeFile(part.file))
          loading.catch(() => (failed = true))
        }
        const read = async (reader: pg.Client) => {
          for (let part = queue.shift(); part !== undefined && !failed; part = queue.shift()) {
            const { table } = part
            const started = performance.now()
            try {
              if (table.rebuildWithHashJoins) await reader.query(HASH_JOINS_ONLY)
              // Counted after the await: the other reader adds to the same table's count meanwhile.
              const count = await copyToFile(reader, table.select(part.where), part.file)
              rows[table.name] = (rows[table.name] ?? 0) + count
              if (table.rebuildWithHashJoins) await reader.query(PLANNER_JOINS)
            } catch (error) {
              failed = true
              throw error
            }
            readMs[table.name] = Math.round((readMs[table.name] ?? 0) + performance.now() - started)
            load(part)
          }
        }
        const reading = await Promise.allSettled([client, ...helpers].map(read))
        const readFailure = reading.find((outcome) => outcome.status === "rejected")
        if (readFailure) {
          // The DuckDB connection closes after this: let the load in progress end first.
          await loading.catch(() => {})
          throw readFailure.reason
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
    for (const helper of helpers) await helper.end().catch(() => {})
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
