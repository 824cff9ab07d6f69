import { Cause, Effect, LogLevel, Option, References } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApiError } from "effect/http-api"
import type { unhandled } from "effect/Types"
import { randomUUID } from "node:crypto"
import { BusinessDirectory, classifyHost } from "./auth/tenant.ts"
import { type MessageKey, type MessageParams, t } from "./shared/i18n.ts"
import { issueMessages } from "./shared/issues.ts"
import { type Locale, parseLocale, resolveLocale } from "./shared/locale.ts"
import { parseRailsForm } from "./shared/form-body.ts"
import { type BusinessRow, RequestContext, type RequestContextShape } from "./shared/request-context.ts"
import { AppConfig } from "./platform/config.ts"
import { type RateLimitDecision, RateLimiter, rateLimitHeaders, rateLimitedResponse } from "./platform/rate-limit.ts"

/**
 * The conventions every endpoint shares, applied once, before routing:
 * request id and structured access log; `.json` suffix; tenancy by Host; locale; rate limits
 * with their headers on every response; Rails-style form bodies turned into the JSON body
 * they stand for; and the error model for what the endpoints themselves cannot answer
 * (undecodable input → 400, unknown route → 404, unsupported body type → 415, a defect →
 * logged, generic 500).
 */

/** Paths that answer on any host: health checks and the API description. */
const HOSTLESS_PATHS = new Set(["/healthz", "/readyz", "/api/openapi.json", "/api/docs"])

const errorsResponse = (status: number, locale: Locale, key: MessageKey, params?: MessageParams) =>
  HttpServerResponse.jsonUnsafe({ errors: [t(locale, key, params)] }, { status })

const firstHeader = (value: string | undefined) => value?.split(",")[0]?.trim()

/** A path of plain segments, no query: the WHATWG parser would return it unchanged. */
const PLAIN_PATH = /^(?:\/[\w~-][\w.~-]*)*\/?$/
const NO_SEARCH_PARAMS = new URLSearchParams()

/**
 * The request target's path, query and parameters. Most API calls are a plain path, which
 * needs no URL parser; anything else (a query, escapes, dot segments) goes through `URL`.
 */
const parseUrl = (target: string): { readonly pathname: string; readonly search: string; readonly searchParams: URLSearchParams } =>
  PLAIN_PATH.test(target) ? { pathname: target === "" ? "/" : target, search: "", searchParams: NO_SEARCH_PARAMS } : new URL(target, "http://localhost")

