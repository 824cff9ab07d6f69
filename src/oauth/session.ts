import { createHmac, randomBytes, timingSafeEqual } from "node:crypto"

/**
 * The login session of the authorization pages: a cookie `{accountId}.{issuedAt}.{mac}` signed
 * with the deployment's secret, valid for 12 hours. CSRF protection is a double-submit
 * token: a random cookie echoed by a hidden form field (plus SameSite=Lax cookies).
 */
export const SESSION_COOKIE = "studio_session"
export const CSRF_COOKIE = "studio_csrf"
export const SESSION_LIFETIME_MS = 12 * 60 * 60 * 1000

const mac = (secret: string, data: string) => createHmac("sha256", secret).update(data).digest("base64url")

export const signSession = (secret: string, accountId: number, now: number) => {
  const data = `${accountId}.${now}`
  return `${data}.${mac(secret, data)}`
}

export const verifySession = (secret: string, cookie: string | undefined, now: number): number | undefined => {
  if (!cookie) return undefined
  const [account, issued, signature] = cookie.split(".")
  if (!account || !issued || !signature) return undefined
  const expected = Buffer.from(mac(secret, `${account}.${issued}`))
  const given = Buffer.from(signature)
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined
  if (now - Number(issued) > SESSION_LIFETIME_MS || Number(issued) > now + 60_000) return undefined
  const accountId = Number(account)
  return Number.isSafeInteger(accountId) && accountId > 0 ? accountId : undefined
}

export const newCsrfToken = () => randomBytes(24).toString("base64url")

export const csrfMatches = (cookie: string | undefined, field: unknown): boolean =>
  typeof field === "string" &&
  cookie !== undefined &&
  cookie.length > 0 &&
  cookie.length === field.length &&
  timingSafeEqual(Buffer.from(cookie), Buffer.from(field))
