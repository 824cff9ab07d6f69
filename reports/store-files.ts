import type { DuckDBInstance } from "@duckdb/node-api"
import * as os from "node:os"
import type { AppConfigShape } from "../src/platform/config.ts"
import { DUCKDB_OPTIONS } from "./sync/copy.ts"

/** How a reader opens a generation's file: DuckDB's settings, limits, and the two instances. */

/**
 * Readers cannot write, download extensions nor touch other files: compiled queries only
 * read the store, and a mistake cannot turn into file access (but for the export folder, below). A query without ORDER BY reads
 * rows in the table's order (DuckDB's default, relied on by pages of the newest rows).
 */
export const READER_OPTIONS = {
  ...DUCKDB_OPTIONS,
  access_mode: "READ_ONLY",
  enable_external_access: "false",
  preserve_insertion_order: "true"
} as const

/**
 * What the main reader of a generation may use: without a limit DuckDB takes 80 % of
 * the machine's memory and every core, and one query of 50,000 columns reached 18.8 GiB. A query
 * that needs more fails (a 500, logged) instead of taking the API process and its neighbours.
 * 2 GB is several times what the largest report of the 5-million store needs; threads beyond 4
 * gain little on report pages and take cores from the requests served beside them.
 */
export interface ReaderLimits {
  /** DuckDB size, e.g. `2GB`. */
  readonly memoryLimit: string
  readonly threads: number
}
export const READER_LIMITS: ReaderLimits = { memoryLimit: "2GB", threads: Math.min(4, os.availableParallelism()) }

/**
 * DuckDB's allocator (its own jemalloc) keeps what a query freed in per-thread caches until
 * 128 MiB were allocated, and returns memory to the system later still: a CSV export of a
 * million rows, read range by range in a few MiB each (reports/export-ranges.ts), still grew
 * the API process by 83–120 MiB. Flushed after 4 MiB, with jemalloc's background threads
 * returning freed pages, the same export grew it by 17–41 MiB (docs/benchmarks.md).
 */
const ALLOCATOR_OPTIONS = {
  allocator_flush_threshold: "4MB",
  allocator_bulk_deallocation_flush_threshold: "4MB",
  allocator_background_threads: "true"
} as const

export const readerLimits = (config: AppConfigShape): ReaderLimits => ({
  memoryLimit: config.reportReaderMemoryLimit ?? READER_LIMITS.memoryLimit,
  threads: config.reportReaderThreads ?? READER_LIMITS.threads
})

/**
 * The generation's second instance, on the same file, for small statements (a first page of
 * the newest rows, its bound): one thread. A query of a few hundred stored rows spends more
 * handing its work to another thread and waiting for it than it saves (0.5 → 0.3 ms for the
 * newest invoices' page on the 5-million store). Its memory is bounded: it reads small tables.
 */
export const QUICK_READER_OPTIONS = { ...READER_OPTIONS, threads: "1", memory_limit: "256MB" } as const

/** A generation's two instances: `instance` for every query, `quick` for small statements. */
export interface StoreInstances {
  readonly instance: DuckDBInstance
  readonly quick: DuckDBInstance
}

/**
 * Opens a store file read-only, as readers do (the benchmark's raw side too). `writable`: the
 * folders the main instance may write files into (a Parquet export's temporary file), and no
 * other. DuckDB takes `allowed_directories` only while external access is on and refuses to
 * turn it back on, so the instance opens with it, is given the folders and then turned off,
 * before any query runs on it.
 */
export const openStoreFile = async (file: string, limits: ReaderLimits = READER_LIMITS, writable: ReadonlyArray<string> = []): Promise<StoreInstances> => {
  const { DuckDBInstance } = await import("@duckdb/node-api")
  const { enable_external_access: _, ...opened } = READER_OPTIONS
  const instance = await DuckDBInstance.create(file, { ...opened, ...ALLOCATOR_OPTIONS, memory_limit: limits.memoryLimit, threads: String(limits.threads) })
  try {
    const setup = await instance.connect()
    try {
      if (writable.length > 0) {
        const folders = writable.map((dir) => `'${(dir.endsWith("/") ? dir : `${dir}/`).replaceAll("'", "''")}'`)
        await setup.run(`SET allowed_directories = [${folders.join(", ")}]`)
      }
      await setup.run("SET enable_external_access = false")
    } finally {
      setup.closeSync()
    }
    return { instance, quick: await DuckDBInstance.create(file, QUICK_READER_OPTIONS) }
  } catch (error) {
    instance.closeSync()
    throw error
  }
}
