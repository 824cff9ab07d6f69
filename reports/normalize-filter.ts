import type { ColumnDef } from "./catalog/types.ts"
import type { Comparison, FilterNode, FilterValue } from "./grammar.ts"
import { type ParamValue, appliesTo, coerceValue } from "./normalize-values.ts"
import { type QueryProblem, shown } from "./problems.ts"
import { FilterRefusals } from "./refusals.ts"
import { closestNames, listed } from "./suggest.ts"
import type { MessageParams } from "../src/shared/i18n.ts"
import type { Refusal } from "../src/shared/refusals.ts"

/** A parsed filter checked against the resource: every name resolved to its column, every value to the column's type. */

export type NormalizedFilter =
  | { readonly kind: "and" | "or"; readonly filters: ReadonlyArray<NormalizedFilter> }
  | { readonly kind: "compare"; readonly op: Comparison; readonly column: ColumnDef; readonly value: ParamValue }
  | { readonly kind: "btw"; readonly column: ColumnDef; readonly low: ParamValue; readonly high: ParamValue }
  | { readonly kind: "emp" | "nemp"; readonly column: ColumnDef }

/**
 * An unknown name, with the closest valid ones when some are close ("did you mean
 * `full_name`?"): the hinting key is the plain one's message plus the names.
 */
export const unknownName = (
  plain: Refusal,
  hinting: Refusal,
  params: MessageParams,
  name: string,
  valid: Iterable<string>
): QueryProblem => {
  const names = closestNames(name, valid)
  return names.length === 0 ? plain.message(params) : hinting.message({ ...params, names: listed(names) })
}

export const normalizeFilter = (
  node: FilterNode | undefined,
  rowColumn: (name: string) => ColumnDef | undefined,
  problems: Array<QueryProblem>,
  filterNames: () => Iterable<string>
): NormalizedFilter | undefined => {
  if (node === undefined) return undefined
  const resolve = (path: string, name: string) => {
    const column = rowColumn(name)
    if (!column) problems.push(unknownName(FilterRefusals.unknownField, FilterRefusals.unknownFieldHint, { path, name: shown(name) }, name, filterNames()))
    return column
  }
  const value = (path: string, column: ColumnDef, raw: FilterValue, checkEnum: boolean): ParamValue | undefined => {
    const coerced = raw === null ? undefined : coerceValue(raw, column.type)
    if (coerced === undefined) {
      problems.push(FilterRefusals.value.message({ path, value: shown(raw), type: column.type, name: shown(column.name) }))
      return undefined
    }
    // An equality test against a value outside the enum is a typo, not an empty answer.
    if (checkEnum && column.values && !column.values.includes(String(coerced).toLowerCase())) {
      problems.push(FilterRefusals.enumValue.message({ path, value: shown(raw), name: shown(column.name), values: column.values.join(", ") }))
      return undefined
    }
    return coerced
  }
  const operationFits = (path: string, op: Comparison | "btw", column: ColumnDef) => {
    if (appliesTo(op, column.type)) return true
    problems.push(FilterRefusals.operationType.message({ path, operation: op, type: column.type, name: shown(column.name) }))
    return false
  }

  const walk = (node: FilterNode): NormalizedFilter | undefined => {
    switch (node.kind) {
      case "and":
      case "or": {
        const filters = node.filters.map(walk)
        return filters.every((f) => f !== undefined) ? { kind: node.kind, filters } : undefined
      }
      case "emp":
      case "nemp": {
        const column = resolve(node.path, node.field)
        return column ? { kind: node.kind, column } : undefined
      }
      case "btw": {
        const column = resolve(node.path, node.field)
        if (!column || !operationFits(node.path, "btw", column)) return undefined
        const low = value(node.path, column, node.low, false)
        const high = value(node.path, column, node.high, false)
        return low !== undefined && high !== undefined ? { kind: "btw", column, low, high } : undefined
      }
      case "compare": {
        const column = resolve(node.path, node.field)
        if (!column || !operationFits(node.path, node.op, column)) return undefined
        const v = value(node.path, column, node.value, node.op === "eq" || node.op === "ne")
        return v !== undefined ? { kind: "compare", op: node.op, column, value: v } : undefined
      }
    }
  }
  return walk(node)
}

