import { Option, Schema } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"

/**
 * The report store on disk: `{dir}/store-<n>.duckdb`, one file per generation, and
 * `{dir}/current.json`, which names the generation readers use. A generation is written
 * completely (checkpointed and closed) before `current.json` is replaced by an atomic
 * rename, so a reader only ever opens a finished store. DuckDB lets one process write a file
 * or many read it, never both: writers therefore always write a new file, and a generation
 * is never written again once published.
 */

export const CurrentGeneration = Schema.Struct({
  generation: Schema.Int,
  file: Schema.String,
  /** PostgreSQL's clock at the snapshot the generation was read in: the next refresh starts there. */
  synced_at: Schema.String,
  /** When the last full rebuild in its lineage ran. */
  rebuilt_at: Schema.String,
  mode: Schema.Literals(["full", "incremental"]),
  /** A digest of the tables' columns: a store of another shape is rebuilt, not refreshed. */
  schema: Schema.String,
  /**
   * A digest of the SQL the rows were read with: a store read by another release's SQL (a field
   * computed anew) is rebuilt by the next sync, and read meanwhile. Absent: written before it existed.
   */
  rows: Schema.optional(Schema.String)
})
export type CurrentGeneration = typeof CurrentGeneration.Type
const decodeCurrent = Schema.decodeUnknownOption(Schema.fromJsonString(CurrentGeneration))

export const POINTER = "current.json"
const STORE_FILE = /^store-(\d+)\.duckdb(\.wal)?$/

export const storeFile = (generation: number) => `store-${generation}.duckdb`

/** The published generation; undefined before the first sync (or when the pointer is unreadable). */
export const readCurrent = (dir: string): CurrentGeneration | undefined => {
  let text: string
  try {
    text = fs.readFileSync(path.join(dir, POINTER), "utf8")
  } catch {
    return undefined
  }
  return Option.getOrUndefined(decodeCurrent(text))
}

/**
 * `readCurrent` for a reader that asks on every query: the pointer is read and decoded again
 * only when its file changed (publishing renames a new file over it, so its inode changes).
 */
export const makeCurrentReader = (dir: string) => {
  const file = path.join(dir, POINTER)
  let seen: { readonly ino: number; readonly mtimeMs: number; readonly size: number } | undefined
  let current: CurrentGeneration | undefined
  return (): CurrentGeneration | undefined => {
    const stat = fs.statSync(file, { throwIfNoEntry: false })
    if (stat === undefined) {
      seen = undefined
      return (current = undefined)
    }
    if (seen && seen.ino === stat.ino && seen.mtimeMs === stat.mtimeMs && seen.size === stat.size) return current
    seen = { ino: stat.ino, mtimeMs: stat.mtimeMs, size: stat.size }
    return (current = readCurrent(dir))
  }
}

/** Publishes a finished generation: readers switch to it on their next query. */
export const publish = (dir: string, current: CurrentGeneration) => {
  const temporary = path.join(dir, `${POINTER}.${process.pid}.tmp`)
  fs.writeFileSync(temporary, JSON.stringify(current, null, 2))
  fs.renameSync(temporary, path.join(dir, POINTER))
}

/** The number for a new generation: above every file present, published or left by a crash. */
export const nextGeneration = (dir: string): number => {
  let highest = readCurrent(dir)?.generation ?? 0
  for (const name of fs.readdirSync(dir)) {
    const match = STORE_FILE.exec(name)
    if (match) highest = Math.max(highest, Number(match[1]))
  }
  return highest + 1
}

/** A full rebuild's mirror file (full-rebuild.ts), and its write-ahead log. */
const MIRROR_FILE = /^mirror-\d+\.duckdb(\.wal)?$/

/**
 * Deletes generations older than the previous one. The previous one stays: a reader that read
 * `current.json` just before the switch may still be opening it. (A reader that has a file
 * open keeps reading it after deletion; the space is freed when it closes.) Leftovers of
 * interrupted syncs go too. Runs under the sync lock, so no other sync is writing here.
 */
export const removeOldGenerations = (dir: string, current: number) => {
  for (const name of fs.readdirSync(dir)) {
    const match = STORE_FILE.exec(name)
    // Files above the current generation, CSV files, mirrors and spill folders are leftovers of
    // a sync that crashed before publishing (syncs of one folder never overlap: sync.ts).
    const stale = match
      ? Number(match[1]) < current - 1 || Number(match[1]) > current
      : name.endsWith(".csv") || name.endsWith(".tmp") || MIRROR_FILE.test(name)
    if (stale) fs.rmSync(path.join(dir, name), { force: true, recursive: true })
  }
}
