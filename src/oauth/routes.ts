import { Clock, Effect, Layer, Option, Schema } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { consumeAccountToken, isLiveAccountToken } from "../auth/account-tokens.ts"
import { requestPasswordReset } from "./service.ts"
import { DEMO_CLIENT_ID, DEMO_CLIENT_SECRET } from "../demo/document.ts"
import { hashPassword } from "../auth/passwords.ts"
import { AccessTokens, hashToken } from "../auth/tokens.ts"
import { type Locale, LOCALES, parseLocale } from "../shared/locale.ts"
import { RequestContext } from "../shared/request-context.ts"
import { SqlClient } from "effect/sql"
import { alert, escapeHtml, hidden, notice, type PageBranding, renderPage, text } from "./pages.ts"
import { authenticityTokenInput, consentGiven, submittedCsrfToken } from "./rails-fields.ts"
import { type Application, OAuthRepo } from "./repo.ts"
import { CSRF_COOKIE, SESSION_COOKIE, SESSION_LIFETIME_MS, csrfMatches, newCsrfToken, signSession, verifySession } from "./session.ts"
import {
  authenticateClient,
  checkPassword,
  clientCredentials,
  exchangeCode,
  isValidPkceValue,
  issueCode,
  OAuthError,
  type TokenRequest
} from "./service.ts"

/**
 * The authorization server over HTTP: `/oauth/authorize` (login, then consent, then a code
 * back to the client), `/oauth/token`, `/oauth/revoke`, and the password pages. The host
 * decides the grant (spec, Authentication rule 6): on a business host the pages carry the
 * business's branding and the token is limited to it; on the account-level host the token
 * spans the account.
 */
export const MIN_PASSWORD_LENGTH = 10

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

const FormBody = Schema.Record(Schema.String, Schema.Unknown)
const decodeFormBody = Schema.decodeUnknownOption(FormBody)

/** A POSTed form (the pipeline turned url-encoded bodies into JSON): string fields only. */
export const readForm = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.map(Effect.option(request.json), (json) => {
    const record = Option.getOrElse(Option.flatMap(json, decodeFormBody), () => ({}))
    const fields: Record<string, string> = {}
    for (const [key, value] of Object.entries(record)) if (typeof value === "string") fields[key] = value
    return fields
  })

const queryOf = (request: HttpServerRequest.HttpServerRequest) =>
  Object.fromEntries(new URL(request.url, "http://localhost").searchParams)

/** Pages follow `?locale=`, then the browser's Accept-Language, then the business default. */
const pageLocale = (request: HttpServerRequest.HttpServerRequest, fallback: Locale): Locale => {
  const explicit = parseLocale(queryOf(request)["locale"])
  if (explicit) return explicit
  for (const part of (request.headers["accept-language"] ?? "").split(",")) {
    const tag = part.split(";")[0]!.trim()
    const exact = parseLocale(tag)
    if (exact) return exact
    const language = tag.split("-")[0]!.toLowerCase()
    const sameLanguage = LOCALES.find((locale) => locale.toLowerCase().split("-")[0] === language)
    if (sameLanguage && language.length > 0) return sameLanguage
  }
  return fallback
}

export const pageContext = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function* () {
    const context = yield* RequestContext
    const repo = yield* OAuthRepo
    let branding: PageBranding | null = null
    if (Option.isSome(context.business)) {
      const row = yield* repo.branding(context.business.value.id)
      if (Option.isSome(row)) {
        const color = row.value.brand_colors["brand"] ?? row.value.brand_colors["accent"]
        branding = { name: row.value.name, color: typeof color === "string" ? color : null, logoUrl: row.value.logo_url }
      }
    }
    const existingCsrf = request.cookies[CSRF_COOKIE]
    return {
      locale: pageLocale(request, context.locale),
      branding,
      business: context.business,
      origin: context.origin,
      csrf: existingCsrf && existingCsrf.length >= 16 ? existingCsrf : newCsrfToken(),
      newCsrf: !(existingCsrf && existingCsrf.length >= 16)
    }
  })
export type PageContext = Effect.Success<ReturnType<typeof pageContext>>

export const secureCookies = (origin: string) => origin.startsWith("https://")

const withCsrfCookie = (page: PageContext, response: HttpServerResponse.HttpServerResponse) =>
  page.newCsrf
    ? HttpServerResponse.setCookieUnsafe(response, CSRF_COOKIE, page.csrf, {
        httpOnly: true,
        sameSite: "lax",
        path: "/oauth",
        secure: secureCookies(page.origin)
      })
    : response

