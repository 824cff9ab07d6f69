import * as fs from "node:fs"
import * as path from "node:path"
import { literal, withDuckDB } from "./copy.ts"
import { readCurrent } from "./generations.ts"
import { MONTHLY_METRICS_TABLE } from "./monthly-metrics.ts"
import type { SyncSummary } from "./summary.ts"

/**
 * What the report store holds, for `studio sync` to say after a run: the published
 * generation, when it was built (its file is written once, then only read), the last full
 * rebuild in its lineage, and the rows of each report resource. A sync that
 * changed nothing says so next to these counts, so a quiet minute no longer reads as an empty
 * store.
 */

/** The store tables behind the Reporting API's resources. */
export const STORE_RESOURCES = [
  "clients",
  "enrollments",
  "event_occurrences",
  "event_occurrence_staff_members",
  "person_plans",
  "invoices",
  "invoice_items",
  "invoice_item_transactions",
  MONTHLY_METRICS_TABLE,
  "pays",
  "transactions",
  "staff_members"
] as const

export interface StoreStatus {
  readonly generation: number
  readonly built_at: string
  readonly age_seconds: number
  readonly last_full_rebuild_at: string
  readonly rows: Readonly<Record<string, number>>
}

/** The published generation's status; undefined before the first sync. */
export const storeStatus = async (dir: string, now = Date.now()): Promise<StoreStatus | undefined> => {
  const current = readCurrent(dir)
  if (current === undefined) return undefined
  const file = path.join(dir, current.file)
  const built = fs.statSync(file).mtimeMs
  const rows = await withDuckDB(":memory:", async (connection) => {
    // Read-only, as the API's readers open it: a published generation is never written again.
    await connection.run(`ATTACH ${literal(file)} AS published (READ_ONLY)`)
    const reader = await connection.runAndReadAll(
      STORE_RESOURCES.map((table) => `SELECT '${table}' AS name, count(*) AS n FROM published.${table}`).join(" UNION ALL ")
    )
    const counts = Object.fromEntries(reader.getRows().map(([name, n]) => [String(name), Number(n)]))
    return Object.fromEntries(STORE_RESOURCES.map((table) => [table, counts[table] ?? 0]))
  })
  return {
    generation: current.generation,
    built_at: new Date(built).toISOString(),
    age_seconds: Math.max(0, Math.round((now - built) / 1000)),
    last_full_rebuild_at: current.rebuilt_at,
    rows
  }
}

const ago = (seconds: number) =>
  seconds < 120 ? `${seconds} s` : seconds < 7200 ? `${Math.round(seconds / 60)} min` : seconds < 172_800 ? `${Math.round(seconds / 3600)} h` : `${Math.round(seconds / 86_400)} days`

const counted = (rows: Readonly<Record<string, number>>) =>
  Object.entries(rows)
    .filter(([, n]) => n > 0)
    .map(([name, n]) => `${n} ${name}`)
    .join(", ")

/** One line: what this run did, and what the store holds. */
export const describeSync = (summary: SyncSummary, status: StoreStatus | undefined): string => {
  const did =
    summary.outcome === "full"
      ? `rebuilt the store in full as generation ${summary.generation}`
      : summary.outcome === "unchanged"
        ? `nothing changed since the last sync; generation ${summary.generation} still serves`
        : `refreshed the rows that changed (${counted(summary.rows) || "none"}) into generation ${summary.generation}`
  if (status === undefined) return did
  const holds = counted(status.rows) || "no rows"
  return `${did}; built ${ago(status.age_seconds)} ago, it holds ${holds}`
}
