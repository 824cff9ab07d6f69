import type { Catalog, CatalogConstraint } from "./catalog.ts"
import { DISTRIBUTION_COLUMN, NON_TENANT_TABLES, type Placement } from "./tables.ts"

/**
 * The rules a schema distributed by business on Citus needs, checked against the catalog:
 * - a table without a NOT NULL `business_id` is listed in NON_TENANT_TABLES, and the list names
 *   only tables that exist and lack one;
 * - a distributed table's primary key, unique and exclusion constraints and unique indexes all
 *   include its distribution column (Citus enforces uniqueness per shard only);
 * - a foreign key between distributed tables pairs their distribution columns, so the rows it
 *   joins live on one node; a distributed table may reference a reference table, never a
 *   coordinator-local one; reference and coordinator-local tables never reference distributed ones,
 *   and reference tables never coordinator-local ones (they are copied to nodes that lack them);
 * - a distributed table's identity and sequence columns are bigint: Citus gives each node its own
 *   range of a bigint sequence (from the high bits), which a smaller type cannot hold.
 */

export type TableRole = "distributed" | Placement | "unlisted"

/** A tenant table (NOT NULL business_id) is distributed; the list places the others. */
export const roleOf = (catalog: Catalog) => {
  const tenant = new Set(catalog.tables.filter((t) => t.business_id === "not null").map((t) => t.name))
  return (table: string): TableRole =>
    tenant.has(table) ? "distributed" : (NON_TENANT_TABLES[table]?.placement ?? "unlisted")
}

const KIND: Record<CatalogConstraint["type"], string> = {
  p: "primary key",
  u: "unique constraint",
  x: "exclusion constraint",
  f: "foreign key"
}

const describeForeignKey = (fk: CatalogConstraint) =>
  `foreign key ${fk.name} (${fk.columns.join(", ")}) on ${fk.table} → ${fk.referenced_table} (${(fk.referenced_columns ?? []).join(", ")})`

/** Every rule the schema breaks, one line each, naming the table and the constraint or index. */
export const checkSchema = (catalog: Catalog): ReadonlyArray<string> => {
  const problems: Array<string> = []
  const role = roleOf(catalog)
  const tables = new Map(catalog.tables.map((t) => [t.name, t]))

  for (const table of catalog.tables) {
    if (role(table.name) !== "unlisted") continue
    problems.push(
      table.business_id === "nullable"
        ? `table ${table.name} has a nullable ${DISTRIBUTION_COLUMN}: make it NOT NULL (tenant data) or list the table as reference or coordinator-local in src/platform/citus/tables.ts`
        : `table ${table.name} has no ${DISTRIBUTION_COLUMN} and is not listed as a reference or coordinator-local table in src/platform/citus/tables.ts`
    )
  }
  for (const name of Object.keys(NON_TENANT_TABLES)) {
    const table = tables.get(name)
    if (table === undefined) problems.push(`table ${name} is listed in src/platform/citus/tables.ts but no longer exists`)
    else if (table.business_id === "not null") {
      problems.push(`table ${name} is listed in src/platform/citus/tables.ts but has a NOT NULL ${DISTRIBUTION_COLUMN}: it is tenant data now`)
    }
  }

  for (const constraint of catalog.constraints) {
    if (constraint.type === "f" || role(constraint.table) !== "distributed") continue
    if (!constraint.columns.includes(DISTRIBUTION_COLUMN)) {
      problems.push(
        `${KIND[constraint.type]} ${constraint.name} on ${constraint.table} (${constraint.columns.join(", ")}) omits ${DISTRIBUTION_COLUMN}`
      )
    }
  }
  for (const index of catalog.uniqueIndexes) {
    if (role(index.table) !== "distributed") continue
    if (!index.columns.includes(DISTRIBUTION_COLUMN)) {
      problems.push(`unique index ${index.name} on ${index.table} (${index.columns.join(", ")}) omits ${DISTRIBUTION_COLUMN}`)
    }
  }

  for (const generated of catalog.generatedColumns) {
    if (role(generated.table) === "distributed" && generated.type !== "bigint") {
      problems.push(`column ${generated.table}.${generated.column} is filled by an identity or sequence but is ${generated.type}, not bigint`)
    }
  }

  for (const fk of catalog.constraints) {
    if (fk.type !== "f") continue
    const from = role(fk.table)
    if (fk.referenced_schema !== "public" || fk.referenced_table === null) {
      problems.push(`${describeForeignKey(fk)} references a table outside the public schema`)
      continue
    }
    const to = role(fk.referenced_table)
    if (from === "unlisted" || to === "unlisted") continue // reported above
    if (from === "distributed" && to === "distributed") {
      const paired = fk.columns.some((column, i) => column === DISTRIBUTION_COLUMN && fk.referenced_columns?.[i] === DISTRIBUTION_COLUMN)
      if (!paired) {
        problems.push(`${describeForeignKey(fk)} omits ${DISTRIBUTION_COLUMN} on both sides (it must pair ${fk.table}.${DISTRIBUTION_COLUMN} with ${fk.referenced_table}.${DISTRIBUTION_COLUMN})`)
      }
    } else if (from === "distributed" && to === "coordinator-local") {
      problems.push(`${describeForeignKey(fk)}: a distributed table cannot reference the coordinator-local ${fk.referenced_table}`)
    } else if (from !== "distributed" && to === "distributed") {
      problems.push(`${describeForeignKey(fk)}: the ${from} table ${fk.table} cannot reference the distributed ${fk.referenced_table}`)
    } else if (from === "reference" && to === "coordinator-local") {
      problems.push(`${describeForeignKey(fk)}: the reference table ${fk.table} cannot reference the coordinator-local ${fk.referenced_table}`)
    }
  }
  return problems
}
