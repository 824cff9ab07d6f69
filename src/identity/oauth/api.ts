import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "effect/http-api"
import { docs } from "../../shared/docs.ts"

/**
 * The authorization server's endpoints for clients (RFC 6749 section 4.1.3, RFC 7009), in the
 * HttpApi so the OpenAPI document lists them. Their handlers read the raw request
 * (src/identity/oauth/token.ts): OAuth answers its own error bodies, with Basic credentials and form
 * bodies, rather than the Core API's `{"errors"}`. The browser pages stay plain routes (routes.ts).
 */
const field = (description: string) => Schema.optionalKey(Schema.String.annotate({ description }))

const clientAuthentication = {
  client_id: field("The client's id, unless sent with HTTP Basic"),
  client_secret: field("A confidential client's secret, unless sent with HTTP Basic")
}

export class OAuthErrorBody extends Schema.Class<OAuthErrorBody>("OAuthErrorBody")({
  error: Schema.Literals(["invalid_request", "invalid_client", "invalid_grant", "unauthorized_client", "unsupported_grant_type"]),
  error_description: Schema.String
}, { httpApiStatus: 400, description: "RFC 6749 section 5.2: 400, or 401 for a client that failed to authenticate (with WWW-Authenticate after Basic)" }) {}

export const OAuthTokenApi = HttpApiGroup.make("oauthToken")
  .add(
    HttpApiEndpoint.post("token", "/oauth/token", {
      payload: Schema.Struct({
        grant_type: field("authorization_code (the only grant)"),
        code: field("The code the authorization redirect returned (single use, 10 minutes)"),
        redirect_uri: field("The redirect URI of the authorization request, exactly"),
        code_verifier: field("The PKCE verifier, when the authorization request had a code_challenge"),
        ...clientAuthentication
      }),
      success: Schema.Struct({ access_token: Schema.String, token_type: Schema.Literal("bearer") }),
      error: OAuthErrorBody
    }).annotateMerge(
      docs(
        "Exchange an authorization code for an access token",
        "Form fields (application/x-www-form-urlencoded) or JSON. The token is limited to the business whose host issued the code; on the account-level host it spans the account."
      )
    )
  )
  .add(
    HttpApiEndpoint.post("revoke", "/oauth/revoke", {
      payload: Schema.Struct({
        token: Schema.String.annotate({ description: "The access token to revoke" }),
        token_type_hint: field("Ignored: only access tokens exist"),
        ...clientAuthentication
      }),
      success: Schema.Void.pipe(HttpApiSchema.status(200)),
      error: OAuthErrorBody
    }).annotateMerge(
      docs("Revoke an access token", "Answers 200 whether or not the token existed; an authenticated client may only revoke its own tokens.")
    )
  )
  .annotateMerge(docs("OAuth 2.0 (clients)"))
