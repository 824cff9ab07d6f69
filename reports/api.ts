import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { DeskAccess } from "../src/access/access.ts"
import { docs } from "../src/shared/docs.ts"
import { BadRequest, Forbidden, NotFound, TooManyRequests } from "../src/shared/errors.ts"
import { queryableNames } from "./catalog/describe.ts"
import { REPORT_RESOURCES, resourceCatalog } from "./catalog/resources.ts"
import { WIRE_TYPES } from "./catalog/types.ts"
import { QUERY_ENDPOINT_REFUSALS, ReportRefusals } from "./refusals.ts"
import { QueryDocument } from "./grammar.ts"

/** The Reporting API v3: one query endpoint per resource (JSON:API 1.0). */

export const JSON_API = "application/vnd.api+json"

export class ReportsUnavailable extends Schema.Error<ReportsUnavailable>("ReportsUnavailable")(
  { errors: Schema.Array(Schema.String) },
  { httpApiStatus: 503, description: "The report store has not been built yet; a build has been requested" }
) {}

const Cell = Schema.Union([Schema.String, Schema.Number, Schema.Null, Schema.Array(Schema.NullOr(Schema.String))]).annotate({
  description: "A value in its wire type: boolean `t`/`f`, currency and integer numbers, ISO dates, datetimes with offset, times, ranges as [start, end]"
})

const Field = Schema.Struct({
  name: Schema.String,
  type: Schema.Literals(WIRE_TYPES),
  label: Schema.optionalKey(Schema.String.annotate({ description: "Display name of an expanded logical field (a custom field's name)" }))
})

export const QueryResponse = Schema.Struct({
  data: Schema.Struct({
    type: Schema.Literal("queries"),
    id: Schema.String.annotate({ description: "A UUID identifying this query's answer" }),
    attributes: Schema.Struct({
      rows: Schema.Array(Schema.Array(Cell)).annotate({ description: "One array per row, values in the order of `fields`" }),
      fields: Schema.Array(Field).annotate({ description: "Name and type of every returned column; summary rows begin with group_label" }),
      duration: Schema.Number.annotate({ description: "Query time in seconds" }),
      has_more: Schema.Boolean,
      last_key: Schema.NullOr(Schema.String).annotate({ description: "Key of the last row: the next page's `page.starting_after`" }),
      total_count: Schema.optionalKey(Schema.Int.annotate({ description: "Rows (summary: groups) matching the query; when requested" })),
      meta: Schema.Record(Schema.String, Schema.Unknown)
    })
  }),
  meta: Schema.Struct({
    data_as_of: Schema.String.annotate({
      description: "When the report store last read PostgreSQL (its snapshot), ISO 8601 with the business's offset: changes after it are not in the rows yet"
    }),
    generation: Schema.Int.annotate({ description: "The report store generation the rows were read from" })
  }).annotate({ description: "How fresh the rows are" })
}).annotate({ title: "ReportQueryResult" })

export const RefreshResponse = Schema.Struct({
  data: Schema.Struct({
    type: Schema.Literal("report_refreshes"),
    id: Schema.String,
    attributes: Schema.Struct({ state: Schema.Literal("queued") })
  })
}).annotate({ title: "ReportRefresh" })
export type QueryResponse = typeof QueryResponse.Type

const Links = Schema.Struct({ self: Schema.String, queries: Schema.String })

const CatalogField = Schema.Struct({
  name: Schema.String,
  type: Schema.Literals(WIRE_TYPES),
  description: Schema.String,
  values: Schema.optionalKey(Schema.Array(Schema.String).annotate({ description: "The closed set of an enum field" })),
  filterable: Schema.Boolean.annotate({ description: "Can be named in `filter` (row values only)" }),
  sortable: Schema.Boolean.annotate({ description: "Can be named in `sort`: row values sort detail rows, summary fields grouped rows" }),
  operators: Schema.Array(Schema.String).annotate({ description: "The filter operations its type takes" })
})

