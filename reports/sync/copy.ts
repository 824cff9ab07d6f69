// DuckDB (≈ 30 MiB resident once loaded) is imported when a store is first opened, not with the
// module: most processes that load this code never open one (an API process without reports).
import type { DuckDBConnection } from "@duckdb/node-api"
import * as fs from "node:fs"
import { pipeline } from "node:stream/promises"
import type pg from "pg"
import { to as copyTo } from "pg-copy-streams"

/**
 * What a full rebuild and an incremental refresh share to move rows from PostgreSQL into the
 * store: a REPEATABLE READ snapshot, `COPY ... TO STDOUT (FORMAT csv)` into a file, DuckDB's
 * own reader over that file, and the clean-up of the files left behind.
 */

/** Transactions longer than this that commit after a sync's snapshot are caught by the nightly rebuild. */
export const OVERLAP_MS = 2 * 60_000

/** No extension is ever downloaded or loaded on demand: the store uses DuckDB's built-ins only. */
export const DUCKDB_OPTIONS = { autoinstall_known_extensions: "false", autoload_known_extensions: "false" } as const

/**
 * The session of a sync's transaction: instants are written as timestamptz text in UTC
 * (tables/types.ts); the denormalizing joins and sorts of a full rebuild want more memory than a
 * web request's default.
 */
export const SNAPSHOT_SETTINGS = "set local timezone = 'UTC'; set local work_mem = '256MB'"

/** Runs `body` in one snapshot of PostgreSQL; returns its result and the snapshot's clock. */
export const inSnapshot = async <A>(client: pg.Client, body: () => Promise<A>): Promise<{ result: A; at: string }> => {
  await client.query("begin isolation level repeatable read")
  try {
    await client.query(SNAPSHOT_SETTINGS)
    const { rows } = await client.query<{ now: Date }>("select now() as now")
    const result = await body()
    await client.query("commit")
    return { result, at: rows[0]!.now.toISOString() }
  } catch (error) {
    await client.query("rollback").catch(() => {})
    throw error
  }
}

/**
 * Rows per row group in a store file (DuckDB's default is 122,880). A query skips row groups by
 * their zone maps, so smaller ones let a first detail page sorted by date read a few thousand
 * rows of the business's newest instead of a quarter of a million. Measured on the 5-million
 * store: the `closed_at-` pages 5.9 → 3.2 ms and 7.3 → 3.8 ms raw, the grouped queries within
 * ±10 % either way, the file 1–7 % larger (docs/benchmarks.md).
 */
export const ROW_GROUP_SIZE = 16_384

/**
 * Runs `body` on a DuckDB connection whose default database is `file` (":memory:" for none).
 * A file is attached rather than opened, as only ATTACH takes a row group size; its spill files
 * go next to it.
 */
export const withDuckDB = async <A>(file: string, body: (connection: DuckDBConnection) => Promise<A>): Promise<A> => {
  const { DuckDBInstance } = await import("@duckdb/node-api")
  const instance = await DuckDBInstance.create(":memory:", DUCKDB_OPTIONS)
  try {
    const connection = await instance.connect()
    try {
      if (file !== ":memory:") {
        await connection.run(`SET temp_directory = ${literal(`${file}.tmp`)}`)
        await connection.run(`ATTACH ${literal(file)} AS store (ROW_GROUP_SIZE ${ROW_GROUP_SIZE})`)
        await connection.run("USE store")
      }
      return await body(connection)
    } finally {
      connection.closeSync()
    }
  } finally {
    instance.closeSync()
  }
}

/** Streams a PostgreSQL query into a CSV file; returns the row count. */
export const copyToFile = async (client: pg.Client, select: string, file: string): Promise<number> => {
  const stream = client.query(copyTo(`COPY (${select}) TO STDOUT (FORMAT csv)`))
  await pipeline(stream, fs.createWriteStream(file))
  return stream.rowCount
}

/**
 * DuckDB's reader over PostgreSQL's CSV: explicit column types (nothing sniffed), and
 * `allow_quoted_nulls = false` because PostgreSQL writes NULL as an empty field and the
 * empty string as `""`.
 */
export const readCsv = (columns: ReadonlyArray<readonly [string, string]>, file: string) => {
  const types = columns.map(([name, type]) => `'${name}': '${type.replace(/ NOT NULL$/, "")}'`).join(", ")
  return `SELECT * FROM read_csv(${literal(file)}, header = false, auto_detect = false, allow_quoted_nulls = false, ` +
    `delim = ',', quote = '"', escape = '"', columns = {${types}})`
}

/** A SQL string literal of one of our own paths. */
export const literal = (text: string) => `'${text.replaceAll("'", "''")}'`

export const removeFile = (file: string) => {
  fs.rmSync(file, { force: true })
  fs.rmSync(`${file}.wal`, { force: true })
}
