import { Effect, Option } from "effect"
import { SqlClient } from "effect/sql"
import { createHash, randomBytes, timingSafeEqual } from "node:crypto"
import { AccountTokensRepo, passwordResetLink } from "../../access/account-tokens.ts"
import { hashClientSecret } from "../../access/applications.ts"
import { verifyPassword } from "../../access/passwords.ts"
import { AccessTokens, generateToken, hashToken } from "../../access/tokens.ts"
import { mailLinkOrigin, sendMail } from "../../platform/mail/service.ts"
import type { Locale } from "../../shared/locale.ts"
import { RequestContext } from "../../shared/request-context.ts"
import { SignInThrottle } from "../../access/sign-in-throttle.ts"
import { inTransaction } from "../../platform/transactions.ts"
import { type Application, type AuthorizationCode, OAuthRepo } from "./repo.ts"

/**
 * The rules of the authorization-code grant (RFC 6749 section 4.1, PKCE RFC 7636): codes
 * are single-use and live 10 minutes; the redirect URI must equal the registered one exactly;
 * PKCE (S256) is verified when a challenge was given and required for public applications;
 * a replayed code revokes every token it produced. Tokens do not expire.
 */
export const CODE_LIFETIME_SECONDS = 600

/** An RFC 6749 error: `{"error": code, "error_description": ...}`. */
export class OAuthError {
  readonly _tag = "OAuthError"
  readonly error: "invalid_request" | "invalid_client" | "invalid_grant" | "unauthorized_client" | "unsupported_grant_type"
  readonly description: string
  readonly status: number
  constructor(error: OAuthError["error"], description: string, status = 400) {
    this.error = error
    this.description = description
    this.status = status
  }
}

const s256 = (verifier: string) => createHash("sha256").update(verifier, "ascii").digest("base64url")

/** RFC 7636: 43–128 characters of the unreserved set. */
export const isValidPkceValue = (value: string) => /^[A-Za-z0-9\-._~]{43,128}$/.test(value)

const sameSecret = (secret: string, hash: string | null) => {
  if (hash === null) return false
  const given = Buffer.from(hashClientSecret(secret), "hex")
  const stored = Buffer.from(hash, "hex")
  return given.length === stored.length && timingSafeEqual(given, stored)
}

/** Checks an e-mail and password; `None` for any mismatch, without telling which. */
export const checkPassword = Effect.fn("OAuth.checkPassword")(function* (email: string, password: string) {
  const repo = yield* OAuthRepo
  const account = yield* repo.accountByEmail({ email: email.trim() })
  if (account === undefined || account.password_hash === null) {
    // Spend the same time as a real check, so response times do not tell which e-mails exist.
    yield* Effect.promise(() => verifyPassword(password, DUMMY_HASH))
    return Option.none()
  }
  const ok = yield* Effect.promise(() => verifyPassword(password, account.password_hash!))
  return ok ? Option.some(account) : Option.none()
})
const DUMMY_HASH = "scrypt$32768$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"

/**
 * A sign-in by e-mail and password, throttled per account and per IP (auth/sign-in-throttle.ts):
 * a throttled attempt checks no password, so even the right one is refused until it may try.
 */
export const signInWithPassword = Effect.fn("OAuth.signInWithPassword")(function* (email: string, password: string) {
  const throttle = yield* SignInThrottle
  const { clientAddress } = yield* RequestContext
  const verdict = yield* throttle.attempt(email, clientAddress)
  if (verdict._tag === "Refused") return verdict
  const account = yield* checkPassword(email, password)
  if (Option.isNone(account)) return { _tag: "Failed" } as const
  yield* throttle.succeeded(email, clientAddress)
  return { _tag: "SignedIn", account: account.value } as const
})

export const issueCode = Effect.fn("OAuth.issueCode")(function* (options: {
  readonly application: Application
  readonly accountId: number
  readonly businessId: number | null
  readonly redirectUri: string
  readonly codeChallenge: string | null
}) {
  // Hex, not base64url: scripts pick the code out of `Location` with `code=\w+`, which stops at "-".
  const code = randomBytes(32).toString("hex")
  yield* (yield* OAuthRepo).insertCode({
    codeHash: hashToken(code),
    applicationId: options.application.id,
    accountId: options.accountId,
    businessId: options.businessId,
    redirectUri: options.redirectUri,
    codeChallenge: options.codeChallenge,
    lifetimeSeconds: CODE_LIFETIME_SECONDS
  })
  return code
})

export interface TokenRequest {
  readonly grant_type?: string | undefined
  readonly code?: string | undefined
  readonly redirect_uri?: string | undefined
  readonly client_id?: string | undefined
  readonly client_secret?: string | undefined
  readonly code_verifier?: string | undefined
}

/** Client credentials from the body (client_secret_post) or the Basic header (client_secret_basic). */
export const clientCredentials = (
  body: TokenRequest,
  authorization: string | undefined
): { readonly clientId?: string; readonly secret?: string; readonly basic: boolean } | OAuthError => {
  const basic = authorization?.match(/^\s*Basic\s+([A-Za-z0-9+/=]+)\s*$/i)?.[1]
  if (basic) {
    const decoded = Buffer.from(basic, "base64").toString("utf8")
    const colon = decoded.indexOf(":")
    if (colon < 0) return new OAuthError("invalid_client", "Malformed Basic credentials", 401)
    try {
      const clientId = decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, " "))
      const secret = decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, " "))
      if (body.client_id !== undefined && body.client_id !== clientId) {
        return new OAuthError("invalid_request", "client_id differs from the Basic credentials")
      }
      if (body.client_secret !== undefined) {
        return new OAuthError("invalid_request", "Use one client authentication method, not two")
      }
      return { clientId, secret, basic: true }
    } catch {
      return new OAuthError("invalid_client", "Malformed Basic credentials", 401)
    }
  }
  return { ...(body.client_id !== undefined ? { clientId: body.client_id } : {}), ...(body.client_secret !== undefined ? { secret: body.client_secret } : {}), basic: false }
}

