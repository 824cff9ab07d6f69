import { ByteSize, Cause, Effect, LogLevel, Option, References, Tracer } from "effect"
import { HttpRouter, HttpServerError, HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApiError } from "effect/http-api"
import type { unhandled } from "effect/Types"
import { randomUUID } from "node:crypto"
import { IncomingMessage } from "node:http"
import { TLSSocket } from "node:tls"
import { BusinessDirectory, classifyHost, type HostKind } from "./auth/tenant.ts"
import { type MessageKey, type MessageParams, t } from "./shared/i18n.ts"
import { issueMessages } from "./shared/issues.ts"
import { type Locale, parseLocale, resolveLocale } from "./shared/locale.ts"
import { parseRailsForm } from "./shared/form-body.ts"
import { foldArrayParams } from "./shared/query-lists.ts"
import { type BusinessRow, RequestContext, type RequestContextShape } from "./shared/request-context.ts"
import { isDatabaseUnavailable } from "./platform/database-unavailable.ts"
import { AppConfig, DEFAULT_BODY_LIMIT_BYTES, DEFAULT_OAUTH_BODY_LIMIT_BYTES } from "./platform/config.ts"
import { type RateLimitDecision, RateLimiter, rateLimitedResponse } from "./platform/rate-limit.ts"
import { recordRateLimitRefusal, recordRequest } from "./platform/metrics.ts"
import { clientAddress, lastForwarded, peerIsTrusted, TRUST_NONE } from "./platform/trust-proxy.ts"

/**
 * The conventions every endpoint shares, applied once, before routing:
 * request id and structured access log; `.json` suffix; the client's address and the forwarded
 * headers of trusted proxies only (TRUST_PROXY); tenancy by Host; locale; rate limits with their
 * headers on every response; security headers (nosniff, HSTS on https); Rails-style form bodies
 * turned into the JSON body they stand for; bounded input (issue 29: a body over its size limit →
 * 413, a form too deep or with too many fields → 400, a NUL character anywhere → 400); and the
 * error model for what the endpoints themselves cannot answer (undecodable input → 400, unknown
 * route → 404, unsupported body type → 415, a defect → logged with its request id, generic 500).
 */

/** Paths that answer on any host: health checks and the API description. */
const HOSTLESS_PATHS = new Set(["/healthz", "/readyz", "/api/openapi.json", "/api/docs"])

const errorsResponse = (status: number, locale: Locale, key: MessageKey, params?: MessageParams) =>
  HttpServerResponse.jsonUnsafe({ errors: [t(locale, key, params)] }, { status })

const unknownAddress = () => "unknown"

/** A year; without includeSubDomains, each business host opts in when it is visited over https. */
const HSTS = "max-age=31536000"

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
const parseUrl = (target: string): ParsedUrl | undefined => {
  if (PLAIN_PATH.test(target)) return { pathname: target === "" ? "/" : target, search: "", searchParams: NO_SEARCH_PARAMS }
  // A target the WHATWG parser refuses (`//`, say: a host with no name) is the client's error.
  try {
    return new URL(target, "http://localhost")
  } catch {
    return undefined
  }
}

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

/**
 * The authorization server's forms (`/oauth/*`, `/accounts/*`) get the smaller body limit: they
 * are reachable without credentials and never carry more than a few short fields.
 */
const isOAuthPath = (path: string) => path.startsWith("/oauth/") || path.startsWith("/accounts/")

/** A JSON media type (`application/json`, JSON:API's `application/vnd.api+json`). */
const isJsonType = (contentType: string) => contentType.startsWith("application/json") || /^[^;]*\+json/.test(contentType)

/**
 * A NUL character in JSON text: raw (which JSON.parse refuses anyway) or as the escape
 * `\u0000` preceded by an even number of backslashes (`\\u0000` is a backslash and "u0000").
 */
const JSON_NUL = /(?:^|[^\\])(?:\\\\)*\\u0000/
const hasJsonNul = (text: string) => text.includes("\0") || (text.includes("\\u0000") && JSON_NUL.test(text))

