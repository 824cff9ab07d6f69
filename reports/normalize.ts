import type { CatalogContext, ColumnDef, ResourceCatalog, SummaryDef, WireType } from "./catalog/types.ts"
import { type Comparison, type FilterNode, type FilterValue, type QueryAttributes, parseFilter } from "./grammar.ts"
import { type QueryProblem, problem, shown } from "./problems.ts"
import { parseTimestamp } from "../src/shared/schemas.ts"
import { closestNames, listed } from "./suggest.ts"
import type { MessageKey, MessageParams } from "../src/shared/i18n.ts"

/**
 * An unknown name, with the closest valid ones when some are close ("did you mean
 * `full_name`?", issue 32): the hinting key is the plain one's message plus the names.
 */
export const unknownName = (
  key: MessageKey,
  hintKey: MessageKey,
  params: MessageParams,
  name: string,
  valid: Iterable<string>
): QueryProblem => {
  const names = closestNames(name, valid)
  return names.length === 0 ? problem(key, params) : problem(hintKey, { ...params, names: listed(names) })
}

/**
 * Checks a decoded query against its resource's catalog and resolves every name to its
 * catalog entry: fields (expanding logical ones), grouping, filter fields, operations and
 * values, sort keys and the page. The result holds catalog entries and typed values only,
 * never a name from the request, so compile.ts cannot be steered by input.
 */

export const DEFAULT_PAGE_LIMIT = 100
export const MAX_PAGE_LIMIT = 500
export const MAX_KEY_LENGTH = 255

/** A filter value after checking it against the field's type: bound as a query parameter. */
export type ParamValue = string | number | boolean

export type NormalizedFilter =
  | { readonly kind: "and" | "or"; readonly filters: ReadonlyArray<NormalizedFilter> }
  | { readonly kind: "compare"; readonly op: Comparison; readonly column: ColumnDef; readonly value: ParamValue }
  | { readonly kind: "btw"; readonly column: ColumnDef; readonly low: ParamValue; readonly high: ParamValue }
  | { readonly kind: "emp" | "nemp"; readonly column: ColumnDef }

/** What a sort key orders by: a row value (detail), the group value, or an aggregate (summary). */
export type SortTarget =
  | { readonly kind: "row"; readonly column: ColumnDef }
  | { readonly kind: "group"; readonly column: ColumnDef }
  | { readonly kind: "aggregate"; readonly summary: SummaryDef }

export interface SortKey {
  readonly target: SortTarget
  readonly type: WireType
  readonly direction: "asc" | "desc"
}

/** A field of the response's `fields` list. */
export interface ResponseField {
  readonly name: string
  readonly type: WireType
  readonly label?: string
}

export type NormalizedQuery =
  | (QueryCommon & { readonly mode: "detail"; readonly columns: ReadonlyArray<ColumnDef> })
  | (QueryCommon & { readonly mode: "summary"; readonly group: ColumnDef; readonly columns: ReadonlyArray<SummaryDef> })

interface QueryCommon {
  readonly catalog: ResourceCatalog
  /** The response `fields`: for summary rows `group_label` first, typed like the grouping. */
  readonly fields: ReadonlyArray<ResponseField>
  readonly filter: NormalizedFilter | undefined
  readonly sort: ReadonlyArray<SortKey>
  readonly limit: number
  readonly startingAfter: string | undefined
  readonly totalCount: boolean
}

export type NormalizeResult =
  | { readonly _tag: "Ok"; readonly query: NormalizedQuery }
  | { readonly _tag: "Invalid"; readonly problems: ReadonlyArray<QueryProblem> }

// ---------------------------------------------------------------------------------------------
// Values

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

// ---------------------------------------------------------------------------------------------

const SORT = /^\s*([+-]?)([A-Za-z0-9_]+)([+-]?)\s*$/

