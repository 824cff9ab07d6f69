import { Effect } from "effect"
import { HttpEffect, HttpServerResponse } from "effect/http"

/**
 * Cache headers of answers that depend on who asks. What client mode shows depends on the caller
 * (members see members-only services; spec, services: "must not be cached across people"): no
 * shared cache may keep such a response, and a private one keys it by the Authorization header.
 */
export const privateResponse = HttpEffect.appendPreResponseHandler((_request, response) =>
  Effect.succeed(HttpServerResponse.setHeaders(response, { "cache-control": "private, no-store", vary: "Authorization" }))
)
