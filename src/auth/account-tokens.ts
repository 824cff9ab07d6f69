import { Effect, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { generateToken, hashToken } from "./tokens.ts"

/**
 * One-time account tokens mailed to people: a password reset (also how an invited person
 * chooses a first password) and an e-mail confirmation. Stored hashed; single use.
 */
export type AccountTokenPurpose = "password_reset" | "email_confirmation"

const LIFETIME_MS: Record<AccountTokenPurpose, number> = {
  password_reset: 60 * 60 * 1000,
  email_confirmation: 3 * 24 * 60 * 60 * 1000
}

/** Where a person chooses a (new) password; the token rides in the query. */
export const passwordResetLink = (origin: string, token: string) =>
  `${origin}/oauth/password/edit?token=${encodeURIComponent(token)}`
export const emailConfirmationLink = (origin: string, token: string) =>
  `${origin}/oauth/confirmation?token=${encodeURIComponent(token)}`

export const issueAccountToken = (accountId: number, purpose: AccountTokenPurpose, lifetimeMs = LIFETIME_MS[purpose]) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const token = generateToken()
    yield* sql`insert into account_tokens (token_hash, account_id, purpose, expires_at)
               values (${hashToken(token)}, ${accountId}, ${purpose}, now() + ${`${lifetimeMs} milliseconds`}::interval)`
    return token
  }).pipe(Effect.orDie)

const Consumed = Schema.Array(Schema.Struct({ account_id: Schema.Number }))

/** The account of a live token of that purpose, marking it used (atomically: one use only). */
export const consumeAccountToken = (token: string, purpose: AccountTokenPurpose) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql`update account_tokens set used_at = now()
                            where token_hash = ${hashToken(token)} and purpose = ${purpose}
                              and used_at is null and expires_at > now()
                            returning account_id`.pipe(Effect.flatMap(Schema.decodeUnknownEffect(Consumed)))
    return Option.map(Option.fromNullishOr(rows[0]), (row) => row.account_id)
  }).pipe(Effect.orDie)

/** Whether a token would be accepted, without using it (to show the form it opens). */
export const isLiveAccountToken = (token: string, purpose: AccountTokenPurpose) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql`select 1 from account_tokens
                            where token_hash = ${hashToken(token)} and purpose = ${purpose}
                              and used_at is null and expires_at > now()`
    return rows.length > 0
  }).pipe(Effect.orDie)
