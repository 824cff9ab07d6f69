import { Clock, Effect, Option, Schema } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { type Locale, LOCALES, parseLocale } from "../../shared/locale.ts"
import { t } from "../../shared/i18n.ts"
import { RequestContext } from "../../shared/request-context.ts"
import { alert, type PageBranding, renderPage, text } from "./pages.ts"
import { OAuthRepo } from "./repo.ts"
import type { AccountLogin } from "./sessions-repo.ts"
import { SESSION_LIFETIME_MS, csrfCookieName, csrfTokenValid, hashSessionId, newCsrfToken, newSessionId, sameText, sessionCookieName, sessionCookieValue, sessionIdOf } from "./session.ts"
import { currentTime } from "../../shared/clock.ts"

/** What every page and endpoint of the authorization server reads from a request. */

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

export const queryOf = (request: HttpServerRequest.HttpServerRequest) =>
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

/** The request's sign-in session, if any: its id and its account. */
export interface SignedIn {
  readonly sessionId: string
  readonly account: AccountLogin
}

/** A session cookie this deployment signed, whose row is live and was opened on this host. */
const sessionOf = (request: HttpServerRequest.HttpServerRequest, secret: string, businessId: number | null, secure: boolean) =>
  Effect.gen(function* () {
    const id = sessionIdOf(secret, request.cookies[sessionCookieName(secure)])
    if (id === undefined) return undefined
    const now = (yield* currentTime)
    const account = yield* (yield* OAuthRepo).sessionAccount({ idHash: hashSessionId(id), businessId, now })
    return account !== undefined ? ({ sessionId: id, account } satisfies SignedIn) : undefined
  })

export const secureCookies = (origin: string) => origin.startsWith("https://")

export const pageContext = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function* () {
    const context = yield* RequestContext
    const repo = yield* OAuthRepo
    let branding: PageBranding | null = null
    if (Option.isSome(context.business)) {
      const row = yield* repo.branding({ businessId: context.business.value.id })
      if (row !== undefined) {
        const color = row.brand_colors["brand"] ?? row.brand_colors["accent"]
        branding = { name: row.name, color: typeof color === "string" ? color : null, logoUrl: row.logo_url }
      }
    }
    const secret = yield* repo.sessionSecret
    const businessId = Option.getOrNull(Option.map(context.business, (business) => business.id))
    const secure = secureCookies(context.origin)
    const session = yield* sessionOf(request, secret, businessId, secure)
    // The CSRF token of the cookie counts only if this deployment minted it for this session
    // (or for "signed out"); otherwise the page gets a new one, and a form posted with the old
    // one is refused.
    const existingCsrf = request.cookies[csrfCookieName(secure)]
    const csrfValid = csrfTokenValid(secret, session?.sessionId ?? "", existingCsrf)
    return {
      locale: pageLocale(request, context.locale),
      branding,
      business: context.business,
      businessId,
      origin: context.origin,
      secure,
      secret,
      session,
      csrf: csrfValid ? existingCsrf! : newCsrfToken(secret, session?.sessionId ?? ""),
      newCsrf: !csrfValid
    }
  })
export type PageContext = Effect.Success<ReturnType<typeof pageContext>>

/** A posted form's CSRF token is the one of the cookie, and that one was valid for this request. */
export const csrfAccepted = (page: PageContext, field: unknown) => !page.newCsrf && sameText(page.csrf, field)

/**
 * The CSRF cookie, set when the page minted a new token: for the whole host (`/`), so one token
 * serves `/accounts` and `/oauth` alike (as Rails' per-session token does), and as `__Host-`
 * on https, which requires `Path=/`.
 */
export const withCsrfCookie = (page: PageContext, response: HttpServerResponse.HttpServerResponse) =>
  page.newCsrf
    ? HttpServerResponse.setCookieUnsafe(response, csrfCookieName(page.secure), page.csrf, {
        httpOnly: true,
        sameSite: "lax",
        path: "/",
        secure: page.secure
      })
    : response

/**
 * Signs `account` in on this host: a new session row (the one this browser had, if any, ends),
 * and the page as the signed-in person sees it, with a new CSRF token bound to the session.
 * `withSession` sets both cookies on the response.
 */
export const openSession = Effect.fn("OAuth.openSession")(function* (page: PageContext, account: AccountLogin) {
  const repo = yield* OAuthRepo
  if (page.session) yield* repo.endSession({ idHash: hashSessionId(page.session.sessionId) })
  const sessionId = newSessionId()
  const now = yield* Clock.currentTimeMillis
  yield* repo.openSession({
    idHash: hashSessionId(sessionId),
    accountId: account.id,
    businessId: page.businessId,
    now: new Date(now),
    expiresAt: new Date(now + SESSION_LIFETIME_MS)
  })
  const signedIn: PageContext = { ...page, session: { sessionId, account }, csrf: newCsrfToken(page.secret, sessionId), newCsrf: true }
  const withSession = (response: HttpServerResponse.HttpServerResponse) =>
    withCsrfCookie(
      signedIn,
      HttpServerResponse.setCookieUnsafe(response, sessionCookieName(page.secure), sessionCookieValue(page.secret, sessionId), {
        httpOnly: true,
        sameSite: "lax",
        path: "/",
        secure: page.secure,
        maxAge: `${SESSION_LIFETIME_MS} millis`
      })
    )
  return { page: signedIn, withSession }
})

/** Signs out: the session's row goes, so every copy of its cookie is refused too. */
export const endSession = Effect.fn("OAuth.endSession")(function* (page: PageContext, response: HttpServerResponse.HttpServerResponse) {
  if (page.session) yield* (yield* OAuthRepo).endSession({ idHash: hashSessionId(page.session.sessionId) })
  return HttpServerResponse.expireCookieUnsafe(response, sessionCookieName(page.secure), { path: "/", secure: page.secure })
})

/**
 * A page of the sign-in (the login page of `/oauth/authorize`, the scripted `/accounts/sign_in`):
 * the login title, the business's name as heading on its host, and the CSRF cookie.
 */
export const signInPage = (
  page: PageContext,
  content: { readonly body: string; readonly status?: number; readonly headers?: Readonly<Record<string, string>> }
) =>
  withCsrfCookie(
    page,
    renderPage({
      locale: page.locale,
      branding: page.branding,
      title: "page_login_title",
      status: content.status ?? 200,
      ...(content.headers !== undefined ? { headers: content.headers } : {}),
      body: `<h1>${page.branding ? text(page.locale, "page_login_heading_business", { business: page.branding.name }) : text(page.locale, "page_login_heading_account")}</h1>
${content.body}`
    })
  )

export const errorPage = (page: PageContext, message: string, status = 400) =>
  renderPage({
    locale: page.locale,
    branding: page.branding,
    title: "page_error_title",
    status,
    body: `<h1>${text(page.locale, "page_error_title")}</h1>\n${alert(message)}`
  })

/**
 * A `return_to` with a control character (a CR/LF, say) is refused outright, 400 of the error
 * model, rather than followed or dropped: it only comes from a forged link, and written into
 * `Location` it would be a header injection (Node refuses it with an exception, a 500).
 */
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/
export const returnToRefusal = (value: string | undefined, locale: Locale) =>
  value !== undefined && CONTROL_CHARACTER.test(value)
    ? Option.some(HttpServerResponse.jsonUnsafe({ errors: [t(locale, "return_to_invalid")] }, { status: 400 }))
    : Option.none()

export const safeReturnTo = (value: string | undefined) =>
  value !== undefined && value.startsWith("/oauth/authorize?") && !value.includes("\\") ? value : "/oauth/password/new"