export const RequestPipeline = HttpRouter.middleware(
  Effect.gen(function* () {
    const config = yield* AppConfig
    const directory = yield* BusinessDirectory
    const limiter = yield* RateLimiter
    // The access log is an Info line: below the configured level it is not even built, and
    // with logging off nothing reads the request id annotation either.
    const minimumLogLevel = yield* References.MinimumLogLevel
    const logsRequests = !LogLevel.isGreaterThan(minimumLogLevel, "Info")
    const logsAnything = minimumLogLevel !== "None"

    // Every failure is answered here; `unhandled` in the type only tells the router so.
    return (httpEffect): Effect.Effect<HttpServerResponse.HttpServerResponse, unhandled, HttpServerRequest.HttpServerRequest> =>
      HttpServerRequest.HttpServerRequest.use((original) => {
        const incomingId = original.headers["x-request-id"]
        const requestId = incomingId && /^[\w.:-]{1,100}$/.test(incomingId) ? incomingId : randomUUID()
        const handled = handle(httpEffect, original, requestId)
        return logsAnything ? Effect.annotateLogs(handled, { request_id: requestId }) : handled
      })

    function handle<E, R>(
      httpEffect: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>,
      original: HttpServerRequest.HttpServerRequest,
      requestId: string
    ) {
      return Effect.gen(function* () {
        const startedAt = performance.now()

        const url = parseUrl(original.url)
        const path =
          url.pathname.endsWith(".json") && !HOSTLESS_PATHS.has(url.pathname) ? url.pathname.slice(0, -5) : url.pathname
        const headerLocale = original.headers["x-fd-locale"]

        const finish = (response: HttpServerResponse.HttpServerResponse, decision?: RateLimitDecision) => {
          // An endpoint with a stricter limit of its own (the Reporting API) sets its headers first.
          const ownLimit = response.headers["ratelimit-limit"] !== undefined
          const withHeaders = HttpServerResponse.setHeaders(response, {
            "x-request-id": requestId,
            ...(decision && !ownLimit ? rateLimitHeaders(decision) : {})
          })
          if (!logsRequests) return Effect.succeed(withHeaders)
          return Effect.as(
            Effect.logInfo("request").pipe(
              Effect.annotateLogs({
                method: original.method,
                path,
                status: withHeaders.status,
                duration_ms: Math.round((performance.now() - startedAt) * 100) / 100
              })
            ),
            withHeaders
          )
        }

        // Rate limits first: every call counts against its IP, authenticated calls also
        // against their token; the headers show the limit that applies to the caller.
        const accessToken =
          original.headers["authorization"]?.match(/^\s*Bearer\s+(\S+)\s*$/i)?.[1] ??
          url.searchParams.get("access_token") ??
          undefined
        const ip = Option.getOrElse(original.remoteAddress, () => "unknown")
        const ipDecision = yield* limiter.hit(`ip:${ip}`, config.rateLimitPerIp, config.rateLimitWindowSeconds)
        const tokenDecision = accessToken
          ? yield* limiter.hit(`token:${accessToken}`, config.rateLimitPerToken, config.rateLimitWindowSeconds)
          : undefined
        const decision = tokenDecision && (ipDecision.allowed || !tokenDecision.allowed) ? tokenDecision : ipDecision
        if (!ipDecision.allowed || (tokenDecision && !tokenDecision.allowed)) {
          return yield* finish(rateLimitedResponse(decision, parseLocale(headerLocale) ?? "en"), decision)
        }

        let business: Option.Option<BusinessRow> = Option.none()
        if (!HOSTLESS_PATHS.has(path)) {
          const host = classifyHost(firstHeader(original.headers["x-forwarded-host"]) ?? original.headers["host"], config.baseDomain)
          if (host._tag === "Foreign") {
            return yield* finish(errorsResponse(404, parseLocale(headerLocale) ?? "en", "unknown_host", { host: host.host }), decision)
          }
          if (host._tag === "Business") {
            business = yield* directory.bySubdomain(host.subdomain)
            if (Option.isNone(business)) {
              return yield* finish(
                errorsResponse(404, parseLocale(headerLocale) ?? "en", "unknown_host", {
                  host: `${host.subdomain}.${config.baseDomain}`
                }),
                decision
              )
            }
          }
        }
        const locale = resolveLocale(headerLocale, Option.getOrUndefined(Option.map(business, (b) => b.default_locale)))

        let request = path === url.pathname ? original : original.modify({ url: path + url.search })
        const contentType = original.headers["content-type"] ?? ""
        if (contentType.startsWith("application/x-www-form-urlencoded")) {
          const text = yield* Effect.option(original.text)
          if (Option.isNone(text)) return yield* finish(errorsResponse(400, locale, "invalid_body"), decision)
          if (original.method === "GET" || original.method === "HEAD") {
            // `curl -X GET -d ...` sends the parameters as a body, which Rails reads like the
            // query (and a fetch Request cannot carry): add them to the query, which wins.
            const search = new URLSearchParams(url.search)
            for (const [key, value] of new URLSearchParams(text.value)) if (!url.searchParams.has(key)) search.append(key, value)
            const query = search.toString()
            request = original.modify({ url: path + (query ? `?${query}` : "") })
          } else {
            const headers = { ...original.headers, "content-type": "application/json" }
            delete (headers as Record<string, string>)["content-length"]
            request = HttpServerRequest.fromWeb(
              new Request(new URL(path + url.search, "http://localhost"), {
                method: original.method,
                headers,
                body: JSON.stringify(parseRailsForm(text.value))
              })
            ).modify({ remoteAddress: original.remoteAddress })
          }
        }

        const scheme = firstHeader(original.headers["x-forwarded-proto"]) === "https" ? "https" : "http"
        const hostHeader = firstHeader(original.headers["x-forwarded-host"]) ?? original.headers["host"] ?? "localhost"
        const context: RequestContextShape = {
          requestId,
          locale,
          business,
          origin: `${scheme}://${hostHeader}`,
          originalUrl: url.pathname + url.search,
          accessToken: Option.fromNullishOr(accessToken),
          clientId: Option.fromNullishOr(url.searchParams.get("client_id"))
        }

        // The request is provided again only when the pipeline changed it (suffix, form body).
        const routed = request === original ? httpEffect : Effect.provideService(httpEffect, HttpServerRequest.HttpServerRequest, request)
        const response = yield* routed.pipe(
          Effect.provideService(RequestContext, context),
          Effect.catchCause((cause) => {
            const failure = Cause.squash(cause)
            if (HttpApiError.HttpApiSchemaError.is(failure) && failure.kind !== "Body" && failure.kind !== "ResponseHeaders") {
              return Effect.succeed(
                HttpServerResponse.jsonUnsafe({ errors: issueMessages(failure.cause.issue, failure.kind, locale) }, { status: 400 })
              )
            }
            const tag = (failure as { readonly reason?: { readonly _tag?: string } } | undefined)?.reason?._tag
            if (tag === "RouteNotFound") {
              return Effect.succeed(errorsResponse(404, locale, "route_not_found", { method: original.method, path }))
            }
            if (tag === "RequestParseError") {
              return Effect.succeed(errorsResponse(400, locale, "invalid_json"))
            }
            return Effect.as(
              Effect.logError("unhandled failure", cause),
              errorsResponse(500, locale, "internal_error", { request_id: requestId })
            )
          })
        )
        // HttpApi answers a body of a content type no endpoint payload declares with a bare
        // text 415; every refusal carries the error model instead.
        if (response.status === 415) {
          const mediaType = contentType.split(";")[0]!.trim().toLowerCase() || "(none)"
          return yield* finish(errorsResponse(415, locale, "unsupported_media_type", { content_type: mediaType }), decision)
        }
        return yield* finish(response, decision)
      })
    }
  }),
  { global: true }
)
