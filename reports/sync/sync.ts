import * as fs from "node:fs"
import type { SyncSummary } from "./summary.ts"
import * as path from "node:path"
import { connectClient } from "../../src/platform/pg-client.ts"
import { fullRebuild } from "./full-rebuild.ts"
import { readCurrent } from "./generations.ts"
import { incrementalRefresh } from "./incremental-refresh.ts"
import { STORE_ROWS, STORE_SCHEMA } from "./store-tables.ts"

/**
 * Builds the report store from PostgreSQL.
 *
 * - `full`: every table read in one REPEATABLE READ snapshot, streamed out with
 *   `COPY (SELECT ...) TO STDOUT (FORMAT csv)` into a temporary file and loaded with DuckDB's
 *   own `read_csv` (explicit columns, no extensions), into a new generation file that is
 *   checkpointed, closed, then published.
 * - `incremental`: the plans, people and event occurrences whose rows may have changed since the
 *   current generation's snapshot (minus an overlap for transactions that committed late) are read again. When
 *   their rows differ from the store's, the current file is copied to a new generation, the
 *   rows are replaced there, and it is published. When nothing differs only the watermark
 *   moves, so quiet minutes cost no copy. A store written by a release with other tables
 *   (`STORE_SCHEMA`) or other extraction SQL (`STORE_ROWS`), or none at all, is rebuilt in
 *   full instead.
 *
 * Syncs are serialized by a PostgreSQL advisory lock (the worker's queue, the CLI and a
 * second worker process all take it). PostgreSQL is read through `pg`, not the Effect SQL
 * client, because streaming COPY needs pg-copy-streams.
 */

export type SyncMode = "full" | "incremental"

export interface SyncOptions {
  readonly databaseUrl: string
  /** `{DATA_DIR}/reports` */
  readonly dir: string
  readonly mode: SyncMode
}

export const syncReports = async (options: SyncOptions): Promise<SyncSummary> => {
  const started = performance.now()
  fs.mkdirSync(options.dir, { recursive: true })
  const connect = () => connectClient({ connectionString: options.databaseUrl, application_name: "studio-report-sync" })
  const client = await connect()
  try {
    await client.query("select pg_advisory_lock(hashtext('studio:report_sync'))")
    const releaseDir = lockDirectory(options.dir)
    try {
      const current = readCurrent(options.dir)
      const result =
        options.mode === "incremental" &&
        current &&
        current.schema === STORE_SCHEMA &&
        current.rows === STORE_ROWS &&
        fs.existsSync(path.join(options.dir, current.file))
          ? await incrementalRefresh(client, options.dir, current)
          : await fullRebuild(client, options.dir, connect)
      return { ...result, duration_ms: Math.round(performance.now() - started) }
    } finally {
      releaseDir()
      await client.query("select pg_advisory_unlock(hashtext('studio:report_sync'))").catch(() => {})
    }
  } finally {
    await client.end()
  }
}

/** What the full rebuild or the incremental refresh returns; the entry adds the duration. */

/** A lock older than this was left by a sync that died: no sync runs this long. */
const STALE_LOCK_MS = 30 * 60_000

/**
 * The advisory lock serializes the syncs of one database. This file guards the directory as
 * well, against two databases pointed at one DATA_DIR (a misconfiguration, or test servers
 * sharing a folder): the second sync fails, and its job is retried, rather than both writing
 * generations at once.
 */
const lockDirectory = (dir: string): (() => void) => {
  const file = path.join(dir, "sync.lock")
  try {
    fs.writeFileSync(file, `${process.pid}\n`, { flag: "wx" })
  } catch (error) {
    const age = Date.now() - (fs.statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? 0)
    if ((error as NodeJS.ErrnoException).code !== "EEXIST" || age < STALE_LOCK_MS) {
      throw new Error(`another sync is writing the report store in ${dir}`, { cause: error })
    }
    fs.writeFileSync(file, `${process.pid}\n`)
  }
  return () => fs.rmSync(file, { force: true })
}