export const errorPage = (page: PageContext, message: string, status = 400) =>
  renderPage({
    locale: page.locale,
    branding: page.branding,
    title: "page_error_title",
    status,
    body: `<h1>${text(page.locale, "page_error_title")}</h1>\n${alert(message)}`
  })

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
  Effect.gen(function* (): Effect.fn.Return<Validated, never, OAuthRepo> {
    const params = Option.getOrElse(decodeAuthorizeParams(raw), () => ({}) as AuthorizeParams)
    const repo = yield* OAuthRepo
    const application = params.client_id ? yield* repo.applicationByClientId(params.client_id) : Option.none()
    if (Option.isNone(application)) {
      return { _tag: "Page", response: errorPage(page, text(page.locale, "oauth_unknown_client")) }
    }
    if (!params.redirect_uri || params.redirect_uri !== application.value.redirect_uri) {
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
    } else if (application.value.is_public) {
      return back("invalid_request", "PKCE (code_challenge with S256) is required for this client")
    }
    return { _tag: "Ok", application: application.value, params: { ...params, redirect_uri: params.redirect_uri } }
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

const loginPage = (page: PageContext, application: Application, returnTo: string, options: { readonly failed?: boolean; readonly email?: string } = {}) =>
  withCsrfCookie(
    page,
    renderPage({
      locale: page.locale,
      branding: page.branding,
      title: "page_login_title",
      status: options.failed ? 401 : 200,
      body: `<h1>${page.branding ? text(page.locale, "page_login_heading_business", { business: page.branding.name }) : text(page.locale, "page_login_heading_account")}</h1>
<p>${text(page.locale, "page_login_for_app", { app: application.name })}</p>
${options.failed ? alert(text(page.locale, "login_failed")) : ""}
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
  )

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

export const currentAccount = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function* () {
    const repo = yield* OAuthRepo
    const secret = yield* repo.sessionSecret
    const now = yield* Clock.currentTimeMillis
    const accountId = verifySession(secret, request.cookies[SESSION_COOKIE], now)
    if (accountId === undefined) return Option.none()
    return yield* repo.accountById(accountId)
  })

const authorizeGet = Effect.fn("OAuth.authorize")(function* (request: HttpServerRequest.HttpServerRequest) {
  const page = yield* pageContext(request)
  const validated = yield* validateAuthorizeRequest(page, queryOf(request))
  if (validated._tag === "Page") return validated.response
  const account = yield* currentAccount(request)
  if (Option.isNone(account)) return loginPage(page, validated.application, authorizeUrl(validated.params))
  return consentPage(page, validated.application, validated.params, account.value.email)
})

const authorizePost = Effect.fn("OAuth.consent")(function* (request: HttpServerRequest.HttpServerRequest) {
  const page = yield* pageContext(request)
  const form = yield* readForm(request)
  if (!csrfMatches(request.cookies[CSRF_COOKIE], submittedCsrfToken(form))) return withCsrfCookie(page, errorPage(page, text(page.locale, "csrf_failed"), 403))
  const validated = yield* validateAuthorizeRequest(page, form)
  if (validated._tag === "Page") return validated.response
  const account = yield* currentAccount(request)
  if (Option.isNone(account)) return loginPage(page, validated.application, authorizeUrl(validated.params))
  const { application, params } = validated
  if (!consentGiven(form)) return redirectWithError(params.redirect_uri, "access_denied", "The user denied access", params.state)
  const code = yield* issueCode({
    application,
    accountId: account.value.id,
    businessId: Option.getOrNull(Option.map(page.business, (b) => b.id)),
    redirectUri: params.redirect_uri,
    codeChallenge: params.code_challenge ?? null
  })
  const url = new URL(params.redirect_uri)
  url.searchParams.set("code", code)
  if (params.state !== undefined) url.searchParams.set("state", params.state)
  return HttpServerResponse.redirect(url.toString(), { status: 303, headers: { "cache-control": "no-store" } })
})

export const safeReturnTo = (value: string | undefined) =>
  value !== undefined && value.startsWith("/oauth/authorize?") && !value.includes("\\") ? value : "/oauth/password/new"

const login = Effect.fn("OAuth.login")(function* (request: HttpServerRequest.HttpServerRequest) {
  const page = yield* pageContext(request)
  const form = yield* readForm(request)
  if (!csrfMatches(request.cookies[CSRF_COOKIE], form["csrf_token"])) return withCsrfCookie(page, errorPage(page, text(page.locale, "csrf_failed"), 403))
  const returnTo = safeReturnTo(form["return_to"])
  const params = new URL(returnTo, "http://localhost").searchParams
  const validated = yield* validateAuthorizeRequest(page, Object.fromEntries(params))
  if (validated._tag === "Page") return validated.response
  const email = form["email"] ?? ""
  const account = yield* checkPassword(email, form["password"] ?? "")
  if (Option.isNone(account)) return loginPage(page, validated.application, returnTo, { failed: true, email })
  const repo = yield* OAuthRepo
  const session = signSession(yield* repo.sessionSecret, account.value.id, yield* Clock.currentTimeMillis)
  return HttpServerResponse.redirect(returnTo, { status: 303 }).pipe(
    HttpServerResponse.setCookieUnsafe(SESSION_COOKIE, session, {
      httpOnly: true,
      sameSite: "lax",
      path: "/oauth",
      secure: secureCookies(page.origin),
      maxAge: `${SESSION_LIFETIME_MS} millis`
    })
  )
})

const logout = Effect.fn("OAuth.logout")(function* (request: HttpServerRequest.HttpServerRequest) {
  const page = yield* pageContext(request)
  const form = yield* readForm(request)
  if (!csrfMatches(request.cookies[CSRF_COOKIE], form["csrf_token"])) return withCsrfCookie(page, errorPage(page, text(page.locale, "csrf_failed"), 403))
  return HttpServerResponse.redirect(safeReturnTo(form["return_to"]), { status: 303 }).pipe(
    HttpServerResponse.expireCookieUnsafe(SESSION_COOKIE, { path: "/oauth" })
  )
})

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

const token = Effect.fn("OAuth.token")(function* (request: HttpServerRequest.HttpServerRequest) {
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
const revoke = Effect.fn("OAuth.revoke")(function* (request: HttpServerRequest.HttpServerRequest) {
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
  const owner = yield* (yield* OAuthRepo).tokenApplication(hashToken(value))
  if (Option.isSome(owner) && (applicationId === undefined || owner.value === applicationId)) {
    yield* (yield* AccessTokens).revoke(value)
  }
  return HttpServerResponse.empty({ status: 200, headers: { "cache-control": "no-store" } })
})

const forgotForm = (page: PageContext, options: { readonly sentTo?: string } = {}) =>
  withCsrfCookie(
    page,
    renderPage({
      locale: page.locale,
      branding: page.branding,
      title: "page_forgot_title",
      body: `<h1>${text(page.locale, "page_forgot_title")}</h1>
${options.sentTo !== undefined ? notice(text(page.locale, "forgot_sent", { email: options.sentTo })) : `<p>${text(page.locale, "forgot_intro")}</p>`}
<form method="post" action="/oauth/password">
${hidden({ csrf_token: page.csrf, locale: page.locale })}
<label for="email">${text(page.locale, "label_email")}</label>
<input id="email" name="email" type="email" autocomplete="email" required>
<div class="actions"><button type="submit">${text(page.locale, "button_send_link")}</button></div>
</form>`
    })
  )

const forgotGet = Effect.fn("OAuth.forgotForm")(function* (request: HttpServerRequest.HttpServerRequest) {
  return forgotForm(yield* pageContext(request))
})

const forgotPost = Effect.fn("OAuth.forgot")(function* (request: HttpServerRequest.HttpServerRequest) {
  const page = yield* pageContext(request)
  const form = yield* readForm(request)
  if (!csrfMatches(request.cookies[CSRF_COOKIE], form["csrf_token"])) return withCsrfCookie(page, errorPage(page, text(page.locale, "csrf_failed"), 403))
  const email = (form["email"] ?? "").trim()
  if (email.length > 0 && email.length <= 254) yield* requestPasswordReset(email, page.locale, page.origin)
  return forgotForm(page, { sentTo: email })
})

const resetForm = (page: PageContext, resetToken: string, error?: string) =>
  withCsrfCookie(
    page,
    renderPage({
      locale: page.locale,
      branding: page.branding,
      title: "page_reset_title",
      status: error ? 422 : 200,
      body: `<h1>${text(page.locale, "page_reset_title")}</h1>
${error ? alert(error) : ""}
<form method="post" action="/oauth/password/edit">
${hidden({ csrf_token: page.csrf, token: resetToken, locale: page.locale })}
<label for="password">${text(page.locale, "label_new_password")}</label>
<input id="password" name="password" type="password" autocomplete="new-password" minlength="${MIN_PASSWORD_LENGTH}" required aria-describedby="password-rule">
<p id="password-rule" class="small">${text(page.locale, "password_too_short", { min: MIN_PASSWORD_LENGTH })}</p>
<div class="actions"><button type="submit">${text(page.locale, "button_save_password")}</button></div>
</form>`
    })
  )

const resetGet = Effect.fn("OAuth.resetForm")(function* (request: HttpServerRequest.HttpServerRequest) {
  const page = yield* pageContext(request)
  const resetToken = queryOf(request)["token"] ?? ""
  if (!(yield* isLiveAccountToken(resetToken, "password_reset"))) return errorPage(page, text(page.locale, "reset_invalid"), 404)
  return resetForm(page, resetToken)
})

const resetPost = Effect.fn("OAuth.reset")(function* (request: HttpServerRequest.HttpServerRequest) {
  const page = yield* pageContext(request)
  const form = yield* readForm(request)
  if (!csrfMatches(request.cookies[CSRF_COOKIE], form["csrf_token"])) return withCsrfCookie(page, errorPage(page, text(page.locale, "csrf_failed"), 403))
  const resetToken = form["token"] ?? ""
  const password = form["password"] ?? ""
  if (password.length < MIN_PASSWORD_LENGTH || password.length > 200) {
    if (!(yield* isLiveAccountToken(resetToken, "password_reset"))) return errorPage(page, text(page.locale, "reset_invalid"), 404)
    return resetForm(page, resetToken, text(page.locale, "password_too_short", { min: MIN_PASSWORD_LENGTH }))
  }
  const hash = yield* Effect.promise(() => hashPassword(password))
  const sql = yield* SqlClient.SqlClient
  const done = yield* sql.withTransaction(
    Effect.gen(function* () {
      const accountId = yield* consumeAccountToken(resetToken, "password_reset")
      if (Option.isNone(accountId)) return false
      const repo = yield* OAuthRepo
      yield* repo.setPassword(accountId.value, hash)
      // Following a mailed link proves the address.
      yield* repo.confirmEmail(accountId.value)
      return true
    })
  ).pipe(Effect.orDie)
  if (!done) return errorPage(page, text(page.locale, "reset_invalid"), 404)
  return renderPage({
    locale: page.locale,
    branding: page.branding,
    title: "page_reset_title",
    body: `<h1>${text(page.locale, "page_reset_title")}</h1>\n${notice(text(page.locale, "reset_done"))}`
  })
})

const confirmation = Effect.fn("OAuth.confirmation")(function* (request: HttpServerRequest.HttpServerRequest) {
  const page = yield* pageContext(request)
  const accountId = yield* consumeAccountToken(queryOf(request)["token"] ?? "", "email_confirmation")
  if (Option.isNone(accountId)) return errorPage(page, text(page.locale, "reset_invalid"), 404)
  yield* (yield* OAuthRepo).confirmEmail(accountId.value)
  return renderPage({
    locale: page.locale,
    branding: page.branding,
    title: "page_login_title",
    body: `<h1>${text(page.locale, "label_email")}</h1>\n${notice(text(page.locale, "confirmation_done"))}`
  })
})

/**
 * The demo application's redirect target (`npm start` registers `demo-app` with it): shows the
 * code and the request that exchanges it. Developer-facing, so English only.
 */
const demoCallback = Effect.fn("OAuth.demoCallback")(function* (request: HttpServerRequest.HttpServerRequest) {
  const page = yield* pageContext(request)
  const query = queryOf(request)
  const code = query["code"]
  const body = code
    ? `<h1>Authorization code</h1>
<p>The demo application received this code (valid 10 minutes, single use):</p>
<pre style="white-space: pre-wrap; word-break: break-all">${escapeHtml(code)}</pre>
<p>Exchange it for an access token:</p>
<pre style="white-space: pre-wrap; word-break: break-all">curl -s -X POST '${escapeHtml(page.origin)}/oauth/token' \
  -d grant_type=authorization_code -d code='${escapeHtml(code)}' \
  -d redirect_uri='${escapeHtml(`${page.origin}/oauth/callback`)}' \
  -d client_id=${DEMO_CLIENT_ID} -d client_secret=${DEMO_CLIENT_SECRET}</pre>`
    : `<h1>No code</h1>${alert(escapeHtml(query["error_description"] ?? query["error"] ?? "The authorization request returned no code."))}`
  return renderPage({ locale: "en", branding: null, title: "page_login_title", body })
})

export const OAuthRoutesLive = Layer.mergeAll(
  HttpRouter.add("GET", "/oauth/callback", demoCallback),
  HttpRouter.add("GET", "/oauth/authorize", authorizeGet),
  HttpRouter.add("POST", "/oauth/authorize", authorizePost),
  HttpRouter.add("POST", "/oauth/login", login),
  HttpRouter.add("POST", "/oauth/logout", logout),
  HttpRouter.add("POST", "/oauth/token", token),
  HttpRouter.add("POST", "/oauth/revoke", revoke),
  HttpRouter.add("GET", "/oauth/password/new", forgotGet),
  HttpRouter.add("POST", "/oauth/password", forgotPost),
  HttpRouter.add("GET", "/oauth/password/edit", resetGet),
  HttpRouter.add("POST", "/oauth/password/edit", resetPost),
  HttpRouter.add("GET", "/oauth/confirmation", confirmation)
)
