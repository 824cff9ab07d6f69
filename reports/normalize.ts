import type { CatalogContext, ColumnDef, ResourceCatalog, SummaryDef, WireType } from "./catalog/types.ts"
import { type QueryAttributes, parseFilter } from "./grammar.ts"
import { type NormalizedFilter, normalizeFilter, unknownName } from "./normalize-filter.ts"
import { type QueryProblem, shown } from "./problems.ts"
import { QueryRefusals } from "./refusals.ts"

// The query's values and filters are checked in normalize-values.ts and normalize-filter.ts; their names are reached here too.

/**
 * Checks a decoded query against its resource's catalog and resolves every name to its
 * catalog entry: fields (expanding logical ones), grouping, filter fields, operations and
 * values, sort keys and the page. The result holds catalog entries and typed values only,
 * never a name from the request, so compile.ts cannot be steered by input.
 */

export const DEFAULT_PAGE_LIMIT = 100
export const MAX_PAGE_LIMIT = 500
export const MAX_KEY_LENGTH = 255

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
    problems.push(unknownName(QueryRefusals.unknownGroup, QueryRefusals.unknownGroupHint, { name: shown(groupName), resource }, groupName, catalog.groupings.keys()))
  }
  const grouped = groupName !== undefined

  // What the catalog can mean: no more fields or sort keys than the resource has,
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
  if (attributes.fields.length === 0) problems.push(QueryRefusals.fieldsRequired.message())
  const tooManyFields = attributes.fields.length > maxFields
  if (tooManyFields) problems.push(QueryRefusals.tooManyFields.message({ max: maxFields, resource }))
  const detailColumns: Array<ColumnDef> = []
  const summaryColumns: Array<SummaryDef> = []
  /** Names already asked for: requested names and the columns they became (`custom_fields` and one of its instances). */
  const named = new Set<string>()
  const once = (name: string) => {
    if (named.has(name)) {
      problems.push(QueryRefusals.duplicateField.message({ name: shown(name) }))
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
      else if (rowColumn(name) || catalog.logical.has(name)) problems.push(QueryRefusals.detailFieldWithGroup.message({ name: shown(name) }))
      else problems.push(unknownName(QueryRefusals.unknownField, QueryRefusals.unknownFieldHint, { name: shown(name), resource }, name, catalog.summary.keys()))
      continue
    }
    if (!once(name)) continue
    const logical = catalog.logical.get(name)
    if (logical) {
      const expanded = logical.expand(context)
      if ("unsupported" in expanded) problems.push(expanded.unsupported.message())
      else for (const instance of expanded) if (instance.name === name || once(instance.name)) detailColumns.push(instance)
      continue
    }
    const found = catalog.detail.get(name) ?? (catalog.groupings.has(name) ? undefined : rowColumn(name))
    if (found) {
      if (found.name === name || once(found.name)) detailColumns.push(found)
    } else if (catalog.summary.has(name)) problems.push(QueryRefusals.summaryFieldWithoutGroup.message({ name: shown(name) }))
    else {
      const valid = [...catalog.detail.keys(), ...catalog.logical.keys(), ...instanceNames()]
      problems.push(unknownName(QueryRefusals.unknownField, QueryRefusals.unknownFieldHint, { name: shown(name), resource }, name, valid))
    }
  }

  // Filter
  const filterNames = () => [...catalog.detail.keys(), ...catalog.groupings.keys(), ...instanceNames()]
  const filter = attributes.filter ? normalizeFilter(parseFilter(attributes.filter, problems), rowColumn, problems, filterNames) : undefined

  // Sort
  const sort: Array<SortKey> = []
  const sortEntries = attributes.sort ?? []
  const tooManySortKeys = sortEntries.length > maxSortKeys
  if (tooManySortKeys) problems.push(QueryRefusals.tooManySortKeys.message({ max: maxSortKeys }))
  /** Targets already sorted by: a second key on the same one could never decide an order. */
  const sortedBy = new Set<string>()
  for (const entry of tooManySortKeys ? [] : sortEntries) {
    const match = SORT.exec(entry)
    if (!match || (match[1] !== "" && match[3] !== "")) {
      problems.push(QueryRefusals.invalidSort.message({ sort: shown(entry) }))
      continue
    }
    const name = match[2]!
    const direction = (match[1] || match[3]) === "-" ? "desc" : "asc"
    // `group_label` and the grouping's own name are one target.
    const target = grouped && name === groupName ? "group_label" : name
    if (sortedBy.has(target)) {
      problems.push(QueryRefusals.duplicateSort.message({ name: shown(name) }))
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
      else problems.push(QueryRefusals.unknownSort.message({ name: shown(name) }))
      continue
    }
    const column = catalog.detail.get(name) ?? rowColumn(name)
    if (column && !catalog.logical.has(name)) sort.push({ target: { kind: "row", column }, type: column.type, direction })
    else problems.push(QueryRefusals.unknownSort.message({ name: shown(name) }))
  }

  // Page
  const limit = attributes.page?.limit ?? DEFAULT_PAGE_LIMIT
  if (limit < 1 || limit > MAX_PAGE_LIMIT) problems.push(QueryRefusals.pageLimit.message({ max: MAX_PAGE_LIMIT }))
  const startingAfter = attributes.page?.starting_after ?? undefined
  if (startingAfter !== undefined && (startingAfter.length === 0 || startingAfter.length > MAX_KEY_LENGTH)) {
    problems.push(QueryRefusals.startingAfterInvalid.message({ max: MAX_KEY_LENGTH }))
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

const dedupe = (problems: ReadonlyArray<QueryProblem>): ReadonlyArray<QueryProblem> => {
  const seen = new Set<string>()
  return problems.filter((p) => {
    const id = JSON.stringify(p)
    if (seen.has(id)) return false
    seen.add(id)
    return true
  })
}
