import { Effect, Option } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { apiOf } from "../src/shared/http-api.ts"
import { CurrentStaff } from "../src/access/access.ts"
import { AppConfig } from "../src/platform/config.ts"
import { RateLimiter, rateLimitHeaders, rateLimitedResponse } from "../src/platform/rate-limit.ts"
import { BadRequest, Forbidden, NotFound } from "../src/shared/errors.ts"
import { RequestContext } from "../src/shared/request-context.ts"
import { JSON_API, QueryResponse, ReportsApi, ReportsUnavailable } from "./api.ts"
import { QueryDocument } from "./grammar.ts"
import { describeReportResource, listReportResources, prepareExport, queryReport, checkRefreshAccess } from "./service.ts"
import { CSV, PARQUET, negotiate, parquetResponse } from "./export.ts"
import { csvResponse } from "./export-csv.ts"
import { ReportStore } from "./store.ts"
import { t } from "../src/shared/i18n.ts"
import { ReportsRepo } from "./repo.ts"
import { CurrentBusiness } from "../src/access/tenant.ts"
import { randomUUID } from "node:crypto"

/**
 * The query endpoint answers every outcome itself, success or refusal, so each carries the
 * Reporting API's own `RateLimit-*` headers (60 a minute per token and per IP, counted
 * apart from the Core API's limits; the request pipeline keeps headers an endpoint set).
 */

const statusOf = (error: BadRequest | Forbidden | NotFound | ReportsUnavailable): number =>
  error instanceof Forbidden ? 403
  : error instanceof NotFound ? 404
  : error instanceof ReportsUnavailable ? 503
  : 400

/**
 * The response's wire form is its type (strings, numbers, arrays: no transformation), so the
 * body is written as built; the compiler checks that the two agree. Schema's encoding walked
 * every cell of the page (about 40 µs for 100 rows), a tenth of the endpoint's own work.
 */
const encodeResponse = (body: QueryResponse): typeof QueryResponse.Encoded => body

const rateLimit = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function* () {
    const config = yield* AppConfig
    const limiter = yield* RateLimiter
    const staff = yield* CurrentStaff
    const ip = Option.getOrElse(request.remoteAddress, () => "unknown")
    const byToken = yield* limiter.hit(`reports:token:${staff.tokenId}`, config.reportRateLimit, config.rateLimitWindowSeconds)
    const byIp = yield* limiter.hit(`reports:ip:${ip}`, config.reportRateLimit, config.rateLimitWindowSeconds)
    // The headers show the limit that refuses the call, else the token's.
    return !byIp.allowed && byToken.allowed ? byIp : byToken
  })

const errorsResponse = (status: number, errors: ReadonlyArray<string>, headers: Record<string, string>) =>
  HttpServerResponse.jsonUnsafe({ errors }, { status, headers, contentType: JSON_API })

/**
 * The query, as JSON:API pages or, by `Accept`, as an export of every row (reports/export.ts).
 * Refusals are JSON whatever was asked: an error has no CSV form.
 */
const answer = ({ params, payload, request }: { params: { readonly resource: string }; payload: typeof QueryDocument.Type; request: HttpServerRequest.HttpServerRequest }) =>
    Effect.gen(function* () {
      const decision = yield* rateLimit(request)
      const headers = rateLimitHeaders(decision)
      const { locale } = yield* RequestContext
      const store = yield* ReportStore
      const config = yield* AppConfig
      if (!decision.allowed) return rateLimitedResponse(decision, locale, JSON_API)
      const format = negotiate(request.headers["accept"])
      if (format === undefined) {
        return errorsResponse(406, [t(locale, "report_not_acceptable", { types: [JSON_API, CSV, PARQUET].join(", ") })], headers)
      }
      const answered =
        format === "json"
          ? Effect.map(queryReport(params.resource, payload.data.attributes), (body) =>
              HttpServerResponse.jsonUnsafe(encodeResponse(body), { status: 200, headers, contentType: JSON_API }))
          : Effect.flatMap(prepareExport(params.resource, payload.data.attributes), (prepared) =>
              format === "csv"
                ? csvResponse(params.resource, prepared, store.exportDir, headers, config.reportExportRangeRows)
                : parquetResponse(params.resource, prepared, store.exportDir, headers))
      return yield* answered.pipe(
        Effect.catch((error) => {
          const status = statusOf(error)
          // A store is being built: worth asking again in a minute.
          return Effect.succeed(errorsResponse(status, error.errors, status === 503 ? { ...headers, "retry-after": "60" } : headers))
        })
      )
    })

/** The catalog: JSON:API, refused like a query (403, 404) in the error model. */
const catalogAnswer = <A, R>(effect: Effect.Effect<A, Forbidden | NotFound, R>) =>
  effect.pipe(
    Effect.map((body) => HttpServerResponse.jsonUnsafe(body, { status: 200, contentType: JSON_API })),
    Effect.catch((error) => Effect.succeed(errorsResponse(statusOf(error), error.errors, {})))
  )

/**
 * An owner's "refresh now": one per business per refresh interval
 * (`REPORT_REFRESH_SECONDS`), as asking more often than the worker refreshes anyway buys nothing.
 */
const refresh = () =>
  Effect.gen(function* () {
    const config = yield* AppConfig
    const business = yield* CurrentBusiness
    const { locale } = yield* RequestContext
    const refused = yield* checkRefreshAccess().pipe(Effect.as(undefined), Effect.catch((error) => Effect.succeed(error)))
    if (refused !== undefined) return errorsResponse(403, refused.errors, {})
    // Counted after the access check, so a refused caller does not use up an owner's request.
    const decision = yield* (yield* RateLimiter).hit(`reports:refresh:${business.id}`, 1, Math.max(1, config.reportRefreshSeconds))
    if (!decision.allowed) return rateLimitedResponse(decision, locale, JSON_API)
    yield* (yield* ReportsRepo).requestRefresh
    return HttpServerResponse.jsonUnsafe(
      { data: { type: "report_refreshes", id: randomUUID(), attributes: { state: "queued" } } },
      { status: 202, contentType: JSON_API }
    )
  })

export const ReportsLive = HttpApiBuilder.group(apiOf(ReportsApi), "reports", (handlers) =>
  handlers
    .handle("catalog", () => catalogAnswer(listReportResources()))
    .handle("describe", ({ params }) => catalogAnswer(describeReportResource(params.resource)))
    .handle("refresh", refresh)
    .handle("query", answer)
    .handle("queryShort", answer))
