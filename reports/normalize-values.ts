import type { WireType } from "./catalog/types.ts"
import type { Comparison, FilterValue } from "./grammar.ts"
import { parseTimestamp } from "../src/shared/schemas.ts"

/** Filter values against a field's type, and which operations a type takes (normalize.ts). */

/** A filter value after checking it against the field's type: bound as a query parameter. */
export type ParamValue = string | number | boolean

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/
const TIME = /^(\d{2}):(\d{2})(?::(\d{2}))?$/
const INTEGER = /^\s*-?\d{1,15}\s*$/
const FLOAT = /^\s*-?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?\s*$/

const isCalendarDate = (year: number, month: number, day: number) => {
  const date = new Date(Date.UTC(year, month - 1, day))
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day
}

/** A filter value as the field's type, or undefined when it is not one. */
export const coerceValue = (value: FilterValue, type: WireType): ParamValue | undefined => {
  switch (type) {
    case "string":
    case "enum":
      return typeof value === "string" ? value : typeof value === "number" ? String(value) : undefined
    case "integer":
    case "currency":
      if (typeof value === "number") return Number.isSafeInteger(value) ? value : undefined
      return typeof value === "string" && INTEGER.test(value) ? Number(value) : undefined
    case "float":
      if (typeof value === "number") return value
      return typeof value === "string" && FLOAT.test(value) ? Number(value) : undefined
    case "boolean":
      if (typeof value === "boolean") return value
      if (typeof value !== "string") return undefined
      // Clients send JSON booleans or the wire form `t`/`f` (compatibility notes).
      switch (value.toLowerCase()) {
        case "t":
        case "true":
          return true
        case "f":
        case "false":
          return false
        default:
          return undefined
      }
    case "date": {
      const match = typeof value === "string" ? DATE.exec(value) : null
      return match && isCalendarDate(Number(match[1]), Number(match[2]), Number(match[3])) ? (value as string) : undefined
    }
    case "datetime": {
      const parsed = typeof value === "string" ? parseTimestamp(value) : undefined
      return parsed ? parsed.toISOString() : undefined
    }
    case "time": {
      const match = typeof value === "string" ? TIME.exec(value) : null
      if (!match || Number(match[1]) > 23 || Number(match[2]) > 59 || Number(match[3] ?? 0) > 59) return undefined
      return `${match[1]}:${match[2]}:${match[3] ?? "00"}`
    }
    case "range":
      return undefined
  }
}

/** Which operations make sense for a type: ordering needs an order, text search needs text. */
const ORDERED: ReadonlySet<WireType> = new Set(["currency", "date", "datetime", "time", "enum", "float", "integer", "string"])
const TEXT: ReadonlySet<WireType> = new Set(["string", "enum"])
export const appliesTo = (op: Comparison | "btw", type: WireType): boolean => {
  switch (op) {
    case "eq":
    case "ne":
      return type !== "range"
    case "gt":
    case "lt":
    case "btw":
      return ORDERED.has(type)
    case "contains":
    case "wo":
    case "starts":
    case "ends":
      return TEXT.has(type)
  }
}

/** The filter operations a field of a type takes, in the grammar's order (the served catalog says them). */
export const operatorsFor = (type: WireType): ReadonlyArray<Comparison | "btw" | "emp" | "nemp"> => [
  ...(["eq", "ne", "gt", "lt", "btw", "contains", "wo", "starts", "ends"] as const).filter((op) => appliesTo(op, type)),
  "emp",
  "nemp"
]

