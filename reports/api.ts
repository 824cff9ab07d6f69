import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "effect/http-api"
import { DeskAccess } from "../src/auth/access.ts"
import { docs } from "../src/shared/docs.ts"
import { BadRequest, Forbidden, NotFound, TooManyRequests } from "../src/shared/errors.ts"
import { REPORT_RESOURCES } from "./catalog/resources.ts"
import { WIRE_TYPES } from "./catalog/types.ts"
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
  meta: Schema.Record(Schema.String, Schema.Unknown).annotate({ description: "Other feedback, such as deprecations" })
}).annotate({ title: "ReportQueryResult" })
export type QueryResponse = typeof QueryResponse.Type

const queryEndpoint = {
  params: {
    resource: Schema.String.annotate({ description: `One of: ${REPORT_RESOURCES.join(", ")}` })
  },
  // JSON:API's media type, and plain JSON for clients that send that.
  payload: [QueryDocument.pipe(HttpApiSchema.asJson({ contentType: JSON_API })), QueryDocument],
  success: QueryResponse,
  error: [BadRequest, Forbidden, NotFound, TooManyRequests, ReportsUnavailable]
} as const

export const ReportsApi = HttpApiGroup.make("reports")
  .add(
    HttpApiEndpoint.post("query", "/desk/api/v3/reports/:resource/queries", queryEndpoint).annotateMerge(
      docs(
        "Query a report",
        "Detail rows without `group`, summary rows with it. Owners may query; other staff members when an owner grants access. " +
          "Limited to 60 queries a minute per token and per IP (`RateLimit-*` headers). An unknown resource answers 404."
      )
    )
  )
  .add(
    // The public reporting examples also post to this shorter path (compatibility.md): same query.
    HttpApiEndpoint.post("queryShort", "/api/v3/:resource/queries", queryEndpoint).annotateMerge(
      docs("Query a report (short path)", "The same query as `/desk/api/v3/reports/{resource}/queries`.")
    )
  )
  .middleware(DeskAccess)
  .annotateMerge(docs("Reports (Reporting API v3)"))
