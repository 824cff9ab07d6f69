import { Effect, Option } from "effect"
import { HttpServerRequest } from "effect/http"
import { AccountTokensRepo } from "../../access/account-tokens.ts"
import { requestPasswordReset } from "./service.ts"
import { hashPassword } from "../../access/passwords.ts"
import { SqlClient } from "effect/sql"
import { alert, hidden, notice, renderPage, text } from "./pages.ts"
import { OAuthRepo } from "./repo.ts"
import { SignInThrottle } from "../../access/sign-in-throttle.ts"
import { mailRequestRefusal } from "../../platform/mail/throttle.ts"
import { csrfAccepted, errorPage, type PageContext, pageContext, queryOf, readForm, withCsrfCookie } from "./requests.ts"

/** The password pages (forgotten, reset by a mailed link) and the e-mail confirmation link. */

export const MIN_PASSWORD_LENGTH = 10

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

export const forgotGet = Effect.fn("OAuth.forgotForm")(function* (request: HttpServerRequest.HttpServerRequest) {
  return forgotForm(yield* pageContext(request))
})

export const forgotPost = Effect.fn("OAuth.forgot")(function* (request: HttpServerRequest.HttpServerRequest) {
  const page = yield* pageContext(request)
  const form = yield* readForm(request)
  if (!csrfAccepted(page, form["csrf_token"])) return withCsrfCookie(page, errorPage(page, text(page.locale, "csrf_failed"), 403))
  const email = (form["email"] ?? "").trim()
  if (email.length > 0 && email.length <= 254) {
    const refusedFor = yield* mailRequestRefusal(email)
    if (refusedFor !== undefined) {
      return withCsrfCookie(page, errorPage(page, text(page.locale, "mail_throttled", { seconds: refusedFor }), 429))
    }
    yield* requestPasswordReset(email, page.locale)
  }
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

export const resetGet = Effect.fn("OAuth.resetForm")(function* (request: HttpServerRequest.HttpServerRequest) {
  const page = yield* pageContext(request)
  const resetToken = queryOf(request)["token"] ?? ""
  if (!(yield* (yield* AccountTokensRepo).isLive({ token: resetToken, purpose: "password_reset" }))) return errorPage(page, text(page.locale, "reset_invalid"), 404)
  return resetForm(page, resetToken)
})

export const resetPost = Effect.fn("OAuth.reset")(function* (request: HttpServerRequest.HttpServerRequest) {
  const page = yield* pageContext(request)
  const form = yield* readForm(request)
  if (!csrfAccepted(page, form["csrf_token"])) return withCsrfCookie(page, errorPage(page, text(page.locale, "csrf_failed"), 403))
  const resetToken = form["token"] ?? ""
  const password = form["password"] ?? ""
  if (password.length < MIN_PASSWORD_LENGTH || password.length > 200) {
    if (!(yield* (yield* AccountTokensRepo).isLive({ token: resetToken, purpose: "password_reset" }))) return errorPage(page, text(page.locale, "reset_invalid"), 404)
    return resetForm(page, resetToken, text(page.locale, "password_too_short", { min: MIN_PASSWORD_LENGTH }))
  }
  const hash = yield* Effect.promise(() => hashPassword(password))
  const sql = yield* SqlClient.SqlClient
  const done = yield* sql.withTransaction(
    Effect.gen(function* () {
      const accountId = yield* (yield* AccountTokensRepo).consume({ token: resetToken, purpose: "password_reset" })
      if (Option.isNone(accountId)) return false
      const repo = yield* OAuthRepo
      yield* repo.setPassword({ accountId: accountId.value, passwordHash: hash })
      // Following a mailed link proves the address.
      yield* repo.confirmEmail({ accountId: accountId.value })
      // And the owner: an account locked by failed sign-ins (someone guessing) opens again now
      // rather than at the window's end. The guessers' IPs keep their own counts.
      const account = yield* repo.accountById({ accountId: accountId.value })
      if (account !== undefined) yield* (yield* SignInThrottle).clearAccount(account.email)
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

export const confirmation = Effect.fn("OAuth.confirmation")(function* (request: HttpServerRequest.HttpServerRequest) {
  const page = yield* pageContext(request)
  const accountId = yield* (yield* AccountTokensRepo).consume({ token: queryOf(request)["token"] ?? "", purpose: "email_confirmation" })
  if (Option.isNone(accountId)) return errorPage(page, text(page.locale, "reset_invalid"), 404)
  yield* (yield* OAuthRepo).confirmEmail({ accountId: accountId.value })
  return renderPage({
    locale: page.locale,
    branding: page.branding,
    title: "page_login_title",
    body: `<h1>${text(page.locale, "label_email")}</h1>\n${notice(text(page.locale, "confirmation_done"))}`
  })
})
