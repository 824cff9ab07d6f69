// DuckDB (≈ 30 MiB resident once loaded) is imported when a store is first opened, not with the
// module: most processes that load this code never open one (an API process without reports).
import type { DuckDBConnection } from "@duckdb/node-api"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { pipeline } from "node:stream/promises"
import pg from "pg"
import { to as copyTo } from "pg-copy-streams"
import {
  type CurrentGeneration,
  nextGeneration,
  publish,
  readCurrent,
  removeOldGenerations,
  storeFile
} from "./generations.ts"
import { changedPeopleSql, clientsTable, customFieldsTable } from "./tables/clients.ts"
import { enrollmentsTable } from "./tables/enrollments.ts"
import { changedPlansSql, changedProductHoldersSql, turnedDayHoldersSql } from "./tables/plans.ts"
import { eventOccurrenceStaffMembersTable } from "./tables/event-occurrence-staff-members.ts"
import { changedOccurrencesSql, eventOccurrencesTable } from "./tables/event-occurrences.ts"
import { changedPersonPlanSourcesSql, personPlansChangedWhere, personPlansScopeSql, personPlansTable } from "./tables/person-plans.ts"
import { changedInvoicesSql, invoicesTable } from "./tables/invoices.ts"
import { createTableSql, type StoreTable } from "./tables/types.ts"

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

export interface SyncSummary {
  /** `unchanged`: an incremental refresh that found nothing to apply. */
  readonly outcome: "full" | "incremental" | "unchanged"
  readonly generation: number
  /** Rows written per table (the changed rows for an incremental refresh). */
  readonly rows: Readonly<Record<string, number>>
  readonly synced_at: string
  readonly duration_ms: number
}

/** Transactions longer than this that commit after a sync's snapshot are caught by the nightly rebuild. */
export const OVERLAP_MS = 2 * 60_000

/** No extension is ever downloaded or loaded on demand: the store uses DuckDB's built-ins only. */
export const DUCKDB_OPTIONS = { autoinstall_known_extensions: "false", autoload_known_extensions: "false" } as const

const TABLES: ReadonlyArray<StoreTable> = [
  clientsTable,
  customFieldsTable,
  eventOccurrencesTable,
  eventOccurrenceStaffMembersTable,
  enrollmentsTable,
  personPlansTable,
  invoicesTable
]

const digest = (parts: ReadonlyArray<string>) => createHash("sha256").update(parts.join(";")).digest("hex").slice(0, 16)

/** Changes when a release changes the store's tables: the next sync then rebuilds in full. */
export const STORE_SCHEMA = digest(TABLES.map(createTableSql))

/**
 * Changes when a release changes how rows are read (a field once a constant now read from
 * plans, say): the next sync rebuilds in full, while readers keep the store they have.
 */
export const STORE_ROWS = digest(TABLES.map((table) => table.select("true")))

export const syncReports = async (options: SyncOptions): Promise<SyncSummary> => {
  const started = performance.now()
  fs.mkdirSync(options.dir, { recursive: true })
  const client = new pg.Client({ connectionString: options.databaseUrl, application_name: "studio-report-sync" })
  await client.connect()
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
          : await fullRebuild(client, options.dir)
      return { ...result, duration_ms: Math.round(performance.now() - started) }
    } finally {
      releaseDir()
      await client.query("select pg_advisory_unlock(hashtext('studio:report_sync'))").catch(() => {})
    }
  } finally {
    await client.end()
  }
}

type Result = Omit<SyncSummary, "duration_ms">

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

