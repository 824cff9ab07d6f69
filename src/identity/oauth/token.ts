import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { apiOf } from "../../shared/http-api.ts"
import { OAuthTokenApi } from "./api.ts"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { AccessTokens, hashToken } from "../../access/tokens.ts"
import { OAuthRepo } from "./repo.ts"
import { authenticateClient, clientCredentials, exchangeCode, OAuthError, type TokenRequest } from "./service.ts"
import { readForm } from "./requests.ts"

/** `/oauth/token` (RFC 6749 section 4.1.3) and `/oauth/revoke` (RFC 7009): JSON answers to clients, no pages. */

/** RFC 6749 section 5.2 error bodies; never cached. */
const oauthErrorResponse = (error: OAuthError, basic: boolean) =>
  HttpServerResponse.jsonUnsafe(
    { error: error.error, error_description: error.description },
    {
      status: error.status,
      headers: {
        "cache-control": "no-store",
        pragma: "no-cache",
        ...(error.status === 401 && basic ? { "www-authenticate": 'Basic realm="oauth"' } : {})
      }
    }
  )

export const token = Effect.fn("OAuth.token")(function* (request: HttpServerRequest.HttpServerRequest) {
  const form = (yield* readForm(request)) as TokenRequest
  const credentials = clientCredentials(form, request.headers["authorization"])
  if (credentials instanceof OAuthError) return oauthErrorResponse(credentials, true)
  return yield* authenticateClient(credentials).pipe(
    Effect.flatMap((application) => exchangeCode(form, application)),
    Effect.map((accessToken) =>
      HttpServerResponse.jsonUnsafe(
        { access_token: accessToken, token_type: "bearer" },
        { headers: { "cache-control": "no-store", pragma: "no-cache" } }
      )
    ),
    Effect.catch((error: OAuthError) => Effect.succeed(oauthErrorResponse(error, credentials.basic)))
  )
})

/** RFC 7009: 200 whether or not the token existed; a client may only revoke its own tokens. */
export const revoke = Effect.fn("OAuth.revoke")(function* (request: HttpServerRequest.HttpServerRequest) {
  const form = yield* readForm(request)
  const credentials = clientCredentials(form, request.headers["authorization"])
  if (credentials instanceof OAuthError) return oauthErrorResponse(credentials, true)
  let applicationId: number | undefined
  if (credentials.clientId !== undefined) {
    const authenticated = yield* Effect.result(authenticateClient(credentials))
    if (authenticated._tag === "Failure") return oauthErrorResponse(authenticated.failure, credentials.basic)
    applicationId = authenticated.success.id
  }
  const value = form["token"]
  if (!value) return oauthErrorResponse(new OAuthError("invalid_request", "token is required"), false)
  const owner = yield* (yield* OAuthRepo).tokenApplication({ tokenHash: hashToken(value) })
  if (owner !== undefined && (applicationId === undefined || owner.application_id === applicationId)) {
    yield* (yield* AccessTokens).revoke(value)
  }
  return HttpServerResponse.empty({ status: 200, headers: { "cache-control": "no-store" } })
})

/** Raw handlers: they read the form and the Basic credentials themselves and answer OAuth's own bodies. */
export const OAuthTokenLive = HttpApiBuilder.group(apiOf(OAuthTokenApi), "oauthToken", (handlers) =>
  handlers
    .handleRaw("token", ({ request }) => token(request))
    .handleRaw("revoke", ({ request }) => revoke(request)))
