import { Option, Schema } from "effect"
import { BooleanInput, IntInput } from "../src/shared/schemas.ts"
import { type QueryProblem, shown } from "./problems.ts"
import { FilterRefusals } from "./refusals.ts"
import { closestNames, listed } from "./suggest.ts"

/**
 * The request grammar of the Reporting API: a JSON:API 1.0 document whose `data` is a
 * `queries` resource (spec, "Request attributes"), and the filter language inside it.
 * Decoding only checks shapes; names are checked against the resource's catalog by
 * normalize.ts. Optional members also accept `null`, which some clients send for "absent".
 */

export const PageInput = Schema.Struct({
  limit: Schema.optional(Schema.NullOr(IntInput)).annotate({ description: "Rows per page: default 100, at most 500" }),
  starting_after: Schema.optional(Schema.NullOr(Schema.String)).annotate({
    description: "The `last_key` of the previous page (or any row's `key`): rows after it in the query's order"
  })
})

export const QueryAttributes = Schema.Struct({
  fields: Schema.Array(Schema.String).annotate({
    description: "Fields per row: detail fields without `group`, summary fields with it. Logical fields (custom_fields) expand."
  }),
  filter: Schema.optional(Schema.NullOr(Schema.Array(Schema.Unknown))).annotate({
    description:
      'A filter: an operation then its arguments, e.g. ["and", [["eq", "person_state", "active"], ["btw", "age", 18, 30]]]. ' +
      "Operations: and, or, eq, ne (neq), gt, lt, btw, contains, wo, starts, ends, emp, nemp."
  }),
  group: Schema.optional(Schema.NullOr(Schema.String)).annotate({ description: "A grouping: rows become summary rows" }),
  page: Schema.optional(Schema.NullOr(PageInput)),
  sort: Schema.optional(Schema.NullOr(Schema.Array(Schema.String))).annotate({
    description: "Field names followed by + (ascending) or - (descending), e.g. [\"last_name+\", \"age-\"]"
  }),
  total_count: Schema.optional(Schema.NullOr(BooleanInput)).annotate({ description: "Include `total_count` in the response" })
})
export type QueryAttributes = typeof QueryAttributes.Type

export const QueryDocument = Schema.Struct({
  data: Schema.Struct({
    type: Schema.Literal("queries"),
    attributes: QueryAttributes
  })
}).annotate({ title: "ReportQuery", description: "A JSON:API document holding one `queries` resource" })
export type QueryDocument = typeof QueryDocument.Type

// ---------------------------------------------------------------------------------------------
// Filters

export const COMPARISONS = ["eq", "ne", "gt", "lt", "contains", "wo", "starts", "ends"] as const
export type Comparison = (typeof COMPARISONS)[number]

/** A value as a client writes it; its meaning depends on the field's type (normalize.ts). */
export type FilterValue = string | number | boolean | null

/** A parsed filter. `path` locates the node in the request, for messages (`filter[1][0]`). */
export type FilterNode =
  | { readonly kind: "and" | "or"; readonly path: string; readonly filters: ReadonlyArray<FilterNode> }
  | { readonly kind: "compare"; readonly path: string; readonly op: Comparison; readonly field: string; readonly value: FilterValue }
  | { readonly kind: "btw"; readonly path: string; readonly field: string; readonly low: FilterValue; readonly high: FilterValue }
  | { readonly kind: "emp" | "nemp"; readonly path: string; readonly field: string }

const Value = Schema.Union([Schema.String, Schema.Finite, Schema.Boolean, Schema.Null])
const Field = Schema.String

/** The argument shapes of each operation, after the operation name. */
const Combination = Schema.Tuple([Schema.Array(Schema.Unknown)])
const FieldAndValue = Schema.Tuple([Field, Value])
const FieldOnly = Schema.Tuple([Field])
const BetweenFlat = Schema.Tuple([Field, Value, Value])
const BetweenPair = Schema.Tuple([Field, Schema.Tuple([Value, Value])])

const decodeCombination = Schema.decodeUnknownOption(Combination)
const decodeFieldAndValue = Schema.decodeUnknownOption(FieldAndValue)
const decodeFieldOnly = Schema.decodeUnknownOption(FieldOnly)
const decodeBetweenFlat = Schema.decodeUnknownOption(BetweenFlat)
const decodeBetweenPair = Schema.decodeUnknownOption(BetweenPair)

