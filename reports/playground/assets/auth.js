// Sign-in as the first-party public client: authorization code with PKCE (S256), no secret.
// The token lives in sessionStorage: it dies with the tab and is never typed or pasted.
import { sha256 } from "./sha256.js"

export const CLIENT_ID = "reports-playground"
const TOKEN_KEY = "reports-playground.token"
const PENDING_KEY = "reports-playground.pending"

const base64url = (bytes) =>
  btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")
const randomText = () => base64url(crypto.getRandomValues(new Uint8Array(32)))

/** The page itself on this business host: the redirect URI the service registered for this client. */
export const redirectUri = () => `${location.origin}${location.pathname}`

export const currentToken = () => sessionStorage.getItem(TOKEN_KEY)

const form = (fields) => ({
  method: "POST",
  headers: { "Content-Type": "application/x-www-form-urlencoded" },
  body: new URLSearchParams(fields).toString()
})

/** Leaves for the service's own sign-in and consent pages; the query in the hash comes back after. */
export async function signIn() {
  const verifier = randomText()
  const state = randomText()
  const challenge = base64url(await sha256(new TextEncoder().encode(verifier)))
  sessionStorage.setItem(PENDING_KEY, JSON.stringify({ verifier, state, hash: location.hash }))
  const url = new URL("/oauth/authorize", location.origin)
  url.search = new URLSearchParams({
    client_id: CLIENT_ID,
    response_type: "code",
    redirect_uri: redirectUri(),
    state,
    code_challenge: challenge,
    code_challenge_method: "S256"
  }).toString()
  location.assign(url.toString())
}

/**
 * The way back from the authorization pages: `?code=` (or `?error=`) on this page. The code is
 * exchanged for a token at once and removed from the address bar and history.
 * Answers null when this load is no such return, else `{ ok: true }` or `{ error: "..." }`.
 */
export async function completeSignIn() {
  const params = new URLSearchParams(location.search)
  if (!params.has("code") && !params.has("error")) return null
  const pending = JSON.parse(sessionStorage.getItem(PENDING_KEY) ?? "null")
  sessionStorage.removeItem(PENDING_KEY)
  history.replaceState(null, "", `${location.pathname}${pending?.hash ?? ""}`)
  if (params.has("error")) return { error: params.get("error_description") ?? params.get("error") }
  if (!pending || pending.state !== params.get("state")) return { error: "The sign-in answer does not belong to this tab. Sign in again." }
  const response = await fetch("/oauth/token", form({
    grant_type: "authorization_code",
    code: params.get("code"),
    redirect_uri: redirectUri(),
    client_id: CLIENT_ID,
    code_verifier: pending.verifier
  }))
  const body = await response.json().catch(() => ({}))
  if (!response.ok || typeof body.access_token !== "string") {
    return { error: body.error_description ?? body.error ?? `The token endpoint answered ${response.status}` }
  }
  sessionStorage.setItem(TOKEN_KEY, body.access_token)
  return { ok: true }
}

/** Revokes the token at the service (RFC 7009), then forgets it whatever the answer. */
export async function signOut() {
  const token = currentToken()
  sessionStorage.removeItem(TOKEN_KEY)
  if (token === null) return
  await fetch("/oauth/revoke", form({ token, client_id: CLIENT_ID })).catch(() => undefined)
}

/** A token the API no longer accepts (revoked elsewhere) is forgotten too. */
export const forgetToken = () => sessionStorage.removeItem(TOKEN_KEY)
