import type { Catalog } from "./catalog.ts"
import { roleOf } from "./check.ts"
import { DISTRIBUTION_COLUMN, NON_TENANT_TABLES } from "./tables.ts"

/**
 * The statements that place the schema on a Citus coordinator (`studio citus-plan`): reference
 * tables first, then tenant tables distributed by business_id in one colocation group, each
 * table after the tables it references (Citus refuses a foreign key to a table it does not manage
 * yet). Foreign keys that close a cycle (visits and punches reference each other) are dropped
 * first and added back once every table is placed. Coordinator-local tables are named in comments
 * only: they need no statement. Expects a schema that passes checkSchema.
 */
export const citusPlan = (catalog: Catalog): ReadonlyArray<string> => {
  const role = roleOf(catalog)
  const placed = catalog.tables.map((t) => t.name).filter((name) => role(name) === "distributed" || role(name) === "reference")
  const local = catalog.tables.map((t) => t.name).filter((name) => role(name) === "coordinator-local")

  const isPlaced = new Set(placed)
  const foreignKeys = catalog.constraints.filter(
    (fk) => fk.type === "f" && fk.referenced_table !== null && fk.referenced_table !== fk.table && isPlaced.has(fk.table) && isPlaced.has(fk.referenced_table)
  )

  // Kahn's algorithm; among the tables whose references are placed, reference tables first, then
  // by name. When none is ready, the first table on a cycle has its keys to unplaced tables deferred.
  const rank = (name: string) => `${role(name) === "reference" ? 0 : 1}:${name}`
  const byRank = (a: string, b: string) => (rank(a) < rank(b) ? -1 : 1)
  const order: Array<string> = []
  const done = new Set<string>()
  const deferred: Array<(typeof foreignKeys)[number]> = []
  const waitsFor = (name: string) => foreignKeys.filter((fk) => fk.table === name && !done.has(fk.referenced_table!) && !deferred.includes(fk))
  const onCycle = (start: string) => {
    const seen = new Set<string>()
    const stack = waitsFor(start).map((fk) => fk.referenced_table!)
    while (stack.length > 0) {
      const name = stack.pop()!
      if (name === start) return true
      if (seen.has(name)) continue
      seen.add(name)
      stack.push(...waitsFor(name).map((fk) => fk.referenced_table!))
    }
    return false
  }
  while (order.length < placed.length) {
    const left = placed.filter((name) => !done.has(name)).sort(byRank)
    const next = left.find((name) => waitsFor(name).length === 0) ?? left.find(onCycle)!
    deferred.push(...waitsFor(next))
    order.push(next)
    done.add(next)
  }

  const anchor = order.find((name) => role(name) === "distributed")
  const lines: Array<string> = [
    "-- Placement of the Studio Service schema on a Citus cluster, distributed by business.",
    "-- Run on the coordinator once the schema and its data are there (docs/scaling.md, \"Citus\").",
    "-- Stay on the coordinator (no statement needed; those that reference a reference table",
    "-- become Citus-managed local tables by themselves):",
    "--   graphile_worker (schema): the job queue, its sequences and functions",
    ...local.map((name) => `--   ${name}: ${NON_TENANT_TABLES[name]?.reason ?? ""}`)
  ]
  if (deferred.length > 0) lines.push("-- Foreign keys that close a cycle: dropped here, added back at the end.")
  for (const fk of deferred) lines.push(`ALTER TABLE ${fk.table} DROP CONSTRAINT ${fk.name};`)
  for (const name of order) {
    if (role(name) === "reference") lines.push(`SELECT create_reference_table('${name}');`)
    else if (name === anchor) lines.push(`SELECT create_distributed_table('${name}', '${DISTRIBUTION_COLUMN}');`)
    else lines.push(`SELECT create_distributed_table('${name}', '${DISTRIBUTION_COLUMN}', colocate_with => '${anchor}');`)
  }
  for (const fk of deferred) lines.push(`ALTER TABLE ${fk.table} ADD CONSTRAINT ${fk.name} ${fk.definition};`)
  return lines
}
