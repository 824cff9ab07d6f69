import { Cause, Effect, LogLevel, Option, References } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApiError } from "effect/http-api"
import type { unhandled } from "effect/Types"
import { randomUUID } from "node:crypto"
import { IncomingMessage } from "node:http"
import { BusinessDirectory, classifyHost, type HostKind } from "./auth/tenant.ts"
import { type MessageKey, type MessageParams, t } from "./shared/i18n.ts"
import { issueMessages } from "./shared/issues.ts"
import { type Locale, parseLocale, resolveLocale } from "./shared/locale.ts"
import { parseRailsForm } from "./shared/form-body.ts"
import { foldArrayParams } from "./shared/query-lists.ts"
import { type BusinessRow, RequestContext, type RequestContextShape } from "./shared/request-context.ts"
import { AppConfig } from "./platform/config.ts"
import { type RateLimitDecision, RateLimiter, rateLimitedResponse } from "./platform/rate-limit.ts"

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

const unknownAddress = () => "unknown"

const firstHeader = (value: string | undefined) => value?.split(",")[0]?.trim()

/** A path of plain segments, no query: the WHATWG parser would return it unchanged. */
const PLAIN_PATH = /^(?:\/[\w~-][\w.~-]*)*\/?$/
const NO_SEARCH_PARAMS = new URLSearchParams()

/**
 * The request target's path, query and parameters. Most API calls are a plain path, which
 * needs no URL parser; anything else (a query, escapes, dot segments) goes through `URL`.
 */
interface ParsedUrl {
  readonly pathname: string
  readonly search: string
  readonly searchParams: URLSearchParams
}
const parseUrl = (target: string): ParsedUrl =>
  PLAIN_PATH.test(target) ? { pathname: target === "" ? "/" : target, search: "", searchParams: NO_SEARCH_PARAMS } : new URL(target, "http://localhost")

/**
 * The request's headers as Node parsed them, when the request is Node's own and its target was
 * not rewritten (an absolute-form target makes the adapter rewrite `Host`): reading a few of
 * them this way spares building Effect's `Headers` copy of all of them on every request.
 * Node lower-cases the names and joins repeated values as `Headers` does; the only header it
 * keeps as an array (`set-cookie`) is a response header, never read here.
 */
type RawHeaders = Readonly<Record<string, string | undefined>>
const headersOf = (request: HttpServerRequest.HttpServerRequest): RawHeaders => {
  const source = (request as { readonly source?: unknown }).source
  return source instanceof IncomingMessage && source.url === request.url
    ? (source.headers as RawHeaders)
    : request.headers
}

const REQUEST_ID = /^[\w.:-]{1,100}$/
const BEARER = /^\s*Bearer\s+(\S+)\s*$/i
/** The usual shape of the header, read without a match object. */
const PLAIN_BEARER = /^Bearer \S+$/

const bearerToken = (authorization: string | undefined): string | undefined => {
  if (authorization === undefined) return undefined
  if (PLAIN_BEARER.test(authorization)) return authorization.slice(7)
  return BEARER.exec(authorization)?.[1]
}

/**
 * Host header → kind, remembered: every request of a business carries the same header, and
 * classifying it lower-cases, strips and tests it. Bounded (any client can send any host).
 */
const makeHostKinds = (baseDomain: string) => {
  const kinds = new Map<string, HostKind>()
  return (header: string | undefined): HostKind => {
    if (header === undefined) return classifyHost(undefined, baseDomain)
    let kind = kinds.get(header)
    if (kind === undefined) {
      if (kinds.size >= 1_000) kinds.clear()
      kinds.set(header, (kind = classifyHost(header, baseDomain)))
    }
    return kind
  }
}

