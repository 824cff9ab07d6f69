import { createHmac, hash, randomBytes, timingSafeEqual } from "node:crypto"

/**
 * The login session of the authorization pages, kept on the server:
 * - The cookie `studio_sid` is `{id}.{mac}`: a random id signed with the deployment's
 *   secret (SESSION_SECRET), so a made-up cookie is refused without a lookup. The row
 *   (account_sessions, by the id's SHA-256) holds the account, the host it was opened on and its
 *   expiry (12 hours). Signing out deletes the row, a password change every row of the account:
 *   every copy of the cookie stops working at once.
 * - CSRF is a double-submit token the server mints: a nonce and a MAC binding it to the session
 *   (or to "signed out"). A token a client made up is refused, and so is one from before a
 *   sign-in, which sets a new one (rotation).
 * Both cookies are the host's (`Path=/`: the session is read by `/accounts/sign_out` as well as
 * `/oauth`), and `__Host-` on https (Secure, Path=/, no Domain), which no sibling host can plant.
 * Their names are new with this scheme: a browser's cookies of the old one (`studio_session`,
 * and `studio_csrf` on `Path=/oauth`) would come first in its Cookie header on `/oauth` and
 * shadow the new ones until they expired.
 */
export const SESSION_LIFETIME_MS = 12 * 60 * 60 * 1000

export const sessionCookieName = (secure: boolean) => (secure ? "__Host-studio_sid" : "studio_sid")

const mac = (secret: string, purpose: string, parts: ReadonlyArray<string>) =>
  createHmac("sha256", secret).update([purpose, ...parts].join("\n")).digest()

/** Equal strings, compared in constant time (false for anything but a string). */
export const sameText = (expected: string, given: unknown): boolean =>
  typeof given === "string" && given.length === expected.length && timingSafeEqual(Buffer.from(given), Buffer.from(expected))

export const newSessionId = () => randomBytes(32).toString("base64url")

export const sessionCookieValue = (secret: string, id: string) => `${id}.${mac(secret, "session", [id]).toString("base64url")}`

/** The session id of a cookie this deployment signed; undefined for anything else. */
export const sessionIdOf = (secret: string, cookie: string | undefined): string | undefined => {
  const dot = cookie?.indexOf(".") ?? -1
  if (cookie === undefined || dot <= 0) return undefined
  const id = cookie.slice(0, dot)
  return sameText(sessionCookieValue(secret, id), cookie) ? id : undefined
}

/** What account_sessions stores: the id's hash, so a copy of the table opens no session. */
export const hashSessionId = (id: string): Buffer => hash("sha256", id, "buffer")

export const csrfCookieName = (secure: boolean) => (secure ? "__Host-studio_xsrf" : "studio_xsrf")

// 12 bytes of nonce and 12 of MAC: 32 base64url characters, the length of the field scripts
// cut out of Rails-style pages. 96 bits of MAC is far beyond guessing online.
const NONCE_BYTES = 12
const CSRF_MAC_BYTES = 12

const csrfMac = (secret: string, binding: string, nonce: Buffer) =>
  mac(secret, "csrf", [binding, nonce.toString("base64url")]).subarray(0, CSRF_MAC_BYTES)

/** A new CSRF token bound to `binding`: the session id, or "" when signed out. */
export const newCsrfToken = (secret: string, binding: string) => {
  const nonce = randomBytes(NONCE_BYTES)
  return Buffer.concat([nonce, csrfMac(secret, binding, nonce)]).toString("base64url")
}

/** The token was minted by this deployment for `binding`. */
export const csrfTokenValid = (secret: string, binding: string, token: string | undefined): boolean => {
  if (token === undefined || !/^[A-Za-z0-9_-]{32}$/.test(token)) return false
  const bytes = Buffer.from(token, "base64url")
  return timingSafeEqual(bytes.subarray(NONCE_BYTES), csrfMac(secret, binding, bytes.subarray(0, NONCE_BYTES)))
}