/** Authenticates the client: a confidential one by its secret, a public one by its id alone. */
export const authenticateClient = Effect.fn("OAuth.authenticateClient")(function* (
  credentials: { readonly clientId?: string; readonly secret?: string; readonly basic: boolean }
) {
  if (!credentials.clientId) return yield* Effect.fail(new OAuthError("invalid_client", "Client authentication is required", 401))
  const application = yield* (yield* OAuthRepo).applicationByClientId({ clientId: credentials.clientId })
  if (application === undefined) return yield* Effect.fail(new OAuthError("invalid_client", "Unknown client", 401))
  if (application.is_public) {
    if (credentials.secret !== undefined) return yield* Effect.fail(new OAuthError("invalid_client", "A public client has no secret", 401))
    return application
  }
  if (credentials.secret === undefined || !sameSecret(credentials.secret, application.client_secret_hash)) {
    return yield* Effect.fail(new OAuthError("invalid_client", "Client authentication failed", 401))
  }
  return application
})

/** Why a taken (now used) code gives no token: checked inside the exchange's transaction. */
const refusalOf = (code: AuthorizationCode, body: TokenRequest, application: Application): OAuthError | undefined => {
  if (code.expired) return new OAuthError("invalid_grant", "The authorization code has expired")
  if (code.application_id !== application.id) return new OAuthError("invalid_grant", "The authorization code was issued to another client")
  if (code.redirect_uri !== body.redirect_uri) return new OAuthError("invalid_grant", "redirect_uri does not match the authorization request")
  if (application.is_public && code.code_challenge === null) return new OAuthError("invalid_grant", "A public client must use PKCE")
  if (code.code_challenge !== null) {
    if (!body.code_verifier || !isValidPkceValue(body.code_verifier)) return new OAuthError("invalid_grant", "code_verifier is missing or malformed")
    if (s256(body.code_verifier) !== code.code_challenge) return new OAuthError("invalid_grant", "code_verifier does not match the code challenge")
  } else if (body.code_verifier !== undefined) {
    return new OAuthError("invalid_grant", "No code challenge was given for this code")
  }
  return undefined
}

type Exchange =
  | { readonly _tag: "Issued"; readonly token: string }
  | { readonly _tag: "Refused"; readonly error: OAuthError; readonly revoked: boolean }

export const exchangeCode = Effect.fn("OAuth.exchangeCode")(function* (body: TokenRequest, application: Application) {
  const repo = yield* OAuthRepo
  if (body.grant_type !== "authorization_code") {
    return yield* Effect.fail(
      body.grant_type === undefined
        ? new OAuthError("invalid_request", "grant_type is required")
        : new OAuthError("unsupported_grant_type", "Only the authorization_code grant is supported")
    )
  }
  if (!body.code) return yield* Effect.fail(new OAuthError("invalid_request", "code is required"))
  if (!body.redirect_uri) return yield* Effect.fail(new OAuthError("invalid_request", "redirect_uri is required"))
  const codeHash = hashToken(body.code)
  // One transaction from taking the code to storing its token: `takeCode` locks the code's row,
  // so a replay racing this exchange waits for its commit and then finds the token to revoke
  // (taking the code and inserting the token in two commits let a replay slip in between and
  // revoke nothing). Refusals are answers, not failures, so the code stays used and the
  // replay's revocation is committed.
  const outcome = yield* inTransaction(
    Effect.gen(function* (): Effect.fn.Return<Exchange, never, OAuthRepo> {
      const taken = yield* repo.takeCode({ codeHash })
      if (taken === undefined) return { _tag: "Refused", error: new OAuthError("invalid_grant", "Unknown authorization code"), revoked: false }
      if (taken.used) {
        yield* repo.revokeTokensOfCode({ codeHash })
        return {
          _tag: "Refused",
          error: new OAuthError("invalid_grant", "The authorization code was used already; its tokens are revoked"),
          revoked: true
        }
      }
      const refusal = refusalOf(taken, body, application)
      if (refusal) return { _tag: "Refused", error: refusal, revoked: false }
      const token = generateToken()
      yield* repo.insertToken({
        tokenHash: hashToken(token),
        accountId: taken.account_id,
        businessId: taken.business_id,
        applicationId: application.id,
        codeHash
      })
      return { _tag: "Issued", token }
    })
  )
  if (outcome._tag === "Issued") return outcome.token
  // After the commit: this process's cache must not keep answering for the revoked tokens.
  if (outcome.revoked) yield* (yield* AccessTokens).forgetCached
  return yield* Effect.fail(outcome.error)
})

/** Sends a password-reset link when the account exists; the caller says the same either way. */
export const requestPasswordReset = Effect.fn("OAuth.requestPasswordReset")(function* (email: string, locale: Locale) {
  const account = yield* (yield* OAuthRepo).accountByEmail({ email: email.trim() })
  if (account === undefined) return
  const origin = yield* mailLinkOrigin
  const sql = yield* SqlClient.SqlClient
  yield* sql.withTransaction(
    Effect.gen(function* () {
      const resetToken = yield* (yield* AccountTokensRepo).issue({ accountId: account.id, purpose: "password_reset" })
      yield* sendMail({
        template: "password_reset",
        to: account.email,
        locale,
        params: { name: account.first_name || account.email, link: passwordResetLink(origin, resetToken) }
      })
    })
  ).pipe(Effect.orDie)
})
