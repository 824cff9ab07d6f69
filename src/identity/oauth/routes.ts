import { Layer } from "effect"
import { HttpRouter } from "effect/http"
import { authorizeGet, authorizePost, login, logout } from "./authorize.ts"
import { confirmation, forgotGet, forgotPost, resetGet, resetPost } from "./password.ts"

/**
 * The authorization server's browser pages: `/oauth/authorize` (login, then consent, then a
 * code back to the client) and the password pages. `/oauth/token` and `/oauth/revoke` are an
 * HttpApi group (api.ts, handled in token.ts), so the OpenAPI document lists them. The host
 * decides the grant (spec, Authentication rule 6): on a business host the pages carry the
 * business's branding and the token is limited to it; on the account-level host the token
 * spans the account.
 */
export const OAuthRoutesLive = Layer.mergeAll(
  HttpRouter.add("GET", "/oauth/authorize", authorizeGet),
  HttpRouter.add("POST", "/oauth/authorize", authorizePost),
  HttpRouter.add("POST", "/oauth/login", login),
  HttpRouter.add("POST", "/oauth/logout", logout),
  HttpRouter.add("GET", "/oauth/password/new", forgotGet),
  HttpRouter.add("POST", "/oauth/password", forgotPost),
  HttpRouter.add("GET", "/oauth/password/edit", resetGet),
  HttpRouter.add("POST", "/oauth/password/edit", resetPost),
  HttpRouter.add("GET", "/oauth/confirmation", confirmation)
)