/** What the pipeline learned about one request before it routes it. */
interface Incoming {
  readonly original: HttpServerRequest.HttpServerRequest
  readonly headers: RawHeaders
  readonly requestId: string
  readonly startedAt: number
  readonly url: ParsedUrl
  /** The path without a `.json` suffix. */
  readonly path: string
  readonly headerLocale: string | undefined
  readonly accessToken: string | undefined
}

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
    const hostKind = makeHostKinds(config.baseDomain)
    const { rateLimitPerIp, rateLimitPerToken, rateLimitWindowSeconds } = config

    // Every request runs this: plain functions chained with `Effect.flatMap` rather than a
    // generator, and what the request needs carried in one `Incoming` record.
    // Every failure is answered here; `unhandled` in the type only tells the router so.
    return (httpEffect): Effect.Effect<HttpServerResponse.HttpServerResponse, unhandled, HttpServerRequest.HttpServerRequest> =>
      HttpServerRequest.HttpServerRequest.use((original) => {
        const headers = headersOf(original)
        const incomingId = headers["x-request-id"]
        const requestId = incomingId && REQUEST_ID.test(incomingId) ? incomingId : randomUUID()
        const url = parseUrl(original.url)
        const pathname = url.pathname
        const accessToken = bearerToken(headers["authorization"]) ?? url.searchParams.get("access_token") ?? undefined
        const incoming: Incoming = {
          original,
          headers,
          requestId,
          startedAt: logsRequests ? performance.now() : 0,
          url,
          path: pathname.endsWith(".json") && !HOSTLESS_PATHS.has(pathname) ? pathname.slice(0, -5) : pathname,
          headerLocale: headers["x-fd-locale"],
          accessToken
        }
        // Rate limits first: every call counts against its IP, authenticated calls also
        // against their token; the headers show the limit that applies to the caller.
        const ip = Option.getOrElse(original.remoteAddress, unknownAddress)
        const limited = Effect.flatMap(
          limiter.hit(`ip:${ip}`, rateLimitPerIp, rateLimitWindowSeconds),
          accessToken === undefined
            ? (ipDecision) => afterLimits(httpEffect, incoming, ipDecision, undefined)
            : (ipDecision) =>
              Effect.flatMap(
                limiter.hit(`token:${accessToken}`, rateLimitPerToken, rateLimitWindowSeconds),
                (tokenDecision) => afterLimits(httpEffect, incoming, ipDecision, tokenDecision)
              )
        )
        return logsAnything ? Effect.annotateLogs(limited, { request_id: requestId }) : limited
      })

    function finish(
      incoming: Incoming,
      response: HttpServerResponse.HttpServerResponse,
      decision: RateLimitDecision
    ): Effect.Effect<HttpServerResponse.HttpServerResponse> {
      // An endpoint with a stricter limit of its own (the Reporting API) sets its headers first.
      const withHeaders = HttpServerResponse.setHeaders(
        response,
        response.headers["ratelimit-limit"] !== undefined
          ? { "x-request-id": incoming.requestId }
          : {
            "x-request-id": incoming.requestId,
            "ratelimit-limit": String(decision.limit),
            "ratelimit-remaining": String(decision.remaining),
            "ratelimit-reset": String(decision.resetAt)
          }
      )
      if (!logsRequests) return Effect.succeed(withHeaders)
      return Effect.as(
        Effect.logInfo("request").pipe(
          Effect.annotateLogs({
            method: incoming.original.method,
            path: incoming.path,
            status: withHeaders.status,
            duration_ms: Math.round((performance.now() - incoming.startedAt) * 100) / 100
          })
        ),
        withHeaders
      )
    }

    function afterLimits<E, R>(
      httpEffect: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>,
      incoming: Incoming,
      ipDecision: RateLimitDecision,
      tokenDecision: RateLimitDecision | undefined
    ) {
      const decision = tokenDecision && (ipDecision.allowed || !tokenDecision.allowed) ? tokenDecision : ipDecision
      if (!ipDecision.allowed || (tokenDecision && !tokenDecision.allowed)) {
        return finish(incoming, rateLimitedResponse(decision, parseLocale(incoming.headerLocale) ?? "en"), decision)
      }
      if (HOSTLESS_PATHS.has(incoming.path)) return afterHost(httpEffect, incoming, decision, Option.none())
      const { headers } = incoming
      const host = hostKind(firstHeader(headers["x-forwarded-host"]) ?? headers["host"])
      if (host._tag === "Foreign") {
        return finish(incoming, errorsResponse(404, parseLocale(incoming.headerLocale) ?? "en", "unknown_host", { host: host.host }), decision)
      }
      if (host._tag === "Account") return afterHost(httpEffect, incoming, decision, Option.none())
      return Effect.flatMap(directory.bySubdomain(host.subdomain), (business) =>
        Option.isNone(business)
          ? finish(
            incoming,
            errorsResponse(404, parseLocale(incoming.headerLocale) ?? "en", "unknown_host", {
              host: `${host.subdomain}.${config.baseDomain}`
            }),
            decision
          )
          : afterHost(httpEffect, incoming, decision, business))
    }

    function afterHost<E, R>(
      httpEffect: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>,
      incoming: Incoming,
      decision: RateLimitDecision,
      business: Option.Option<BusinessRow>
    ) {
      const locale = resolveLocale(incoming.headerLocale, Option.isSome(business) ? business.value.default_locale : undefined)
      const { original, path, url } = incoming
      const contentType = incoming.headers["content-type"] ?? ""
      if (!contentType.startsWith("application/x-www-form-urlencoded")) {
        // `ids[]=1&ids[]=2` is read as `ids=1,2` (shared/query-lists.ts).
        const search = foldArrayParams(url.search)
        const request = path === url.pathname && search === url.search ? original : original.modify({ url: path + search })
        return routeRequest(httpEffect, incoming, decision, business, locale, request, contentType)
      }
      return Effect.flatMap(Effect.option(original.text), (text) => {
        if (Option.isNone(text)) return finish(incoming, errorsResponse(400, locale, "invalid_body"), decision)
        let request: HttpServerRequest.HttpServerRequest
        if (original.method === "GET" || original.method === "HEAD") {
          // `curl -X GET -d ...` sends the parameters as a body, which Rails reads like the
          // query (and a fetch Request cannot carry): add them to the query, which wins.
          const search = new URLSearchParams(url.search)
          for (const [key, value] of new URLSearchParams(text.value)) if (!url.searchParams.has(key)) search.append(key, value)
          const query = search.toString()
          request = original.modify({ url: path + foldArrayParams(query ? `?${query}` : "") })
        } else {
          const headers = { ...original.headers, "content-type": "application/json" }
          delete (headers as Record<string, string>)["content-length"]
          request = HttpServerRequest.fromWeb(
            new Request(new URL(path + foldArrayParams(url.search), "http://localhost"), {
              method: original.method,
              headers,
              body: JSON.stringify(parseRailsForm(text.value))
            })
          ).modify({ remoteAddress: original.remoteAddress })
        }
        return routeRequest(httpEffect, incoming, decision, business, locale, request, contentType)
      })
    }

    function routeRequest<E, R>(
      httpEffect: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>,
      incoming: Incoming,
      decision: RateLimitDecision,
      business: Option.Option<BusinessRow>,
      locale: Locale,
      request: HttpServerRequest.HttpServerRequest,
      contentType: string
    ) {
      const { original, headers, url, path, requestId } = incoming
      const scheme = firstHeader(headers["x-forwarded-proto"]) === "https" ? "https" : "http"
      const hostHeader = firstHeader(headers["x-forwarded-host"]) ?? headers["host"] ?? "localhost"
      const context: RequestContextShape = {
        requestId,
        locale,
        business,
        origin: `${scheme}://${hostHeader}`,
        originalUrl: url.pathname + url.search,
        accessToken: Option.fromNullishOr(incoming.accessToken),
        clientId: Option.fromNullishOr(url.searchParams.get("client_id"))
      }
      // The request is provided again only when the pipeline changed it (suffix, form body).
      const routed = request === original ? httpEffect : Effect.provideService(httpEffect, HttpServerRequest.HttpServerRequest, request)
      return Effect.flatMap(
        Effect.catchCause(Effect.provideService(routed, RequestContext, context), (cause) => {
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
        }),
        (response) => {
          // HttpApi answers a body of a content type no endpoint payload declares with a bare
          // text 415; every refusal carries the error model instead.
          if (response.status === 415) {
            const mediaType = contentType.split(";")[0]!.trim().toLowerCase() || "(none)"
            return finish(incoming, errorsResponse(415, locale, "unsupported_media_type", { content_type: mediaType }), decision)
          }
          return finish(incoming, response, decision)
        }
      )
    }
  }),
  { global: true }
)
