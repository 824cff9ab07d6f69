import { Clock, Effect, Option, Schema } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { type Locale, LOCALES, parseLocale } from "../shared/locale.ts"
import { t } from "../shared/i18n.ts"
import { RequestContext } from "../shared/request-context.ts"
import { alert, type PageBranding, renderPage, text } from "./pages.ts"
import { OAuthRepo } from "./repo.ts"
import { CSRF_COOKIE, SESSION_COOKIE, newCsrfToken, verifySession } from "./session.ts"

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

/**
 * The CSRF cookie, set when the page minted a new token: for `/oauth` by its own pages, for the
 * whole host (`/`) by the sign-in, whose one token then serves `/accounts` and `/oauth` alike.
 */
export const withCsrfCookie = (page: PageContext, response: HttpServerResponse.HttpServerResponse, path = "/oauth") =>
  page.newCsrf
    ? HttpServerResponse.setCookieUnsafe(response, CSRF_COOKIE, page.csrf, {
        httpOnly: true,
        sameSite: "lax",
        path,
        secure: secureCookies(page.origin)
      })
    : response

/**
 * A page of the sign-in (the login page of `/oauth/authorize`, the scripted `/accounts/sign_in`):
 * the login title, the business's name as heading on its host, and the CSRF cookie of `path`.
 */
export const signInPage = (
  page: PageContext,
  content: { readonly body: string; readonly status?: number; readonly headers?: Readonly<Record<string, string>>; readonly csrfPath?: string }
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
    }),
    content.csrfPath
  )

export const errorPage = (page: PageContext, message: string, status = 400) =>
  renderPage({
    locale: page.locale,
    branding: page.branding,
    title: "page_error_title",
    status,
    body: `<h1>${text(page.locale, "page_error_title")}</h1>\n${alert(message)}`
  })

export const currentAccount = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function* () {
    const repo = yield* OAuthRepo
    const secret = yield* repo.sessionSecret
    const now = yield* Clock.currentTimeMillis
    const accountId = verifySession(secret, request.cookies[SESSION_COOKIE], now)
    if (accountId === undefined) return Option.none()
    return yield* repo.accountById(accountId)
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