/** Runs `body` in one snapshot of PostgreSQL; returns its result and the snapshot's clock. */
const inSnapshot = async <A>(client: pg.Client, body: () => Promise<A>): Promise<{ result: A; at: string }> => {
  await client.query("begin isolation level repeatable read")
  try {
    // Instants are written as timestamptz text in UTC (tables.ts); the denormalizing joins and
    // sorts of a full rebuild want more memory than a web request's default.
    await client.query("set local timezone = 'UTC'")
    await client.query("set local work_mem = '256MB'")
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
 * The large tables are read from PostgreSQL in parts (by business), so that PostgreSQL writes
 * the next part while DuckDB loads the last one: the two overlap instead of taking turns. Each
 * part is loaded sorted by business, so a query's business filter skips the other businesses'
 * row groups (DuckDB's zone maps).
 */
const PARTS: Readonly<Record<string, number>> = { enrollments: 4, clients: 2 }

/** `ids` in at most `count` consecutive runs of about equal length (one run: the whole table). */
const partition = (ids: ReadonlyArray<string>, count: number): ReadonlyArray<ReadonlyArray<string>> => {
  const n = Math.min(count, ids.length)
  if (n <= 1) return [ids]
  return Array.from({ length: n }, (_, i) => ids.slice(Math.floor((i * ids.length) / n), Math.floor(((i + 1) * ids.length) / n)))
}

const fullRebuild = async (client: pg.Client, dir: string): Promise<Result> => {
  const generation = nextGeneration(dir)
  const target = path.join(dir, storeFile(generation))
  const rows: Record<string, number> = {}
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
            rows[table.name] = (rows[table.name] ?? 0) + (await copyToFile(client, table.select(where), file))
            await loading
            loading = connection.run(`INSERT INTO ${table.name} ${readCsv(table, file)} ORDER BY business_id`).then(() => removeFile(file))
            loading.catch(() => {})
          }
        }
        await loading
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
  return { outcome: "full", generation, rows, synced_at: at }
}

const incrementalRefresh = async (client: pg.Client, dir: string, current: CurrentGeneration): Promise<Result> => {
  const since = new Date(Date.parse(current.synced_at) - OVERLAP_MS)
  const csv: Record<string, string> = Object.fromEntries(TABLES.map((table) => [table.name, path.join(dir, `${table.name}-${process.pid}.csv`)]))
  const occurrences = eventOccurrencesTable.name
  const staff = eventOccurrenceStaffMembersTable.name
  const enrollments = enrollmentsTable.name
  const invoices = invoicesTable.name
  const personPlans = personPlansTable.name
  // The (business, plan) and (business, person) pairs whose person_plans rows are re-read.
  const scopeCsv = path.join(dir, `person_plans_scope-${process.pid}.csv`)
  try {
    const { result: changed, at } = await inSnapshot(client, async () => {
      await client.query("create temporary table report_changed_plans (business_id bigint, id bigint) on commit drop")
      await client.query(`insert into report_changed_plans ${changedPlansSql}`, [since])
      // Plans whose person_plans rows alone may have changed (terms, invoices): not the holders' enrollments.
      await client.query("create temporary table report_changed_person_plans (business_id bigint, id bigint) on commit drop")
      await client.query(`insert into report_changed_person_plans ${changedPersonPlanSourcesSql}`, [since])
      await client.query("create temporary table report_changed_people (business_id bigint, id bigint) on commit drop")
      await client.query(`insert into report_changed_people ${changedPeopleSql}`, [since])
      // People whose client row alone may have changed (their enrollments did not): holders of
      // plans whose product was edited, or whose plans' standing turned with the day.
      await client.query("create temporary table report_changed_clients (business_id bigint, id bigint) on commit drop")
      await client.query(`insert into report_changed_clients ${changedProductHoldersSql} union ${turnedDayHoldersSql}`, [since])
      await client.query("create temporary table report_changed_occurrences (business_id bigint, id bigint) on commit drop")
      await client.query(`insert into report_changed_occurrences ${changedOccurrencesSql}`, [since])
      const changedOccurrence = "(o.business_id, o.id) in (select business_id, id from report_changed_occurrences)"
      await client.query("create temporary table report_changed_invoices (business_id bigint, id bigint) on commit drop")
      await client.query(`insert into report_changed_invoices ${changedInvoicesSql}`, [since])
      return {
        clients: await copyToFile(
          client,
          clientsTable.select(
            "(p.business_id, p.id) in (select business_id, id from report_changed_people union select business_id, id from report_changed_clients)"
          ),
          csv.clients!
        ),
        custom_fields: await copyToFile(client, customFieldsTable.select("true"), csv.custom_fields!),
        [occurrences]: await copyToFile(client, eventOccurrencesTable.select(changedOccurrence), csv[occurrences]!),
        [staff]: await copyToFile(client, eventOccurrenceStaffMembersTable.select(changedOccurrence), csv[staff]!),
        [enrollments]: await copyToFile(client, enrollmentsTable.select(changedOccurrence), csv[enrollments]!),
        [personPlans]: await copyToFile(client, personPlansTable.select(personPlansChangedWhere), csv[personPlans]!),
        scope: await copyToFile(client, personPlansScopeSql, scopeCsv),
        [invoices]: await copyToFile(
          client,
          invoicesTable.select("(i.business_id, i.id) in (select business_id, id from report_changed_invoices)"),
          csv[invoices]!
        )
      }
    })

    // Rows are replaced per changed person or occurrence: an occurrence's staff and enrollment
    // rows all go together, so a staff member taken off it, or a deleted visit, disappears.
    const inChangedOccurrences = (alias: string) =>
      `EXISTS (SELECT 1 FROM fresh_${occurrences} f WHERE f.business_id = ${alias}.business_id AND f.event_occurrence_id = ${alias}.event_occurrence_id)`
    const inPersonPlansScope = (alias: string) =>
      `EXISTS (SELECT 1 FROM person_plans_scope s WHERE s.business_id = ${alias}.business_id AND (s.plan_id = ${alias}.plan_id OR s.person_id = ${alias}.person_id))`
    const loadFresh = async (connection: DuckDBConnection, temporary: boolean) => {
      for (const table of TABLES) {
        await connection.run(`CREATE ${temporary ? "TEMPORARY " : ""}TABLE fresh_${table.name} AS ${readCsv(table, csv[table.name]!)}`)
      }
      await connection.run(`CREATE ${temporary ? "TEMPORARY " : ""}TABLE person_plans_scope AS ${readCsv(personPlansScopeTable, scopeCsv)}`)
    }

    // Compare with the store first: most minutes change nothing, and then no copy is made.
    const differs = await withDuckDB(":memory:", async (connection) => {
      await connection.run(`ATTACH ${literal(path.join(dir, current.file))} AS cur (READ_ONLY)`)
      await loadFresh(connection, false)
      const reader = await connection.runAndReadAll(`SELECT
          (SELECT count(*) FROM (SELECT * FROM fresh_clients EXCEPT SELECT c.* FROM cur.clients c SEMI JOIN fresh_clients f ON f.key = c.key))
        + (SELECT count(*) FROM (SELECT * FROM fresh_custom_fields EXCEPT SELECT * FROM cur.custom_fields))
        + (SELECT count(*) FROM (SELECT * FROM cur.custom_fields EXCEPT SELECT * FROM fresh_custom_fields))
        + (SELECT count(*) FROM (SELECT * FROM fresh_${occurrences}
                                 EXCEPT SELECT c.* FROM cur.${occurrences} c SEMI JOIN fresh_${occurrences} f ON f.key = c.key))
        + (SELECT count(*) FROM (SELECT * FROM fresh_${staff} EXCEPT SELECT * FROM cur.${staff} c WHERE ${inChangedOccurrences("c")}))
        + (SELECT count(*) FROM (SELECT * FROM cur.${staff} c WHERE ${inChangedOccurrences("c")} EXCEPT SELECT * FROM fresh_${staff}))
        + (SELECT count(*) FROM (SELECT * FROM fresh_${enrollments} EXCEPT SELECT * FROM cur.${enrollments} c WHERE ${inChangedOccurrences("c")}))
        + (SELECT count(*) FROM (SELECT * FROM cur.${enrollments} c WHERE ${inChangedOccurrences("c")} EXCEPT SELECT * FROM fresh_${enrollments}))
        + (SELECT count(*) FROM (SELECT * FROM fresh_${personPlans} EXCEPT SELECT * FROM cur.${personPlans} c WHERE ${inPersonPlansScope("c")}))
        + (SELECT count(*) FROM (SELECT * FROM cur.${personPlans} c WHERE ${inPersonPlansScope("c")} EXCEPT SELECT * FROM fresh_${personPlans}))
        + (SELECT count(*) FROM (SELECT * FROM fresh_${invoices}
                                 EXCEPT SELECT c.* FROM cur.${invoices} c SEMI JOIN fresh_${invoices} f ON f.key = c.key))`)
      return Number(reader.getRows()[0]?.[0] ?? 0) > 0
    })
    if (!differs) {
      // Only the watermark moves; readers keep the file they have.
      publish(dir, { ...current, synced_at: at })
      return {
        outcome: "unchanged",
        generation: current.generation,
        rows: { clients: 0, [occurrences]: 0, [staff]: 0, [enrollments]: 0, [personPlans]: 0, [invoices]: 0 },
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
        await loadFresh(connection, true)
        await connection.run("DELETE FROM clients WHERE key IN (SELECT key FROM fresh_clients)")
        await connection.run("INSERT INTO clients SELECT * FROM fresh_clients")
        await connection.run("DELETE FROM custom_fields")
        await connection.run("INSERT INTO custom_fields SELECT * FROM fresh_custom_fields")
        await connection.run(`DELETE FROM ${occurrences} WHERE key IN (SELECT key FROM fresh_${occurrences})`)
        await connection.run(`INSERT INTO ${occurrences} SELECT * FROM fresh_${occurrences}`)
        await connection.run(`DELETE FROM ${staff} WHERE ${inChangedOccurrences(staff)}`)
        await connection.run(`INSERT INTO ${staff} SELECT * FROM fresh_${staff}`)
        await connection.run(`DELETE FROM ${enrollments} WHERE ${inChangedOccurrences(enrollments)}`)
        await connection.run(`INSERT INTO ${enrollments} SELECT * FROM fresh_${enrollments}`)
        await connection.run(`DELETE FROM ${personPlans} WHERE ${inPersonPlansScope(personPlans)}`)
        await connection.run(`INSERT INTO ${personPlans} SELECT * FROM fresh_${personPlans}`)
        // Invoices are never deleted nor go back to the cart: a changed one is replaced by key.
        await connection.run(`DELETE FROM ${invoices} WHERE key IN (SELECT key FROM fresh_${invoices})`)
        await connection.run(`INSERT INTO ${invoices} SELECT * FROM fresh_${invoices}`)
        await connection.run("COMMIT")
        await connection.run("CHECKPOINT")
      })
    } catch (error) {
      removeFile(target)
      throw error
    }
    publish(dir, { ...current, generation, file: storeFile(generation), synced_at: at, mode: "incremental" })
    removeOldGenerations(dir, generation)
    const { custom_fields: _, scope: _scope, ...rows } = changed
    return { outcome: "incremental", generation, rows, synced_at: at }
  } finally {
    for (const file of Object.values(csv)) removeFile(file)
    removeFile(scopeCsv)
  }
}

