import { HttpServerError, HttpServerRequest, HttpServerResponse } from "effect/http"
import { IncomingMessage } from "node:http"
import { classifyHost, type HostKind } from "../../access/tenant.ts"
import { type MessageKey, type MessageParams, t } from "../../shared/i18n.ts"
import type { Locale } from "../../shared/locale.ts"
import type { RequestContextShape } from "../../shared/request-context.ts"

/** What the request pipeline reads of a request before routing it, and the answers it gives itself. */

/** Paths that answer on any host: health checks and the API description. */
export const HOSTLESS_PATHS = new Set(["/healthz", "/readyz", "/api/openapi.json", "/api/docs"])

export const errorsResponse = (status: number, locale: Locale, key: MessageKey, params?: MessageParams) =>
  HttpServerResponse.jsonUnsafe({ errors: [t(locale, key, params)] }, { status })

export const unknownAddress = () => "unknown"

/** A year; without includeSubDomains, each business host opts in when it is visited over https. */
export const HSTS = "max-age=31536000"

/** A path of plain segments, no query: the WHATWG parser would return it unchanged. */
const PLAIN_PATH = /^(?:\/[\w~-][\w.~-]*)*\/?$/
const NO_SEARCH_PARAMS = new URLSearchParams()

/**
 * The request target's path, query and parameters. Most API calls are a plain path, which
 * needs no URL parser; anything else (a query, escapes, dot segments) goes through `URL`.
 */
export interface ParsedUrl {
  readonly pathname: string
  readonly search: string
  readonly searchParams: URLSearchParams
}
export const parseUrl = (target: string): ParsedUrl | undefined => {
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
export type RawHeaders = Readonly<Record<string, string | undefined>>
export const headersOf = (request: HttpServerRequest.HttpServerRequest): RawHeaders => {
  const source = (request as { readonly source?: unknown }).source
  return source instanceof IncomingMessage && source.url === request.url
    ? (source.headers as RawHeaders)
    : request.headers
}

/**
 * The authorization server's forms (`/oauth/*`, `/accounts/*`) get the smaller body limit: they
 * are reachable without credentials and never carry more than a few short fields.
 */
export const isOAuthPath = (path: string) => path.startsWith("/oauth/") || path.startsWith("/accounts/")

/** A JSON media type (`application/json`, JSON:API's `application/vnd.api+json`). */
export const isJsonType = (contentType: string) => contentType.startsWith("application/json") || /^[^;]*\+json/.test(contentType)

/**
 * A NUL character in JSON text: raw (which JSON.parse refuses anyway) or as the escape
 * `\u0000` preceded by an even number of backslashes (`\\u0000` is a backslash and "u0000").
 */
const JSON_NUL = /(?:^|[^\\])(?:\\\\)*\\u0000/
export const hasJsonNul = (text: string) => text.includes("\0") || (text.includes("\\u0000") && JSON_NUL.test(text))

/** Node's own rule for a header value (`checkInvalidHeaderChar`): a CR or LF would make it throw while writing. */
export const INVALID_HEADER_VALUE = /[^\t\x20-\x7e\x80-\xff]/

/** The request announces a body (RFC 9112 section 6.3): a non-zero Content-Length, or a Transfer-Encoding. */
export const announcesBody = (headers: RawHeaders) =>
  (headers["content-length"] !== undefined && headers["content-length"] !== "0") || headers["transfer-encoding"] !== undefined

/** Reading a body failed because it passed `MaxBodySize` (the adapter's RequestParseError "BodyTooLarge"). */
export const isBodyTooLarge = (failure: unknown) =>
  HttpServerError.isHttpServerError(failure) && failure.reason._tag === "RequestParseError" && failure.reason.reason === "BodyTooLarge"

export const REQUEST_ID = /^[\w.:-]{1,100}$/
const BEARER = /^\s*Bearer\s+(\S+)\s*$/i
/** The usual shape of the header, read without a match object. */
const PLAIN_BEARER = /^Bearer \S+$/

export const bearerToken = (authorization: string | undefined): string | undefined => {
  if (authorization === undefined) return undefined
  if (PLAIN_BEARER.test(authorization)) return authorization.slice(7)
  return BEARER.exec(authorization)?.[1]
}

/**
 * Host header → kind, remembered: every request of a business carries the same header, and
 * classifying it lower-cases, strips and tests it. Bounded (any client can send any host).
 */
export const makeHostKinds = (baseDomain: string) => {
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
export interface Incoming {
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
