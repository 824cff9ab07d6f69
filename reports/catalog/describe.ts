import { operatorsFor } from "../normalize-values.ts"
import { REPORT_RESOURCES, type ReportResource, resourceCatalog } from "./resources.ts"
import { describeName } from "./descriptions.ts"
import type { ColumnDef, ResourceCatalog, SummaryDef, WireType } from "./types.ts"

/**
 * The served catalog: what a resource offers, read from the very catalog the
 * compiler reads (resources.ts), so the two never disagree. What a query may do with each
 * name follows normalize.ts: row values (detail fields and groupings) can be filtered with
 * the operations their type takes and sort detail rows; summary fields sort grouped rows
 * and are never filtered (a filter picks rows, before grouping).
 */

export interface DescribedField {
  readonly name: string
  readonly type: WireType
  readonly description: string
  readonly values?: ReadonlyArray<string>
  readonly filterable: boolean
  readonly sortable: boolean
  readonly operators: ReadonlyArray<string>
}

export interface DescribedResource {
  readonly type: "report_resources"
  readonly id: string
  readonly attributes: {
    readonly detail_fields: ReadonlyArray<DescribedField>
    readonly summary_fields: ReadonlyArray<DescribedField>
    readonly groupings: ReadonlyArray<DescribedField>
    readonly logical_fields: ReadonlyArray<{ readonly name: string; readonly description: string }>
  }
  readonly links: { readonly self: string; readonly queries: string }
}

export const CATALOG_PATH = "/desk/api/v3/reports"

const rowValue = (column: ColumnDef, kind: "detail" | "grouping"): DescribedField => ({
  name: column.name,
  type: column.type,
  description: describeName(column.name, kind),
  ...(column.values === undefined ? {} : { values: column.values }),
  filterable: true,
  sortable: true,
  operators: operatorsFor(column.type)
})

const aggregate = (summary: SummaryDef, rowType: (name: string) => WireType | undefined): DescribedField => ({
  name: summary.name,
  type: summary.type,
  description: describeName(summary.name, "summary", rowType),
  filterable: false,
  sortable: true,
  operators: []
})

export const describeCatalog = (catalog: ResourceCatalog): DescribedResource => ({
  type: "report_resources",
  id: catalog.resource,
  attributes: {
    detail_fields: [...catalog.detail.values()].map((c) => rowValue(c, "detail")),
    summary_fields: [...catalog.summary.values()].map((s) => aggregate(s, (name) => (catalog.detail.get(name) ?? catalog.groupings.get(name))?.type)),
    groupings: [...catalog.groupings.values()].map((c) => rowValue(c, "grouping")),
    logical_fields: [...catalog.logical.values()].map((l) => ({ name: l.name, description: describeName(l.name, "logical") }))
  },
  links: { self: `${CATALOG_PATH}/${catalog.resource}`, queries: `${CATALOG_PATH}/${catalog.resource}/queries` }
})

/** The list of resources: each with its counts and links (the full description is one GET away). */
export const listResources = () =>
  REPORT_RESOURCES.map((resource: ReportResource) => {
    const catalog = resourceCatalog(resource)!
    return {
      type: "report_resources" as const,
      id: resource,
      attributes: {
        detail_field_count: catalog.detail.size + catalog.logical.size,
        summary_field_count: catalog.summary.size,
        grouping_count: catalog.groupings.size
      },
      links: { self: `${CATALOG_PATH}/${resource}`, queries: `${CATALOG_PATH}/${resource}/queries` }
    }
  })

/** Names a query may request, by resource: the OpenAPI document's enumerations. */
export const queryableNames = (catalog: ResourceCatalog) => ({
  detail: [...catalog.detail.keys(), ...catalog.logical.keys()],
  summary: [...catalog.summary.keys()],
  groupings: [...catalog.groupings.keys()]
})