/** The CSV shape of person_plans' refresh scope (personPlansScopeSql). */
const personPlansScopeTable: StoreTable = {
  name: "person_plans_scope",
  businessIdSql: "business_id",
  columns: [["business_id", "BIGINT"], ["plan_id", "BIGINT"], ["person_id", "BIGINT"]],
  select: () => personPlansScopeSql
}

// ---------------------------------------------------------------------------------------------

const withDuckDB = async <A>(file: string, body: (connection: DuckDBConnection) => Promise<A>): Promise<A> => {
  const { DuckDBInstance } = await import("@duckdb/node-api")
  const instance = await DuckDBInstance.create(file, DUCKDB_OPTIONS)
  try {
    const connection = await instance.connect()
    try {
      return await body(connection)
    } finally {
      connection.closeSync()
    }
  } finally {
    instance.closeSync()
  }
}

/** Streams a PostgreSQL query into a CSV file; returns the row count. */
const copyToFile = async (client: pg.Client, select: string, file: string): Promise<number> => {
  const stream = client.query(copyTo(`COPY (${select}) TO STDOUT (FORMAT csv)`))
  await pipeline(stream, fs.createWriteStream(file))
  return stream.rowCount
}

/**
 * DuckDB's reader over PostgreSQL's CSV: explicit column types (nothing sniffed), and
 * `allow_quoted_nulls = false` because PostgreSQL writes NULL as an empty field and the
 * empty string as `""`.
 */
const readCsv = (table: StoreTable, file: string) => {
  const columns = table.columns.map(([name, type]) => `'${name}': '${type.replace(/ NOT NULL$/, "")}'`).join(", ")
  return `SELECT * FROM read_csv(${literal(file)}, header = false, auto_detect = false, allow_quoted_nulls = false, ` +
    `delim = ',', quote = '"', escape = '"', columns = {${columns}})`
}

/** A SQL string literal of one of our own paths. */
const literal = (text: string) => `'${text.replaceAll("'", "''")}'`

const removeFile = (file: string) => {
  fs.rmSync(file, { force: true })
  fs.rmSync(`${file}.wal`, { force: true })
}
