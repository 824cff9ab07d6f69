import { Effect, Layer, Option, Schema } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { alert, escapeHtml, hidden, notice, text } from "./pages.ts"
import { authenticityTokenInput } from "./rails-fields.ts"
import { csrfAccepted, endSession, errorPage, openSession, type PageContext, pageContext, returnToRefusal, safeReturnTo, signInPage, withCsrfCookie } from "./requests.ts"
import { signInWithPassword } from "./service.ts"

/**
 * The Devise-style sign-in that scripted clients drive with curl and a cookie jar:
 * `GET /accounts/sign_in` (a form with `authenticity_token`), `POST /accounts/sign_in` with
 * `account[email]` and `account[password]`, then `/oauth/authorize` as a signed-in user.
 * It opens the same session as the login page of `/oauth/authorize` (same cookie, same
 * host rule: a session and the tokens it grants belong to the host it was opened on).
 */

const SignInForm = Schema.Struct({
  authenticity_token: Schema.optional(Schema.String),
  return_to: Schema.optional(Schema.String),
  account: Schema.optional(
    Schema.Struct({ email: Schema.optional(Schema.String), password: Schema.optional(Schema.String) })
  )
})
const decodeSignInForm = Schema.decodeUnknownOption(SignInForm)

/** The pipeline turned `account[email]=...` into `{"account": {"email": ...}}`. */
const readSignInForm = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.map(Effect.option(request.json), (json) =>
    Option.getOrElse(Option.flatMap(json, decodeSignInForm), (): typeof SignInForm.Type => ({})))

/** Only a return to an authorization request is followed; anything else is dropped. */
const returnToOf = (value: string | undefined) => (value !== undefined && safeReturnTo(value) === value ? value : undefined)

const signInFormPage = (
  page: PageContext,
  options: { readonly failed?: boolean; readonly throttledFor?: number; readonly email?: string; readonly returnTo?: string | undefined } = {}
) =>
  signInPage(page, {
    // A failed sign-in is the login page's 401, with the form again (Devise re-renders it); a
    // throttled one a 429 that says when to try again.
    status: options.throttledFor !== undefined ? 429 : options.failed ? 401 : 200,
    ...(options.throttledFor !== undefined ? { headers: { "retry-after": String(options.throttledFor) } } : {}),
    body: `${options.throttledFor !== undefined ? alert(text(page.locale, "sign_in_throttled", { seconds: options.throttledFor })) : options.failed ? alert(text(page.locale, "login_failed")) : ""}
<form method="post" action="/accounts/sign_in?locale=${page.locale}">
${authenticityTokenInput(page.csrf)}
${hidden({ return_to: options.returnTo })}
<label for="account_email">${text(page.locale, "label_email")}</label>
<input id="account_email" name="account[email]" type="email" autocomplete="username" required value="${escapeHtml(options.email ?? "")}"${options.failed ? ' aria-invalid="true"' : ""}>
<label for="account_password">${text(page.locale, "label_password")}</label>
<input id="account_password" name="account[password]" type="password" autocomplete="current-password" required${options.failed ? ' aria-invalid="true"' : ""}>
<div class="actions"><button type="submit">${text(page.locale, "button_log_in")}</button></div>
</form>
<p class="small"><a href="/oauth/password/new?locale=${page.locale}">${text(page.locale, "link_forgot_password")}</a></p>`
  })

const signedInPage = (page: PageContext, email: string) =>
  signInPage(page, {
    body: `${notice(text(page.locale, "signed_in_as", { email }))}
<form method="post" action="/accounts/sign_out?locale=${page.locale}">
${authenticityTokenInput(page.csrf)}
<button type="submit" class="secondary">${text(page.locale, "link_not_you")}</button>
</form>`
  })

const csrfRefused = (page: PageContext) => withCsrfCookie(page, errorPage(page, text(page.locale, "csrf_failed"), 403))

const signInForm = Effect.fn("OAuth.signInForm")(function* (request: HttpServerRequest.HttpServerRequest) {
  const page = yield* pageContext(request)
  const query = new URL(request.url, "http://localhost").searchParams
  const refused = returnToRefusal(query.get("return_to") ?? undefined, page.locale)
  if (Option.isSome(refused)) return refused.value
  return signInFormPage(page, { returnTo: returnToOf(query.get("return_to") ?? undefined) })
})

const signIn = Effect.fn("OAuth.signIn")(function* (request: HttpServerRequest.HttpServerRequest) {
  const page = yield* pageContext(request)
  const form = yield* readSignInForm(request)
  if (!csrfAccepted(page, form.authenticity_token)) return csrfRefused(page)
  const refused = returnToRefusal(form.return_to, page.locale)
  if (Option.isSome(refused)) return refused.value
  const returnTo = returnToOf(form.return_to)
  const email = form.account?.email ?? ""
  const result = yield* signInWithPassword(email, form.account?.password ?? "")
  if (result._tag === "Refused") return signInFormPage(page, { failed: true, throttledFor: result.retryAfterSeconds, email, returnTo })
  if (result._tag === "Failed") return signInFormPage(page, { failed: true, email, returnTo })
  // A new session and a new CSRF token: the signed-in page shows the new one.
  const signedIn = yield* openSession(page, result.account)
  return signedIn.withSession(
    returnTo !== undefined ? HttpServerResponse.redirect(returnTo, { status: 303 }) : signedInPage(signedIn.page, result.account.email)
  )
})

const signOut = Effect.fn("OAuth.signOut")(function* (request: HttpServerRequest.HttpServerRequest) {
  const page = yield* pageContext(request)
  const form = yield* readSignInForm(request)
  if (!csrfAccepted(page, form.authenticity_token)) return csrfRefused(page)
  return yield* endSession(page, HttpServerResponse.redirect(`/accounts/sign_in?locale=${page.locale}`, { status: 303 }))
})

export const SignInRoutesLive = Layer.mergeAll(
  HttpRouter.add("GET", "/accounts/sign_in", signInForm),
  HttpRouter.add("POST", "/accounts/sign_in", signIn),
  // Devise signs out with DELETE (rails-ujs) or a POST carrying `_method=delete`.
  HttpRouter.add("DELETE", "/accounts/sign_out", signOut),
  HttpRouter.add("POST", "/accounts/sign_out", signOut)
)
