import { Effect, Option, Schema } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { alert, escapeHtml, hidden, renderPage, text } from "./pages.ts"
import { authenticityTokenInput, consentGiven, submittedCsrfToken } from "./rails-fields.ts"
import { AppConfig } from "../../platform/config.ts"
import { redirectAccepted } from "./redirect.ts"
import { type Application, OAuthRepo } from "./repo.ts"
import { isValidPkceValue, issueCode, signInWithPassword } from "./service.ts"
import {
  csrfAccepted,
  endSession,
  errorPage,
  openSession,
  type PageContext,
  pageContext,
  queryOf,
  readForm,
  returnToRefusal,
  safeReturnTo,
  signInPage,
  withCsrfCookie
} from "./requests.ts"

/**
 * `/oauth/authorize` (login, then consent, then a code back to the client), `/oauth/login` and
 * `/oauth/logout`. The host decides the grant (spec, Authentication rule 6).
 */
const AuthorizeParams = Schema.Struct({
  client_id: Schema.optional(Schema.String),
  response_type: Schema.optional(Schema.String),
  redirect_uri: Schema.optional(Schema.String),
  state: Schema.optional(Schema.String),
  code_challenge: Schema.optional(Schema.String),
  code_challenge_method: Schema.optional(Schema.String),
  scope: Schema.optional(Schema.String)
})
type AuthorizeParams = typeof AuthorizeParams.Type
const decodeAuthorizeParams = Schema.decodeUnknownOption(AuthorizeParams)

/** Redirects back to the client with `error` (RFC 6749 section 4.1.2.1). */
const redirectWithError = (redirectUri: string, error: string, description: string, state: string | undefined) => {
  const url = new URL(redirectUri)
  url.searchParams.set("error", error)
  url.searchParams.set("error_description", description)
  if (state !== undefined) url.searchParams.set("state", state)
  return HttpServerResponse.redirect(url.toString(), { status: 302, headers: { "cache-control": "no-store" } })
}

type Validated =
  | { readonly _tag: "Page"; readonly response: HttpServerResponse.HttpServerResponse }
  | { readonly _tag: "Ok"; readonly application: Application; readonly params: AuthorizeParams & { readonly redirect_uri: string } }

/**
 * The checks of an authorization request, in the RFC's order: an unknown client or a
 * redirect URI other than the registered one is shown to the user (never redirected to);
 * other problems go back to the client as `error`.
 */
const validateAuthorizeRequest = (page: PageContext, raw: unknown) =>
  Effect.gen(function* (): Effect.fn.Return<Validated, never, OAuthRepo | AppConfig> {
    const params = Option.getOrElse(decodeAuthorizeParams(raw), () => ({}) as AuthorizeParams)
    const repo = yield* OAuthRepo
    const application = params.client_id ? yield* repo.applicationByClientId({ clientId: params.client_id }) : undefined
    if (application === undefined) {
      return { _tag: "Page", response: errorPage(page, text(page.locale, "oauth_unknown_client")) }
    }
    if (!redirectAccepted(application.redirect_uri, params.redirect_uri, page, yield* AppConfig)) {
      return { _tag: "Page", response: errorPage(page, text(page.locale, "oauth_redirect_mismatch")) }
    }
    const back = (error: string, description: string): Validated => ({
      _tag: "Page",
      response: redirectWithError(params.redirect_uri!, error, description, params.state)
    })
    if (params.response_type !== "code") return back("unsupported_response_type", "response_type must be code")
    if (params.code_challenge !== undefined) {
      if (params.code_challenge_method !== "S256") return back("invalid_request", "code_challenge_method must be S256")
      if (!isValidPkceValue(params.code_challenge)) return back("invalid_request", "code_challenge is malformed")
    } else if (application.is_public) {
      return back("invalid_request", "PKCE (code_challenge with S256) is required for this client")
    }
    return { _tag: "Ok", application, params: { ...params, redirect_uri: params.redirect_uri! } }
  })

const authorizeFields = (params: AuthorizeParams) =>
  hidden({
    client_id: params.client_id,
    response_type: params.response_type,
    redirect_uri: params.redirect_uri,
    state: params.state,
    code_challenge: params.code_challenge,
    code_challenge_method: params.code_challenge_method,
    scope: params.scope
  })

const authorizeUrl = (params: AuthorizeParams) => {
  const search = new URLSearchParams()
  for (const [key, value] of Object.entries(params)) if (typeof value === "string") search.set(key, value)
  return `/oauth/authorize?${search.toString()}`
}

const loginPage = (
  page: PageContext,
  application: Application,
  returnTo: string,
  options: { readonly failed?: boolean; readonly throttledFor?: number; readonly email?: string } = {}
) =>
  signInPage(page, {
    status: options.throttledFor !== undefined ? 429 : options.failed ? 401 : 200,
    ...(options.throttledFor !== undefined ? { headers: { "retry-after": String(options.throttledFor) } } : {}),
    body: `<p>${text(page.locale, "page_login_for_app", { app: application.name })}</p>
${options.throttledFor !== undefined ? alert(text(page.locale, "sign_in_throttled", { seconds: options.throttledFor })) : options.failed ? alert(text(page.locale, "login_failed")) : ""}
<form method="post" action="/oauth/login">
${hidden({ csrf_token: page.csrf, return_to: returnTo, locale: page.locale })}
<label for="email">${text(page.locale, "label_email")}</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${escapeHtml(options.email ?? "")}"${options.failed ? ' aria-invalid="true"' : ""}>
<label for="password">${text(page.locale, "label_password")}</label>
<input id="password" name="password" type="password" autocomplete="current-password" required${options.failed ? ' aria-invalid="true"' : ""}>
<div class="actions"><button type="submit">${text(page.locale, "button_log_in")}</button></div>
</form>
<p class="small"><a href="/oauth/password/new?locale=${page.locale}">${text(page.locale, "link_forgot_password")}</a></p>`
  })