/** Node's own rule for a header value (`checkInvalidHeaderChar`): a CR or LF would make it throw while writing. */
const INVALID_HEADER_VALUE = /[^\t\x20-\x7e\x80-\xff]/

/** The request announces a body (RFC 9112 section 6.3): a non-zero Content-Length, or a Transfer-Encoding. */
const announcesBody = (headers: RawHeaders) =>
  (headers["content-length"] !== undefined && headers["content-length"] !== "0") || headers["transfer-encoding"] !== undefined

/** Reading a body failed because it passed `MaxBodySize` (the adapter's RequestParseError "BodyTooLarge"). */
const isBodyTooLarge = (failure: unknown) =>
  HttpServerError.isHttpServerError(failure) && failure.reason._tag === "RequestParseError" && failure.reason.reason === "BodyTooLarge"

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
  /** The client's IP address (src/platform/trust-proxy.ts): the per-IP budgets' key. */
  readonly clientAddress: string
  /** The Host the client addressed: `X-Forwarded-Host` only from a trusted proxy. */
  readonly host: string | undefined
  /** Over TLS, directly or (`X-Forwarded-Proto`) through a trusted proxy. */
  readonly https: boolean
  /** The context handed to the route, once routed: its `route` is the metrics' label. */
  context: RequestContextShape | undefined
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
    // With OTLP export on (src/platform/telemetry.ts) the server span Effect opens for every
    // request is told the route template, the request id and the business; off, nothing is done.
    const tracing = (yield* Tracer.Tracer) !== Tracer.nativeTracer
    const hostKind = makeHostKinds(config.baseDomain)
    const { rateLimitPerIp, rateLimitPerToken, rateLimitWindowSeconds } = config
    const trust = config.trustProxy ?? TRUST_NONE
    const bodyLimit = config.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES
    const oauthBodyLimit = config.oauthBodyLimitBytes ?? DEFAULT_OAUTH_BODY_LIMIT_BYTES
    const bodyLimitSize = ByteSize.bytes(bodyLimit)
    const oauthBodyLimitSize = ByteSize.bytes(oauthBodyLimit)

    // Every request runs this: plain functions chained with `Effect.flatMap` rather than a
    // generator, and what the request needs carried in one `Incoming` record.
    // Every failure is answered here; `unhandled` in the type only tells the router so.
    return (httpEffect): Effect.Effect<HttpServerResponse.HttpServerResponse, unhandled, HttpServerRequest.HttpServerRequest> =>
      HttpServerRequest.HttpServerRequest.use((original) => {
        const headers = headersOf(original)
        const incomingId = headers["x-request-id"]
        const requestId = incomingId && REQUEST_ID.test(incomingId) ? incomingId : randomUUID()
        // A defect of the pipeline itself (thrown while a request is prepared, outside the
        // endpoint's own guard in `routeRequest`: a stack overflow, a bad header) is still
        // logged with the request id and answered with the error model, never an empty 500.
        const guarded = Effect.catchCause(
          Effect.suspend(() => handle(httpEffect, original, headers, requestId)),
          (cause) =>
            Cause.hasInterruptsOnly(cause)
              ? Effect.failCause(cause)
              : internalError(requestId, parseLocale(headers["x-fd-locale"]) ?? "en", cause)
        )
        return logsAnything ? Effect.annotateLogs(guarded, { request_id: requestId }) : guarded
      })

    function handle<E, R>(
      httpEffect: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>,
      original: HttpServerRequest.HttpServerRequest,
      headers: RawHeaders,
      requestId: string
    ) {
      const startedAt = performance.now()
      const url = parseUrl(original.url)
      if (url === undefined) {
        recordRequest(undefined, original.method, 400, (performance.now() - startedAt) / 1000)
        return Effect.succeed(
          HttpServerResponse.setHeader(errorsResponse(400, parseLocale(headers["x-fd-locale"]) ?? "en", "invalid_request_target"), "x-request-id", requestId)
        )
      }
      const pathname = url.pathname
      const accessToken = bearerToken(headers["authorization"]) ?? url.searchParams.get("access_token") ?? undefined
      // Forwarded headers are anyone's to send: they are read only from a proxy of ours.
      const peer = Option.getOrElse(original.remoteAddress, unknownAddress)
      const trustedPeer = trust._tag !== "Off" && peerIsTrusted(trust, peer)
      const source = (original as { readonly source?: unknown }).source
      const incoming: Incoming = {
        original,
        headers,
        requestId,
        startedAt,
        url,
        path: pathname.endsWith(".json") && !HOSTLESS_PATHS.has(pathname) ? pathname.slice(0, -5) : pathname,
        headerLocale: headers["x-fd-locale"],
        accessToken,
        clientAddress: trustedPeer ? clientAddress(trust, peer, headers["x-forwarded-for"]) : peer,
        host: (trustedPeer ? lastForwarded(headers["x-forwarded-host"]) : undefined) ?? headers["host"],
        https: trustedPeer
          ? lastForwarded(headers["x-forwarded-proto"])?.toLowerCase() === "https"
          : source instanceof IncomingMessage && source.socket instanceof TLSSocket,
        context: undefined
      }
      // Rate limits first: every call counts against its IP, authenticated calls also
      // against their token; the headers show the limit that applies to the caller. A call
      // its IP may no longer make is refused before its token is counted: random tokens from
      // a refused address would each lease a budget row in PostgreSQL.
      return Effect.flatMap(
        limiter.hit(`ip:${incoming.clientAddress}`, rateLimitPerIp, rateLimitWindowSeconds),
        accessToken === undefined
          ? (ipDecision) => afterLimits(httpEffect, incoming, ipDecision, undefined)
          : (ipDecision) =>
            !ipDecision.allowed
              ? afterLimits(httpEffect, incoming, ipDecision, undefined)
              : Effect.flatMap(
                limiter.hit(`token:${accessToken}`, rateLimitPerToken, rateLimitWindowSeconds),
                (tokenDecision) => afterLimits(httpEffect, incoming, ipDecision, tokenDecision)
              )
      )
    }

    /**
     * The 500 of the error model: logged with the request id (the log annotation), never a detail
     * in the body. PostgreSQL out of reach is no bug: 503 with Retry-After, one warning line.
     */
    function internalError(requestId: string, locale: Locale, cause: Cause.Cause<unknown>) {
      if (isDatabaseUnavailable(cause)) {
        return Effect.as(
          Effect.logWarning("database unavailable"),
          HttpServerResponse.setHeaders(errorsResponse(503, locale, "database_unavailable", { request_id: requestId }), {
            "x-request-id": requestId,
            "retry-after": "5"
          })
        )
      }
      return Effect.as(
        Effect.logError("unhandled failure", cause),
        HttpServerResponse.setHeader(errorsResponse(500, locale, "internal_error", { request_id: requestId }), "x-request-id", requestId)
      )
    }

    function finish(
      incoming: Incoming,
      response: HttpServerResponse.HttpServerResponse,
      decision: RateLimitDecision
    ): Effect.Effect<HttpServerResponse.HttpServerResponse> {
      // A header value Node refuses (a CR/LF from input, say) would throw while the response is
      // written, after this pipeline, as an empty unlogged 500: it is a 500 of the error model here.
      for (const name in response.headers) {
        if (INVALID_HEADER_VALUE.test(response.headers[name]!)) {
          return internalError(incoming.requestId, parseLocale(incoming.headerLocale) ?? "en", Cause.die(new Error(`invalid value of response header ${name}`)))
        }
      }
      // An endpoint with a stricter limit of its own (the Reporting API) sets its headers first.
      // Every response forbids MIME sniffing; one over https tells the browser to stay on https.
      const common: Record<string, string> = incoming.https
        ? { "x-request-id": incoming.requestId, "x-content-type-options": "nosniff", "strict-transport-security": HSTS }
        : { "x-request-id": incoming.requestId, "x-content-type-options": "nosniff" }
      const withHeaders = HttpServerResponse.setHeaders(
        response,
        response.headers["ratelimit-limit"] !== undefined
          ? common
          : {
            ...common,
            "ratelimit-limit": String(decision.limit),
            "ratelimit-remaining": String(decision.remaining),
            "ratelimit-reset": String(decision.resetAt)
          }
      )
      // The request metrics: a count and a latency observation on series made once per label set.
      const seconds = (performance.now() - incoming.startedAt) / 1000
      recordRequest(incoming.context?.route, incoming.original.method, withHeaders.status, seconds)
      const answered = tracing ? Effect.as(annotateServerSpan(incoming), withHeaders) : Effect.succeed(withHeaders)
      if (!logsRequests) return answered
      return Effect.andThen(
        Effect.logInfo("request").pipe(
          Effect.annotateLogs({
            method: incoming.original.method,
            path: incoming.path,
            status: withHeaders.status,
            duration_ms: Math.round(seconds * 100_000) / 100
          })
        ),
        answered
      )
    }

    /** The server span's attributes of ours: never a token, a header or a body. */
    function annotateServerSpan(incoming: Incoming) {
      const context = incoming.context
      const attributes: Record<string, unknown> = { "request.id": incoming.requestId }
      if (context?.route !== undefined) attributes["http.route"] = context.route
      if (context !== undefined && Option.isSome(context.business)) attributes["business.id"] = context.business.value.id
      return Effect.annotateCurrentSpan(attributes)
    }

    function afterLimits<E, R>(
      httpEffect: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>,
      incoming: Incoming,
      ipDecision: RateLimitDecision,
      tokenDecision: RateLimitDecision | undefined
    ) {
      const decision = tokenDecision && (ipDecision.allowed || !tokenDecision.allowed) ? tokenDecision : ipDecision
      if (!ipDecision.allowed || (tokenDecision && !tokenDecision.allowed)) {
        recordRateLimitRefusal(ipDecision.allowed ? "token" : "ip")
        return finish(incoming, rateLimitedResponse(decision, parseLocale(incoming.headerLocale) ?? "en"), decision)
      }
      if (HOSTLESS_PATHS.has(incoming.path)) return afterHost(httpEffect, incoming, decision, Option.none())
      const host = hostKind(incoming.host)
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
      const { original, path, url, headers } = incoming
      const refuse = (status: number, key: MessageKey, params?: MessageParams) => finish(incoming, errorsResponse(status, locale, key, params), decision)
      // PostgreSQL text cannot hold NUL: refused once here, for the path and query (`%00`), form
      // fields and JSON strings, rather than by every Schema (or as an encoding error, a 500).
      if (original.url.includes("%00")) return refuse(400, "nul_character")
      // The body limit is checked against Content-Length before anything is read; a body without
      // one (chunked) is cut off by `MaxBodySize` once it passes the limit, while it is read.
      const limit = isOAuthPath(path) ? oauthBodyLimit : bodyLimit
      const limitSize = isOAuthPath(path) ? oauthBodyLimitSize : bodyLimitSize
      const declaredLength = headers["content-length"]
      if (declaredLength !== undefined && Number(declaredLength) > limit) {
        // Nothing of the body was read: closing the connection spares draining it (100 MB, say).
        return finish(
          incoming,
          HttpServerResponse.setHeader(errorsResponse(413, locale, "body_too_large", { max: limit }), "connection", "close"),
          decision
        )
      }
      const contentType = (headers["content-type"] ?? "").toLowerCase()
      const readText = (request: HttpServerRequest.HttpServerRequest) =>
        Effect.result(Effect.provideService(request.text, HttpServerRequest.MaxBodySize, limitSize))
      const unreadable = (failure: unknown) =>
        isBodyTooLarge(failure) ? refuse(413, "body_too_large", { max: limit }) : refuse(400, "invalid_body")
      if (!contentType.startsWith("application/x-www-form-urlencoded")) {
        // `ids[]=1&ids[]=2` is read as `ids=1,2` (shared/query-lists.ts).
        const search = foldArrayParams(url.search)
        const request = path === url.pathname && search === url.search ? original : original.modify({ url: path + search })
        // Endpoints read JSON bodies through the same request (its body is read once, then
        // cached), so the NUL check costs no second read. Other bodies are bounded while read.
        if (!isJsonType(contentType) || !announcesBody(headers)) {
          return routeRequest(httpEffect, incoming, decision, business, locale, request, contentType, limitSize)
        }
        return Effect.flatMap(readText(request), (text) => {
          if (text._tag === "Failure") return unreadable(text.failure)
          if (hasJsonNul(text.success)) return refuse(400, "nul_character")
          return routeRequest(httpEffect, incoming, decision, business, locale, request, contentType, limitSize)
        })
      }
      return Effect.flatMap(readText(original), (text) => {
        if (text._tag === "Failure") return unreadable(text.failure)
        const form = parseRailsForm(text.success)
        if (form._tag === "Refused") return refuse(400, form.key, form.max === undefined ? undefined : { max: form.max })
        let request: HttpServerRequest.HttpServerRequest
        if (original.method === "GET" || original.method === "HEAD") {
          // `curl -X GET -d ...` sends the parameters as a body, which Rails reads like the
          // query (and a fetch Request cannot carry): add them to the query, which wins.
          const search = new URLSearchParams(url.search)
          for (const [key, value] of new URLSearchParams(text.success)) if (!url.searchParams.has(key)) search.append(key, value)
          const query = search.toString()
          request = original.modify({ url: path + foldArrayParams(query ? `?${query}` : "") })
        } else {
          const headers = { ...original.headers, "content-type": "application/json" }
          delete (headers as Record<string, string>)["content-length"]
          request = HttpServerRequest.fromWeb(
            new Request(new URL(path + foldArrayParams(url.search), "http://localhost"), {
              method: original.method,
              headers,
              body: JSON.stringify(form.value)
            })
          ).modify({ remoteAddress: original.remoteAddress })
        }
        // The JSON the form stands for is ours and may be longer than the form (`%01` is
        // `\u0001`): it is not held to the limit again.
        return routeRequest(httpEffect, incoming, decision, business, locale, request, contentType, undefined)
      })
    }

    function routeRequest<E, R>(
      httpEffect: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>,
      incoming: Incoming,
      decision: RateLimitDecision,
      business: Option.Option<BusinessRow>,
      locale: Locale,
      request: HttpServerRequest.HttpServerRequest,
      contentType: string,
      /** The body limit for what the endpoint reads of the request (undefined: a body the pipeline built). */
      maxBodySize: ByteSize.ByteSize | undefined
    ) {
      const { original, url, path, requestId } = incoming
      const context: RequestContextShape = {
        requestId,
        locale,
        business,
        origin: `${incoming.https ? "https" : "http"}://${incoming.host ?? "localhost"}`,
        originalUrl: url.pathname + url.search,
        accessToken: Option.fromNullishOr(incoming.accessToken),
        clientId: Option.fromNullishOr(url.searchParams.get("client_id")),
        clientAddress: incoming.clientAddress
      }
      incoming.context = context
      // The request is provided again only when the pipeline changed it (suffix, form body).
      const provided = request === original ? httpEffect : Effect.provideService(httpEffect, HttpServerRequest.HttpServerRequest, request)
      const routed = maxBodySize === undefined ? provided : Effect.provideService(provided, HttpServerRequest.MaxBodySize, maxBodySize)
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
            return Effect.succeed(
              isBodyTooLarge(failure) && maxBodySize !== undefined
                ? errorsResponse(413, locale, "body_too_large", { max: Number(maxBodySize) })
                : errorsResponse(400, locale, "invalid_json")
            )
          }
          return internalError(requestId, locale, cause)
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
