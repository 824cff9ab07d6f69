import { Cause, Effect, Option } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import type { unhandled } from "effect/Types"
import { randomUUID } from "node:crypto"
import { IncomingMessage } from "node:http"
import { TLSSocket } from "node:tls"
import { recordRateLimitRefusal, recordRequest } from "../platform/metrics/requests.ts"
import { type RateLimitDecision, rateLimitedResponse } from "../platform/rate-limit.ts"
import { clientAddress, lastForwarded, peerIsTrusted } from "../platform/trust-proxy.ts"
import { parseLocale } from "../shared/locale.ts"
import { afterHost } from "./request-pipeline/body.ts"
import { makePipelineEnv, type PipelineEnv } from "./request-pipeline/env.ts"
import {
  bearerToken,
  errorsResponse,
  headersOf,
  HOSTLESS_PATHS,
  type Incoming,
  parseUrl,
  type RawHeaders,
  REQUEST_ID,
  unknownAddress
} from "./request-pipeline/incoming.ts"
import { finish, internalError } from "./request-pipeline/respond.ts"

/**
 * The conventions every endpoint shares, applied once, before routing:
 * request id and structured access log; `.json` suffix; the client's address and the forwarded
 * headers of trusted proxies only (TRUST_PROXY); tenancy by Host; locale; rate limits with their
 * headers on every response; security headers (nosniff, HSTS on https); Rails-style form bodies
 * turned into the JSON body they stand for; bounded input (a body over its size limit →
 * 413, a form too deep or with too many fields → 400, a NUL character anywhere → 400); and the
 * error model for what the endpoints themselves cannot answer (undecodable input → 400, unknown
 * route → 404, unsupported body type → 415, a defect → logged with its request id, generic 500).
 *
 * The steps, in order: `handle` (what the request is: its id, path, client, host), the rate
 * limits (`afterLimits`), the tenant, bounded input (request-pipeline/body.ts), routing
 * (request-pipeline/route.ts); every answer leaves through `finish` (request-pipeline/respond.ts).
 * Every request runs this: plain functions chained with `Effect.flatMap` rather than generators,
 * and what the request needs carried in one `Incoming` record.
 */

/** What the request is, then its rate limits. */
const handle = <E, R>(
  env: PipelineEnv,
  httpEffect: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>,
  original: HttpServerRequest.HttpServerRequest,
  headers: RawHeaders,
  requestId: string
) => {
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
  const trust = env.trust
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
  const { limiter, config } = env
  return Effect.flatMap(
    limiter.hit(`ip:${incoming.clientAddress}`, config.rateLimitPerIp, config.rateLimitWindowSeconds),
    accessToken === undefined
      ? (ipDecision) => afterLimits(env, httpEffect, incoming, ipDecision, undefined)
      : (ipDecision) =>
        !ipDecision.allowed
          ? afterLimits(env, httpEffect, incoming, ipDecision, undefined)
          : Effect.flatMap(
            limiter.hit(`token:${accessToken}`, config.rateLimitPerToken, config.rateLimitWindowSeconds),
            (tokenDecision) => afterLimits(env, httpEffect, incoming, ipDecision, tokenDecision)
          )
  )
}

/** A refusal by the rate limits, else the tenant by Host (a business's subdomain, the account host, or none). */
const afterLimits = <E, R>(
  env: PipelineEnv,
  httpEffect: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>,
  incoming: Incoming,
  ipDecision: RateLimitDecision,
  tokenDecision: RateLimitDecision | undefined
) => {
  const decision = tokenDecision && (ipDecision.allowed || !tokenDecision.allowed) ? tokenDecision : ipDecision
  if (!ipDecision.allowed || (tokenDecision && !tokenDecision.allowed)) {
    recordRateLimitRefusal(ipDecision.allowed ? "token" : "ip")
    return finish(env, incoming, rateLimitedResponse(decision, parseLocale(incoming.headerLocale) ?? "en"), decision)
  }
  if (HOSTLESS_PATHS.has(incoming.path)) return afterHost(env, httpEffect, incoming, decision, Option.none())
  const host = env.hostKind(incoming.host)
  if (host._tag === "Foreign") {
    return finish(env, incoming, errorsResponse(404, parseLocale(incoming.headerLocale) ?? "en", "unknown_host", { host: host.host }), decision)
  }
  if (host._tag === "Account") return afterHost(env, httpEffect, incoming, decision, Option.none())
  return Effect.flatMap(env.directory.bySubdomain(host.subdomain), (business) =>
    Option.isNone(business)
      ? finish(
        env,
        incoming,
        errorsResponse(404, parseLocale(incoming.headerLocale) ?? "en", "unknown_host", {
          host: `${host.subdomain}.${env.config.baseDomain}`
        }),
        decision
      )
      : afterHost(env, httpEffect, incoming, decision, business))
}

export const RequestPipeline = HttpRouter.middleware(
  Effect.gen(function* () {
    const env = yield* makePipelineEnv
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
          Effect.suspend(() => handle(env, httpEffect, original, headers, requestId)),
          (cause) =>
            Cause.hasInterruptsOnly(cause)
              ? Effect.failCause(cause)
              : internalError(requestId, parseLocale(headers["x-fd-locale"]) ?? "en", cause)
        )
        return env.logsAnything ? Effect.annotateLogs(guarded, { request_id: requestId }) : guarded
      })
  }),
  { global: true }
)
