import { Effect, Option } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import type { RateLimitDecision } from "../../platform/rate-limit.ts"
import { parseRailsForm } from "../../shared/form-body.ts"
import type { MessageKey, MessageParams } from "../../shared/i18n.ts"
import { resolveLocale } from "../../shared/locale.ts"
import { foldArrayParams } from "../../shared/query-lists.ts"
import type { BusinessRow } from "../../shared/request-context.ts"
import type { PipelineEnv } from "./env.ts"
import { announcesBody, errorsResponse, hasJsonNul, type Incoming, isBodyTooLarge, isJsonType, isOAuthPath } from "./incoming.ts"
import { finish } from "./respond.ts"
import { routeRequest } from "./route.ts"

/**
 * A Rails-style form body as the request it stands for: on GET/HEAD its fields join the query
 * (which wins), as Rails reads `curl -X GET -d ...`; otherwise the JSON body they make.
 */
const formRequest = (incoming: Incoming, formText: string, json: unknown): HttpServerRequest.HttpServerRequest => {
  const { original, path, url } = incoming
  if (original.method === "GET" || original.method === "HEAD") {
    const search = new URLSearchParams(url.search)
    for (const [key, value] of new URLSearchParams(formText)) if (!url.searchParams.has(key)) search.append(key, value)
    const query = search.toString()
    return original.modify({ url: path + foldArrayParams(query ? `?${query}` : "") })
  }
  const headers = { ...original.headers, "content-type": "application/json" }
  delete (headers as Record<string, string>)["content-length"]
  return HttpServerRequest.fromWeb(
    new Request(new URL(path + foldArrayParams(url.search), "http://localhost"), {
      method: original.method,
      headers,
      body: JSON.stringify(json)
    })
  ).modify({ remoteAddress: original.remoteAddress })
}

/**
 * Bounded input once the host is known (so refusals speak the business's locale): NUL anywhere →
 * 400, a body over its limit → 413, a form too deep or with too many fields → 400; a form body
 * becomes the JSON body it stands for.
 */
export const afterHost = <E, R>(
  env: PipelineEnv,
  httpEffect: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>,
  incoming: Incoming,
  decision: RateLimitDecision,
  business: Option.Option<BusinessRow>
) => {
  const locale = resolveLocale(incoming.headerLocale, Option.isSome(business) ? business.value.default_locale : undefined)
  const { original, path, url, headers } = incoming
  const refuse = (status: number, key: MessageKey, params?: MessageParams) => finish(env, incoming, errorsResponse(status, locale, key, params), decision)
  // PostgreSQL text cannot hold NUL: refused once here, for the path and query (`%00`), form
  // fields and JSON strings, rather than by every Schema (or as an encoding error, a 500).
  if (original.url.includes("%00")) return refuse(400, "nul_character")
  // The body limit is checked against Content-Length before anything is read; a body without
  // one (chunked) is cut off by `MaxBodySize` once it passes the limit, while it is read.
  const limit = isOAuthPath(path) ? env.oauthBodyLimit : env.bodyLimit
  const limitSize = isOAuthPath(path) ? env.oauthBodyLimitSize : env.bodyLimitSize
  const declaredLength = headers["content-length"]
  if (declaredLength !== undefined && Number(declaredLength) > limit) {
    // Nothing of the body was read: closing the connection spares draining it (100 MB, say).
    const tooLarge = errorsResponse(413, locale, "body_too_large", { max: limit })
    return finish(env, incoming, HttpServerResponse.setHeader(tooLarge, "connection", "close"), decision)
  }
  const contentType = (headers["content-type"] ?? "").toLowerCase()
  const readText = (request: HttpServerRequest.HttpServerRequest) =>
    Effect.result(Effect.provideService(request.text, HttpServerRequest.MaxBodySize, limitSize))
  const unreadable = (failure: unknown) =>
    isBodyTooLarge(failure) ? refuse(413, "body_too_large", { max: limit }) : refuse(400, "invalid_body")
  const route = (request: HttpServerRequest.HttpServerRequest, maxBodySize: typeof limitSize | undefined) =>
    routeRequest(env, httpEffect, incoming, decision, business, locale, request, contentType, maxBodySize)
  if (!contentType.startsWith("application/x-www-form-urlencoded")) {
    // `ids[]=1&ids[]=2` is read as `ids=1,2` (shared/query-lists.ts).
    const search = foldArrayParams(url.search)
    const request = path === url.pathname && search === url.search ? original : original.modify({ url: path + search })
    // Endpoints read JSON bodies through the same request (its body is read once, then
    // cached), so the NUL check costs no second read. Other bodies are bounded while read.
    if (!isJsonType(contentType) || !announcesBody(headers)) return route(request, limitSize)
    return Effect.flatMap(readText(request), (text) => {
      if (text._tag === "Failure") return unreadable(text.failure)
      if (hasJsonNul(text.success)) return refuse(400, "nul_character")
      return route(request, limitSize)
    })
  }
  return Effect.flatMap(readText(original), (text) => {
    if (text._tag === "Failure") return unreadable(text.failure)
    const form = parseRailsForm(text.success)
    if (form._tag === "Refused") return refuse(400, form.key, form.max === undefined ? undefined : { max: form.max })
    // The JSON the form stands for is ours and may be longer than the form (`%01` is
    // `\u0001`): it is not held to the limit again.
    return route(formRequest(incoming, text.success, form.value), undefined)
  })
}