export const normalize = (attributes: QueryAttributes, catalog: ResourceCatalog, context: CatalogContext): NormalizeResult => {
  const problems: Array<QueryProblem> = []
  const resource = catalog.resource

  /** A row-level name: detail field, grouping, or instance of a logical field. */
  const rowColumn = (name: string): ColumnDef | undefined => {
    const found = catalog.detail.get(name) ?? catalog.groupings.get(name)
    if (found) return found
    for (const logical of catalog.logical.values()) {
      const instance = logical.instance(name, context)
      if (instance) return instance
    }
    return undefined
  }

  /** Instances of logical fields (`custom_field_12`), names a client saw in `fields`: "did you mean" offers them too. */
  const instanceNames = () =>
    [...catalog.logical.values()].flatMap((logical) => {
      const expanded = logical.expand(context)
      return "unsupported" in expanded ? [] : expanded.map((instance) => instance.name)
    })

  // Grouping
  const groupName = attributes.group ?? undefined
  const group = groupName === undefined ? undefined : catalog.groupings.get(groupName)
  if (groupName !== undefined && !group) {
    problems.push(unknownName("report_unknown_group", "report_unknown_group_hint", { name: shown(groupName), resource }, groupName, catalog.groupings.keys()))
  }
  const grouped = groupName !== undefined

  // What the catalog can mean (issue 29): no more fields or sort keys than the resource has,
  // each named once. A list beyond it is refused in one problem, before any name is looked up
  // (50,000 fields made 50,000 problems, or a DuckDB query of 50,000 columns).
  let instances = 0
  for (const logical of catalog.logical.values()) {
    const expanded = logical.expand(context)
    if (!("unsupported" in expanded)) instances += expanded.length
  }
  // Summary rows: group_label and the aggregates; detail rows: the detail fields, logical fields and their instances.
  const maxFields = grouped ? catalog.summary.size + 1 : catalog.detail.size + catalog.logical.size + instances
  // Detail rows sort by any row value, groupings included (`rowColumn`).
  const maxSortKeys = grouped ? catalog.summary.size + 1 : catalog.detail.size + catalog.groupings.size + instances

  // Fields
  if (attributes.fields.length === 0) problems.push(problem("report_fields_required"))
  const tooManyFields = attributes.fields.length > maxFields
  if (tooManyFields) problems.push(problem("report_too_many_fields", { max: maxFields, resource }))
  const detailColumns: Array<ColumnDef> = []
  const summaryColumns: Array<SummaryDef> = []
  /** Names already asked for: requested names and the columns they became (`custom_fields` and one of its instances). */
  const named = new Set<string>()
  const once = (name: string) => {
    if (named.has(name)) {
      problems.push(problem("report_duplicate_field", { name: shown(name) }))
      return false
    }
    named.add(name)
    return true
  }
  for (const name of tooManyFields ? [] : attributes.fields) {
    if (grouped) {
      if (!once(name)) continue
      if (name === "group_label") continue // always the first column of a summary row
      const found = catalog.summary.get(name)
      if (found) summaryColumns.push(found)
      else if (rowColumn(name) || catalog.logical.has(name)) problems.push(problem("report_detail_field_with_group", { name: shown(name) }))
      else problems.push(unknownName("report_unknown_field", "report_unknown_field_hint", { name: shown(name), resource }, name, catalog.summary.keys()))
      continue
    }
    if (!once(name)) continue
    const logical = catalog.logical.get(name)
    if (logical) {
      const expanded = logical.expand(context)
      if ("unsupported" in expanded) problems.push(problem(expanded.unsupported))
      else for (const instance of expanded) if (instance.name === name || once(instance.name)) detailColumns.push(instance)
      continue
    }
    const found = catalog.detail.get(name) ?? (catalog.groupings.has(name) ? undefined : rowColumn(name))
    if (found) {
      if (found.name === name || once(found.name)) detailColumns.push(found)
    } else if (catalog.summary.has(name)) problems.push(problem("report_summary_field_without_group", { name: shown(name) }))
    else {
      const valid = [...catalog.detail.keys(), ...catalog.logical.keys(), ...instanceNames()]
      problems.push(unknownName("report_unknown_field", "report_unknown_field_hint", { name: shown(name), resource }, name, valid))
    }
  }

  // Filter
  const filterNames = () => [...catalog.detail.keys(), ...catalog.groupings.keys(), ...instanceNames()]
  const filter = attributes.filter ? normalizeFilter(parseFilter(attributes.filter, problems), rowColumn, problems, filterNames) : undefined

  // Sort
  const sort: Array<SortKey> = []
  const sortEntries = attributes.sort ?? []
  const tooManySortKeys = sortEntries.length > maxSortKeys
  if (tooManySortKeys) problems.push(problem("report_too_many_sort_keys", { max: maxSortKeys }))
  /** Targets already sorted by: a second key on the same one could never decide an order. */
  const sortedBy = new Set<string>()
  for (const entry of tooManySortKeys ? [] : sortEntries) {
    const match = SORT.exec(entry)
    if (!match || (match[1] !== "" && match[3] !== "")) {
      problems.push(problem("report_invalid_sort", { sort: shown(entry) }))
      continue
    }
    const name = match[2]!
    const direction = (match[1] || match[3]) === "-" ? "desc" : "asc"
    // `group_label` and the grouping's own name are one target.
    const target = grouped && name === groupName ? "group_label" : name
    if (sortedBy.has(target)) {
      problems.push(problem("report_duplicate_sort", { name: shown(name) }))
      continue
    }
    sortedBy.add(target)
    if (grouped) {
      if (!group) continue // already reported
      if (name === "group_label" || name === groupName) {
        sort.push({ target: { kind: "group", column: group }, type: group.type, direction })
        continue
      }
      const aggregate = catalog.summary.get(name)
      if (aggregate) sort.push({ target: { kind: "aggregate", summary: aggregate }, type: aggregate.type, direction })
      else problems.push(problem("report_unknown_sort", { name: shown(name) }))
      continue
    }
    const column = catalog.detail.get(name) ?? rowColumn(name)
    if (column && !catalog.logical.has(name)) sort.push({ target: { kind: "row", column }, type: column.type, direction })
    else problems.push(problem("report_unknown_sort", { name: shown(name) }))
  }

  // Page
  const limit = attributes.page?.limit ?? DEFAULT_PAGE_LIMIT
  if (limit < 1 || limit > MAX_PAGE_LIMIT) problems.push(problem("report_page_limit", { max: MAX_PAGE_LIMIT }))
  const startingAfter = attributes.page?.starting_after ?? undefined
  if (startingAfter !== undefined && (startingAfter.length === 0 || startingAfter.length > MAX_KEY_LENGTH)) {
    problems.push(problem("report_starting_after_invalid", { max: MAX_KEY_LENGTH }))
  }

  if (problems.length > 0) return { _tag: "Invalid", problems: dedupe(problems) }

  const common = { catalog, filter, sort, limit, startingAfter, totalCount: attributes.total_count === true }
  if (group) {
    return {
      _tag: "Ok",
      query: {
        ...common,
        mode: "summary",
        group,
        columns: summaryColumns,
        fields: [{ name: "group_label", type: group.type }, ...summaryColumns.map(({ name, type }) => ({ name, type }))]
      }
    }
  }
  return {
    _tag: "Ok",
    query: {
      ...common,
      mode: "detail",
      columns: detailColumns,
      fields: detailColumns.map(({ name, type, label }) => (label === undefined ? { name, type } : { name, type, label }))
    }
  }
}

