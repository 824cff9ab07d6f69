import { escapeHtml } from "./pages.ts"

/**
 * The field names of the Rails pages that scripted clients were written against (Devise's
 * sign-in, Doorkeeper's consent): `authenticity_token` for the CSRF token and `authorize=1`
 * for consent. Our own pages post `csrf_token` and `decision`; both spellings are read.
 */

/**
 * The hidden CSRF input exactly as Rails renders it: scripts find the token with
 * `grep -o 'name="authenticity_token" type="hidden" value="[^"]*"'`, so the attribute order matters.
 */
export const authenticityTokenInput = (token: string) =>
  `<input name="authenticity_token" type="hidden" value="${escapeHtml(token)}">`

export const submittedCsrfToken = (form: Readonly<Record<string, string>>): string | undefined =>
  form["csrf_token"] ?? form["authenticity_token"]

/**
 * Consent is given by our page's `decision=allow` or by Doorkeeper's `authorize=1`; anything
 * else (a deny button, `authorize=0`, nothing) is a refusal.
 */
export const consentGiven = (form: Readonly<Record<string, string>>): boolean =>
  form["authorize"] !== undefined ? form["authorize"] === "1" : form["decision"] === "allow"
