import type { DuckDBConnection } from "@duckdb/node-api"
import * as path from "node:path"
import type pg from "pg"
import { copyToFile, readCsv, removeFile } from "./copy.ts"

/**
 * A full rebuild builds the store's tables in DuckDB, from copies of the PostgreSQL tables they
 * read (the mirrors): PostgreSQL only streams its rows out with COPY, which costs it little, and
 * the denormalizing joins run on DuckDB's vectorized engine, where they cost several times less
 * than in PostgreSQL's row-at-a-time executor (docs/decisions.md, Scaling). The mirrors live in
 * a file of the build's own, removed when the store is built, never in the store.
 *
 * Only the tables of this list that the report tables' SQL names are mirrored, and of them only
 * the columns it names, of plain types: no token hashes, secrets or payloads ever leave
 * PostgreSQL.
 */
export const MIRRORED_TABLES = [
  "account_credit_entries",
  "accounts",
  "bookings",
  "businesses",
  "coupons",
  "custom_field_options",
  "custom_fields",
  "event_occurrence_staff_members",
  "event_occurrences",
  "forms_of_payment",
  "invoice_item_adjustments",
  "invoice_item_recipients",
  "invoice_items",
  "invoices",
  "leases",
  "locations",
  "make_ups",
  "membership_billing_periods",
  "payments",
  "pays",
  "people",
  "person_custom_field_selections",
  "person_custom_field_values",
  "person_relationships",
  "plan_holds",
  "plan_people",
  "plan_products",
  "plan_terms",
  "plans",
  "punches",
  "refunds",
  "revenue_categories",
  "service_categories",
  "services",
  "staff_members",
  "visits",
  "waitlist_entries",
  "waivers"
] as const

/** PostgreSQL's type (as `format_type` names it) → DuckDB's; a type not listed is not mirrored. */
const duckType = (pgType: string): string | undefined => {
  if (pgType === "bigint") return "BIGINT"
  if (pgType === "integer") return "INTEGER"
  if (pgType === "smallint") return "SMALLINT"
  if (pgType === "boolean") return "BOOLEAN"
  if (pgType === "text" || pgType === "citext" || pgType.startsWith("character")) return "VARCHAR"
  if (pgType === "date") return "DATE"
  if (pgType === "timestamp with time zone") return "TIMESTAMPTZ"
  if (pgType === "timestamp without time zone") return "TIMESTAMP"
  if (pgType === "time without time zone") return "TIME"
  if (pgType === "double precision") return "DOUBLE"
  const numeric = /^numeric\((\d+),(\d+)\)$/.exec(pgType)
  if (numeric) return `DECIMAL(${numeric[1]},${numeric[2]})`
  return undefined
}

/** A mirrored column: its name and DuckDB type. */
type MirroredColumn = readonly [name: string, type: string]

/**
 * The mirrored tables and their columns, from PostgreSQL's catalog (in the sync's snapshot):
 * those named in `sql` as a word, which any table or column the SQL reads is.
 */
const mirroredColumns = async (client: pg.Client, sql: string): Promise<ReadonlyMap<string, ReadonlyArray<MirroredColumn>>> => {
  const words = new Set(sql.toLowerCase().match(/[a-z_][a-z0-9_]*/g))
  const tables = MIRRORED_TABLES.filter((table) => words.has(table))
  const { rows } = await client.query<{ table: string; column: string; type: string }>(
    `select c.relname as table, a.attname as column, format_type(a.atttypid, a.atttypmod) as type
       from pg_attribute a join pg_class c on c.oid = a.attrelid
      where c.relnamespace = 'public'::regnamespace and c.relname = any($1) and a.attnum > 0 and not a.attisdropped
      order by c.relname, a.attnum`,
    [tables]
  )
  const columns = new Map<string, Array<MirroredColumn>>()
  for (const row of rows) {
    const type = duckType(row.type)
    if (type === undefined || !words.has(row.column)) continue
    const list = columns.get(row.table) ?? []
    list.push([row.column, type])
    columns.set(row.table, list)
  }
  const missing = tables.filter((table) => !columns.has(table))
  if (missing.length > 0) throw new Error(`tables to mirror are missing from PostgreSQL: ${missing.join(", ")}`)
  return columns
}

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`

/**
 * Copies every mirrored table into `connection`'s current database: each reader (connections
 * sharing the sync's snapshot) streams one table at a time into a CSV file, and DuckDB loads the
 * files in the order they are written, one at a time. `sql` is what will run on the mirrors.
 */
export const mirrorTables = async (
  readers: ReadonlyArray<pg.Client>,
  connection: DuckDBConnection,
  dir: string,
  sql: string
): Promise<void> => {
  const columns = await mirroredColumns(readers[0]!, sql)
  const queue = [...columns.keys()]
  const files: Array<string> = []
  let loading: Promise<unknown> = Promise.resolve()
  let failed = false
  const read = async (reader: pg.Client) => {
    for (let table = queue.shift(); table !== undefined && !failed; table = queue.shift()) {
      const list = columns.get(table)!
      const file = path.join(dir, `mirror-${table}-${process.pid}.csv`)
      files.push(file)
      try {
        await copyToFile(reader, `select ${list.map(([name]) => quoted(name)).join(", ")} from ${quoted(table)}`, file)
      } catch (error) {
        failed = true
        throw error
      }
      loading = loading
        .then(() => connection.run(`CREATE TABLE ${quoted(table)} AS ${readCsv(list, file)}`))
        .then(() => removeFile(file))
      loading.catch(() => (failed = true))
    }
  }
  try {
    const reading = await Promise.allSettled(readers.map(read))
    const readFailure = reading.find((outcome) => outcome.status === "rejected")
    if (readFailure) {
      await loading.catch(() => {})
      throw readFailure.reason
    }
    await loading
  } finally {
    for (const file of files) removeFile(file)
  }
}
