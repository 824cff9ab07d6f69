import { Cause, Effect, Option, type Tracer } from "effect"
import { HttpServerResponse } from "effect/http"
import { isDatabaseUnavailable } from "../../platform/database-unavailable.ts"
import { recordRequest } from "../../platform/metrics/requests.ts"
import type { RateLimitDecision } from "../../platform/rate-limit.ts"
import { type Locale, parseLocale } from "../../shared/locale.ts"
import type { PipelineEnv } from "./env.ts"
import { errorsResponse, HSTS, type Incoming, INVALID_HEADER_VALUE } from "./incoming.ts"

/**
 * The 500 of the error model: logged with the request id (the log annotation), never a detail
 * in the body. PostgreSQL out of reach is no bug: 503 with Retry-After, one warning line.
 */
export const internalError = (requestId: string, locale: Locale, cause: Cause.Cause<unknown>) => {
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

/**
 * The server span's name and attributes of ours: never a token, a header or a body. Effect names
 * the span when the request arrives, before routing, by its method alone; OpenTelemetry's
 * convention is `{method} {route template}` (`POST /api/v2/desk/bookings`), known only now. Its
 * `name` is read when the span is exported, at its end, so it is set here; a request no route
 * matched keeps the method alone (a raw path would make one span name per id).
 */
const annotateServerSpan = (incoming: Incoming) =>
  Effect.match(Effect.currentSpan, {
    onFailure: () => undefined,
    onSuccess: (span: Tracer.Span) => {
      // Sampled out (src/platform/telemetry.ts): never exported, nothing to name.
      if (!span.sampled) return
      const context = incoming.context
      span.attribute("request.id", incoming.requestId)
      if (context?.route !== undefined) {
        span.attribute("http.route", context.route)
        ;(span as { name: string }).name = `${incoming.original.method} ${context.route}`
      }
      if (context !== undefined && Option.isSome(context.business)) span.attribute("business.id", context.business.value.id)
    }
  })

/**
 * Every answer of the pipeline leaves through here: its common headers (request id, nosniff,
 * HSTS over https, the rate limit that applies), the request metrics, the server span, the access log.
 */
export const finish = (
  env: PipelineEnv,
  incoming: Incoming,
  response: HttpServerResponse.HttpServerResponse,
  decision: RateLimitDecision
): Effect.Effect<HttpServerResponse.HttpServerResponse> => {
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
  const answered = env.tracing ? Effect.as(annotateServerSpan(incoming), withHeaders) : Effect.succeed(withHeaders)
  if (!env.logsRequests) return answered
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