const consentPage = (page: PageContext, application: Application, params: AuthorizeParams, email: string) =>
  withCsrfCookie(
    page,
    renderPage({
      locale: page.locale,
      branding: page.branding,
      title: "page_consent_title",
      body: `<h1>${text(page.locale, "page_consent_title")}</h1>
<p>${page.branding ? text(page.locale, "consent_business", { app: application.name, email, business: page.branding.name }) : text(page.locale, "consent_account", { app: application.name, email })}</p>
<form method="post" action="/oauth/authorize">
${hidden({ csrf_token: page.csrf })}
${authenticityTokenInput(page.csrf)}
${authorizeFields(params)}
<div class="actions">
<button type="submit" name="decision" value="allow">${text(page.locale, "button_allow")}</button>
<button type="submit" name="decision" value="deny" class="secondary">${text(page.locale, "button_deny")}</button>
</div>
</form>
<form method="post" action="/oauth/logout">
${hidden({ csrf_token: page.csrf, return_to: authorizeUrl(params) })}
<button type="submit" class="secondary">${text(page.locale, "link_not_you")}</button>
</form>`
    })
  )

export const authorizeGet = Effect.fn("OAuth.authorize")(function* (request: HttpServerRequest.HttpServerRequest) {
  const page = yield* pageContext(request)
  const validated = yield* validateAuthorizeRequest(page, queryOf(request))
  if (validated._tag === "Page") return validated.response
  if (!page.session) return loginPage(page, validated.application, authorizeUrl(validated.params))
  return consentPage(page, validated.application, validated.params, page.session.account.email)
})

export const authorizePost = Effect.fn("OAuth.consent")(function* (request: HttpServerRequest.HttpServerRequest) {
  const page = yield* pageContext(request)
  const form = yield* readForm(request)
  if (!csrfAccepted(page, submittedCsrfToken(form))) return withCsrfCookie(page, errorPage(page, text(page.locale, "csrf_failed"), 403))
  const validated = yield* validateAuthorizeRequest(page, form)
  if (validated._tag === "Page") return validated.response
  if (!page.session) return loginPage(page, validated.application, authorizeUrl(validated.params))
  const { application, params } = validated
  if (!consentGiven(form)) return redirectWithError(params.redirect_uri, "access_denied", "The user denied access", params.state)
  const code = yield* issueCode({
    application,
    accountId: page.session.account.id,
    businessId: page.businessId,
    redirectUri: params.redirect_uri,
    codeChallenge: params.code_challenge ?? null
  })
  const url = new URL(params.redirect_uri)
  url.searchParams.set("code", code)
  if (params.state !== undefined) url.searchParams.set("state", params.state)
  return HttpServerResponse.redirect(url.toString(), { status: 303, headers: { "cache-control": "no-store" } })
})


export const login = Effect.fn("OAuth.login")(function* (request: HttpServerRequest.HttpServerRequest) {
  const page = yield* pageContext(request)
  const form = yield* readForm(request)
  if (!csrfAccepted(page, form["csrf_token"])) return withCsrfCookie(page, errorPage(page, text(page.locale, "csrf_failed"), 403))
  const refused = returnToRefusal(form["return_to"], page.locale)
  if (Option.isSome(refused)) return refused.value
  const returnTo = safeReturnTo(form["return_to"])
  const params = new URL(returnTo, "http://localhost").searchParams
  const validated = yield* validateAuthorizeRequest(page, Object.fromEntries(params))
  if (validated._tag === "Page") return validated.response
  const email = form["email"] ?? ""
  const result = yield* signInWithPassword(email, form["password"] ?? "")
  if (result._tag === "Refused") return loginPage(page, validated.application, returnTo, { failed: true, throttledFor: result.retryAfterSeconds, email })
  if (result._tag === "Failed") return loginPage(page, validated.application, returnTo, { failed: true, email })
  const { withSession } = yield* openSession(page, result.account)
  return withSession(HttpServerResponse.redirect(returnTo, { status: 303 }))
})

export const logout = Effect.fn("OAuth.logout")(function* (request: HttpServerRequest.HttpServerRequest) {
  const page = yield* pageContext(request)
  const form = yield* readForm(request)
  if (!csrfAccepted(page, form["csrf_token"])) return withCsrfCookie(page, errorPage(page, text(page.locale, "csrf_failed"), 403))
  const refused = returnToRefusal(form["return_to"], page.locale)
  if (Option.isSome(refused)) return refused.value
  return yield* endSession(page, HttpServerResponse.redirect(safeReturnTo(form["return_to"]), { status: 303 }))
})
