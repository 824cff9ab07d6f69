import type { WireType } from "./catalog/types.ts"
import type { NormalizedFilter } from "./normalize-filter.ts"
import type { ParamValue } from "./normalize-values.ts"

/** A statement and its named parameters, as DuckDB runs it. */
export interface CompiledSql {
  readonly sql: string
  readonly params: Readonly<Record<string, ParamValue>>
}

/** Statement parameters, and filters compiled to predicates (compile.ts puts them in its statements). */

export const DUCKDB_TYPES: Record<WireType, string> = {
  boolean: "BOOLEAN",
  currency: "BIGINT",
  date: "DATE",
  datetime: "TIMESTAMPTZ",
  time: "TIME",
  range: "VARCHAR",
  enum: "VARCHAR",
  float: "DOUBLE",
  integer: "BIGINT",
  string: "VARCHAR"
}

/**
 * Parameters of one statement, numbered in order of appearance, plus `$now` when the text
 * uses it (DuckDB refuses a parameter the statement does not have).
 */
export const makeParams = (now: Date) => {
  const params: Record<string, ParamValue> = {}
  let n = 0
  return {
    add: (value: ParamValue, type: string): string => {
      n += 1
      params[`p${n}`] = value
      return `CAST($p${n} AS ${type})`
    },
    statement: (sql: string): CompiledSql => ({ sql, params: sql.includes("$now") ? { now: now.toISOString(), ...params } : { ...params } })
  }
}
export type Params = ReturnType<typeof makeParams>

export const isText = (type: WireType) => type === "string" || type === "enum"


export const compileFilter = (filter: NormalizedFilter, p: Params): string => {
  switch (filter.kind) {
    case "and":
    case "or":
      if (filter.filters.length === 0) return filter.kind === "and" ? "TRUE" : "FALSE"
      return `(${filter.filters.map((f) => compileFilter(f, p)).join(filter.kind === "and" ? " AND " : " OR ")})`
    case "emp":
      return isText(filter.column.type) ? `(${filter.column.sql} IS NULL OR ${filter.column.sql} = '')` : `(${filter.column.sql} IS NULL)`
    case "nemp":
      return isText(filter.column.type)
        ? `(${filter.column.sql} IS NOT NULL AND ${filter.column.sql} <> '')`
        : `(${filter.column.sql} IS NOT NULL)`
    case "btw": {
      const { sql, type } = filter.column
      // Text compares case-insensitively, like it sorts.
      return isText(type)
        ? `(lower(${sql}) BETWEEN lower(${p.add(filter.low, "VARCHAR")}) AND lower(${p.add(filter.high, "VARCHAR")}))`
        : `(${sql} BETWEEN ${p.add(filter.low, DUCKDB_TYPES[type])} AND ${p.add(filter.high, DUCKDB_TYPES[type])})`
    }
    case "compare": {
      const { sql, type } = filter.column
      // A closed enum holds its listed (lower-case) values only: equality compares the column
      // as stored, which DuckDB evaluates on its dictionary instead of lower-casing every row.
      if (type === "enum" && filter.column.values && (filter.op === "eq" || filter.op === "ne")) {
        const value = p.add(String(filter.value).toLowerCase(), "VARCHAR")
        return filter.op === "eq" ? `(${sql} = ${value})` : `(${sql} IS NULL OR ${sql} <> ${value})`
      }
      if (isText(type)) {
        const value = `lower(${p.add(filter.value, "VARCHAR")})`
        switch (filter.op) {
          case "eq":
            return `(lower(${sql}) = ${value})`
          // A row without a value does not equal, nor contain, the given value.
          case "ne":
            return `(${sql} IS NULL OR lower(${sql}) <> ${value})`
          case "gt":
            return `(lower(${sql}) > ${value})`
          case "lt":
            return `(lower(${sql}) < ${value})`
          case "contains":
            return `contains(lower(${sql}), ${value})`
          case "wo":
            return `(${sql} IS NULL OR NOT contains(lower(${sql}), ${value}))`
          case "starts":
            return `starts_with(lower(${sql}), ${value})`
          case "ends":
            return `ends_with(lower(${sql}), ${value})`
        }
      }
      const value = p.add(filter.value, DUCKDB_TYPES[type])
      switch (filter.op) {
        case "eq":
          return `(${sql} = ${value})`
        case "ne":
          return `(${sql} IS NULL OR ${sql} <> ${value})`
        case "gt":
          return `(${sql} > ${value})`
        case "lt":
          return `(${sql} < ${value})`
        default:
          // normalize.ts admits text operations on text fields only.
          throw new Error(`${filter.op} on ${type}`)
      }
    }
  }
}

/** A filter alone, as the predicate text and parameters it compiles to (golden tests pin these). */
export const compileFilterOnly = (filter: NormalizedFilter, now: Date): CompiledSql => {
  const p = makeParams(now)
  return p.statement(compileFilter(filter, p))
}
