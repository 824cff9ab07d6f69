import { type ByteSize, Cause, Effect, Option } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApiError } from "effect/http-api"
import type { RateLimitDecision } from "../../platform/rate-limit.ts"
import { issueMessages } from "../../shared/issues.ts"
import type { Locale } from "../../shared/locale.ts"
import { type BusinessRow, RequestContext, type RequestContextShape } from "../../shared/request-context.ts"
import type { PipelineEnv } from "./env.ts"
import { errorsResponse, type Incoming, isBodyTooLarge } from "./incoming.ts"
import { finish, internalError } from "./respond.ts"

/**
 * The request handed to the router with its `RequestContext`, and what the endpoints themselves
 * cannot answer in the error model: undecodable input → 400, unknown route → 404, unreadable
 * body → 400/413, unsupported body type → 415, a defect → 500 (or 503 without PostgreSQL).
 */
export const routeRequest = <E, R>(
  env: PipelineEnv,
  httpEffect: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>,
  incoming: Incoming,
  decision: RateLimitDecision,
  business: Option.Option<BusinessRow>,
  locale: Locale,
  request: HttpServerRequest.HttpServerRequest,
  contentType: string,
  /** The body limit for what the endpoint reads of the request (undefined: a body the pipeline built). */
  maxBodySize: ByteSize.ByteSize | undefined
) => {
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
        return finish(env, incoming, errorsResponse(415, locale, "unsupported_media_type", { content_type: mediaType }), decision)
      }
      return finish(env, incoming, response, decision)
    }
  )
}