/** Filters this deep or this large are refused: they only come from bugs or abuse. */
export const MAX_FILTER_DEPTH = 16
export const MAX_FILTER_NODES = 500

const ALIASES: Readonly<Record<string, string>> = { neq: "ne" }

/** Every operation of the grammar ("Filter grammar"): the names an unknown one is compared with. */
export const FILTER_OPERATIONS = ["and", "or", ...COMPARISONS, "btw", "emp", "nemp"] as const

/**
 * Parses the `filter` attribute. A list of filters at the top (`[["eq", ...], ["gt", ...]]`)
 * is read as their `and`, a common client shorthand. Problems are appended to `problems`;
 * the result is undefined when there were any.
 */
export const parseFilter = (raw: ReadonlyArray<unknown>, problems: Array<QueryProblem>): FilterNode | undefined => {
  // An empty filter is no filter ("absent means all rows").
  if (raw.length === 0) return undefined
  let nodes = 0
  const before = problems.length

  const parse = (input: unknown, path: string, depth: number): FilterNode | undefined => {
    nodes += 1
    if (depth > MAX_FILTER_DEPTH || nodes > MAX_FILTER_NODES) {
      problems.push(FilterRefusals.tooLarge.message({ max: depth > MAX_FILTER_DEPTH ? MAX_FILTER_DEPTH : MAX_FILTER_NODES }))
      return undefined
    }
    if (!Array.isArray(input) || typeof input[0] !== "string") {
      problems.push(FilterRefusals.notList.message({ path }))
      return undefined
    }
    const [head, ...args] = input as [string, ...Array<unknown>]
    const op = ALIASES[head.toLowerCase()] ?? head.toLowerCase()
    switch (op) {
      case "and":
      case "or": {
        const decoded = decodeCombination(args)
        // `["and", ["eq", ...]]` (one filter instead of a list of them) is the usual slip.
        if (Option.isNone(decoded) || typeof decoded.value[0][0] === "string") {
          problems.push(FilterRefusals.list.message({ path, operation: shown(head) }))
          return undefined
        }
        const filters = decoded.value[0].map((child, i) => parse(child, `${path}[1][${i}]`, depth + 1))
        return filters.every((f) => f !== undefined) ? { kind: op, path, filters } : undefined
      }
      case "emp":
      case "nemp": {
        const decoded = decodeFieldOnly(args)
        if (Option.isNone(decoded)) {
          problems.push(FilterRefusals.fieldOnly.message({ path, operation: shown(head) }))
          return undefined
        }
        return { kind: op, path, field: decoded.value[0] }
      }
      case "btw": {
        const flat = decodeBetweenFlat(args)
        if (Option.isSome(flat)) return { kind: "btw", path, field: flat.value[0], low: flat.value[1], high: flat.value[2] }
        const pair = decodeBetweenPair(args)
        if (Option.isSome(pair)) return { kind: "btw", path, field: pair.value[0], low: pair.value[1][0], high: pair.value[1][1] }
        problems.push(FilterRefusals.between.message({ path }))
        return undefined
      }
      default: {
        if (!(COMPARISONS as ReadonlyArray<string>).includes(op)) {
          const names = closestNames(head, FILTER_OPERATIONS)
          problems.push(
            names.length === 0
              ? FilterRefusals.unknownOperation.message({ path, operation: shown(head) })
              : FilterRefusals.unknownOperationHint.message({ path, operation: shown(head), names: listed(names) })
          )
          return undefined
        }
        const decoded = decodeFieldAndValue(args)
        if (Option.isNone(decoded)) {
          problems.push(FilterRefusals.fieldValue.message({ path, operation: shown(head) }))
          return undefined
        }
        return { kind: "compare", path, op: op as Comparison, field: decoded.value[0], value: decoded.value[1] }
      }
    }
  }

  const node =
    raw.every(Array.isArray)
      ? ({
          kind: "and",
          path: "filter",
          filters: raw.map((child, i) => parse(child, `filter[${i}]`, 1)).filter((f) => f !== undefined)
        } as const)
      : parse(raw, "filter", 0)
  return problems.length === before ? node : undefined
}