const normalizeFilter = (
  node: FilterNode | undefined,
  rowColumn: (name: string) => ColumnDef | undefined,
  problems: Array<QueryProblem>,
  filterNames: () => Iterable<string>
): NormalizedFilter | undefined => {
  if (node === undefined) return undefined
  const resolve = (path: string, name: string) => {
    const column = rowColumn(name)
    if (!column) problems.push(unknownName("report_unknown_filter_field", "report_unknown_filter_field_hint", { path, name: shown(name) }, name, filterNames()))
    return column
  }
  const value = (path: string, column: ColumnDef, raw: FilterValue, checkEnum: boolean): ParamValue | undefined => {
    const coerced = raw === null ? undefined : coerceValue(raw, column.type)
    if (coerced === undefined) {
      problems.push(problem("report_filter_value", { path, value: shown(raw), type: column.type, name: shown(column.name) }))
      return undefined
    }
    // An equality test against a value outside the enum is a typo, not an empty answer.
    if (checkEnum && column.values && !column.values.includes(String(coerced).toLowerCase())) {
      problems.push(problem("report_filter_enum_value", { path, value: shown(raw), name: shown(column.name), values: column.values.join(", ") }))
      return undefined
    }
    return coerced
  }
  const operationFits = (path: string, op: Comparison | "btw", column: ColumnDef) => {
    if (appliesTo(op, column.type)) return true
    problems.push(problem("report_filter_operation_type", { path, operation: op, type: column.type, name: shown(column.name) }))
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

const dedupe = (problems: ReadonlyArray<QueryProblem>): ReadonlyArray<QueryProblem> => {
  const seen = new Set<string>()
  return problems.filter((p) => {
    const id = JSON.stringify(p)
    if (seen.has(id)) return false
    seen.add(id)
    return true
  })
}