export const ResourceListResponse = Schema.Struct({
  data: Schema.Array(
    Schema.Struct({
      type: Schema.Literal("report_resources"),
      id: Schema.String,
      attributes: Schema.Struct({ detail_field_count: Schema.Int, summary_field_count: Schema.Int, grouping_count: Schema.Int }),
      links: Links
    })
  ),
  meta: Schema.Record(Schema.String, Schema.Unknown)
}).annotate({ title: "ReportResourceList" })

export const ResourceResponse = Schema.Struct({
  data: Schema.Struct({
    type: Schema.Literal("report_resources"),
    id: Schema.String,
    attributes: Schema.Struct({
      detail_fields: Schema.Array(CatalogField).annotate({ description: "Fields of detail rows (queries without `group`)" }),
      summary_fields: Schema.Array(CatalogField).annotate({ description: "Fields of summary rows (queries with `group`)" }),
      groupings: Schema.Array(CatalogField).annotate({ description: "Values a query may `group` by" }),
      logical_fields: Schema.Array(Schema.Struct({ name: Schema.String, description: Schema.String })).annotate({
        description: "Requested names that expand to several fields (their instances come back in `fields`)"
      })
    }),
    links: Links
  }),
  meta: Schema.Record(Schema.String, Schema.Unknown)
}).annotate({ title: "ReportResource" })

/**
 * The OpenAPI document enumerates each resource's names. One endpoint serves every
 * resource (`:resource`), so its body schema is one; the names go into the operation as one
 * request example per resource, detail and grouped, whose `fields` list every field and
 * whose description lists the groupings, and the `resource` parameter becomes an enum. The
 * docs page and generated clients offer them; the catalog in resources.ts writes them.
 */
const enumerateNames = (operation: Record<string, any>): Record<string, any> => {
  const examples: Record<string, unknown> = {}
  for (const resource of REPORT_RESOURCES) {
    const names = queryableNames(resourceCatalog(resource)!)
    examples[resource] = {
      summary: `${resource}: every detail field`,
      value: { data: { type: "queries", attributes: { fields: names.detail } } }
    }
    examples[`${resource}_grouped`] = {
      summary: `${resource}: every summary field, grouped`,
      description: `Groupings of ${resource}: ${names.groupings.map((n) => `\`${n}\``).join(", ")}`,
      value: { data: { type: "queries", attributes: { group: names.groupings[0], fields: names.summary } } }
    }
  }
  withExports(operation)
  const content = operation.requestBody?.content as Record<string, Record<string, unknown>> | undefined
  for (const media of Object.values(content ?? {})) media.examples = examples
  for (const parameter of (operation.parameters ?? []) as Array<Record<string, any>>) {
    if (parameter.name === "resource") parameter.schema = { ...parameter.schema, enum: [...REPORT_RESOURCES] }
  }
  return operation
}

/**
 * The export media types (reports/export.ts) beside the JSON:API answer, and the 406 for an
 * `Accept` the endpoint cannot produce. HttpApi describes one success schema per endpoint; the
 * exports are streams the handler writes itself, so they are added to the document here.
 */
const withExports = (operation: Record<string, any>) => {
  const ok = operation.responses?.["200"]
  if (ok) {
    ok.content = {
      ...ok.content,
      "text/csv": {
        schema: {
          type: "string",
          description:
            "`Accept: text/csv`: every row of the result (the page is ignored), RFC 4180, a header row of the field names, " +
            "values as in the JSON rows (NULL an empty field, an empty text `\"\"`, a range `start/end`); " +
            "`Content-Disposition: attachment; filename=\"<resource>-<data_as_of>.csv\"`"
        }
      },
      "application/vnd.apache.parquet": {
        schema: {
          type: "string",
          format: "binary",
          description:
            "`Accept: application/vnd.apache.parquet`: every row of the result (the page is ignored) as a Parquet file written by DuckDB; " +
            "columns named by the fields: currency and integers BIGINT (cents), datetimes TIMESTAMPTZ, dates DATE, times TIME, booleans BOOLEAN, " +
            "floats DOUBLE, text VARCHAR, ranges a list of their two ends"
        }
      }
    }
  }
  operation.responses = {
    ...operation.responses,
    "406": {
      description: "The `Accept` header allows none of the endpoint's media types (JSON:API, CSV, Parquet)",
      content: { [JSON_API]: { schema: { type: "object", properties: { errors: { type: "array", items: { type: "string" } } } } } }
    }
  }
}

const queryEndpoint = {
  params: {
    resource: Schema.String.annotate({ description: `One of: ${REPORT_RESOURCES.join(", ")}` })
  },
  // JSON:API's media type, and plain JSON for clients that send that.
  payload: [QueryDocument.pipe(HttpApiSchema.asJson({ contentType: JSON_API })), QueryDocument],
  success: QueryResponse,
  error: [BadRequest, Forbidden, NotFound, TooManyRequests, ReportsUnavailable]
} as const

const catalogErrors = [Forbidden, NotFound, TooManyRequests] as const

/** A query's named refusals: access, the resource, and every validation problem (400). */
const QUERY_REFUSALS = QUERY_ENDPOINT_REFUSALS

export const ReportsApi = HttpApiGroup.make("reports")
  .add(
    HttpApiEndpoint.get("catalog", "/desk/api/v3/reports", { success: ResourceListResponse, error: catalogErrors }).annotateMerge(
      docs("List the report resources", "Every resource a query may name, with links to its catalog. The same access as queries.", [
        ReportRefusals.reportAccessDenied
      ])
    )
  )
  .add(
    HttpApiEndpoint.get("describe", "/desk/api/v3/reports/:resource", {
      params: { resource: Schema.String.annotate({ description: `One of: ${REPORT_RESOURCES.join(", ")}` }) },
      success: ResourceResponse,
      error: catalogErrors
    }).annotateMerge(
      docs(
        "Describe a report resource",
        "Every detail field, summary field and grouping of the resource: its type, meaning, enum values, whether it can be " +
          "filtered and sorted, and the filter operations its type takes. The same access as queries; an unknown resource answers 404.",
        [ReportRefusals.reportAccessDenied, ReportRefusals.reportUnknownResource]
      )
    )
  )
  .add(
    HttpApiEndpoint.post("refresh", "/desk/api/v3/reports/refreshes", {
      success: RefreshResponse.pipe(HttpApiSchema.status(202)),
      error: [Forbidden, TooManyRequests]
    }).annotateMerge(
      docs(
        "Refresh the report store now",
        "Owners only. Queues the incremental refresh of the report store (normally every 30 seconds) to run now and answers 202; " +
          "the next replies' `meta.data_as_of` moves once the worker ran it. At most one request per business per refresh interval (429 beyond).",
        [ReportRefusals.ownerRequired]
      )
    )
  )
  .add(
    HttpApiEndpoint.post("query", "/desk/api/v3/reports/:resource/queries", queryEndpoint).annotateMerge(
      docs(
        "Query a report",
        "Detail rows without `group`, summary rows with it. Owners may query; other staff members when an owner grants access. " +
          "Limited to 60 queries a minute per token and per IP (`RateLimit-*` headers). An unknown resource answers 404. " +
          "The examples list every field and grouping of each resource; `GET /desk/api/v3/reports/{resource}` describes them. " +
          "Export: with `Accept: text/csv` or `Accept: application/vnd.apache.parquet` the answer is every row of the result, streamed " +
          "(the `page` attribute, page size and `starting_after`, and `total_count` are ignored); access, validation and refusals are " +
          "those of JSON queries, and refusals stay JSON. An `Accept` allowing none of the three media types answers 406. " +
          "An invalid query answers 400 with every problem found in it (unknown fields, sorts, filters, page sizes), each naming its culprit.",
        QUERY_REFUSALS
      )
    ).annotateMerge(OpenApi.annotations({ transform: enumerateNames }))
  )
  .add(
    // The public reporting examples also post to this shorter path (compatibility.md): same query.
    HttpApiEndpoint.post("queryShort", "/api/v3/:resource/queries", queryEndpoint).annotateMerge(
      docs("Query a report (short path)", "The same query as `/desk/api/v3/reports/{resource}/queries`.", QUERY_REFUSALS)
    ).annotateMerge(OpenApi.annotations({ transform: enumerateNames }))
  )
  .middleware(DeskAccess)
  .annotateMerge(docs("Reports (Reporting API v3)"))
