import { Context, Effect, Layer, Option, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { orDie } from "../shared/statements.ts"
import { generateToken, hashToken } from "./tokens.ts"

/**
 * One-time account tokens mailed to people: a password reset (also how an invited person
 * chooses a first password) and an e-mail confirmation. Stored hashed; single use.
 */
export const ACCOUNT_TOKEN_PURPOSES = ["password_reset", "email_confirmation"] as const
export type AccountTokenPurpose = (typeof ACCOUNT_TOKEN_PURPOSES)[number]

const LIFETIME_MS: Record<AccountTokenPurpose, number> = {
  password_reset: 60 * 60 * 1000,
  email_confirmation: 3 * 24 * 60 * 60 * 1000
}

/** Where a person chooses a (new) password; the token rides in the query. */
export const passwordResetLink = (origin: string, token: string) =>
  `${origin}/oauth/password/edit?token=${encodeURIComponent(token)}`
export const emailConfirmationLink = (origin: string, token: string) =>
  `${origin}/oauth/confirmation?token=${encodeURIComponent(token)}`

const Lookup = Schema.Struct({ tokenHash: Schema.Uint8Array, purpose: Schema.Literals(ACCOUNT_TOKEN_PURPOSES) })

const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  const insert = SqlSchema.void({
    Request: Schema.Struct({ ...Lookup.fields, accountId: Schema.Number, lifetimeMs: Schema.Number }),
    execute: ({ tokenHash, accountId, purpose, lifetimeMs }) =>
      sql`insert into account_tokens (token_hash, account_id, purpose, expires_at)
          values (${tokenHash}, ${accountId}, ${purpose}, now() + ${`${lifetimeMs} milliseconds`}::interval)`
  })
  const consume = SqlSchema.findOneOption({
    Request: Lookup,
    Result: Schema.Struct({ account_id: Schema.Number }),
    execute: ({ tokenHash, purpose }) =>
      sql`update account_tokens set used_at = now()
          where token_hash = ${tokenHash} and purpose = ${purpose}
            and used_at is null and expires_at > now()
          returning account_id`
  })
  const live = SqlSchema.findOneOption({
    Request: Lookup,
    Result: Schema.Struct({ live: Schema.Number }),
    execute: ({ tokenHash, purpose }) =>
      sql`select 1 as live from account_tokens
          where token_hash = ${tokenHash} and purpose = ${purpose}
            and used_at is null and expires_at > now()`
  })

  /** A token of the purpose, seen by its hash only. */
  type Presented = { readonly token: string; readonly purpose: AccountTokenPurpose }
  /** A new token for the account, returned once; only its hash is stored. */
  const issue = ({ accountId, purpose, lifetimeMs = LIFETIME_MS[purpose] }: {
    readonly accountId: number
    readonly purpose: AccountTokenPurpose
    readonly lifetimeMs?: number
  }) =>
    Effect.suspend(() => {
      const token = generateToken()
      return insert({ tokenHash: hashToken(token), accountId, purpose, lifetimeMs }).pipe(Effect.as(token))
    })
  /** The account of a live token of that purpose, marking it used (atomically: one use only). */
  const consumed = ({ token, purpose }: Presented) =>
    Effect.suspend(() => consume({ tokenHash: hashToken(token), purpose })).pipe(Effect.map(Option.map((row) => row.account_id)))
  /** Whether a token would be accepted, without using it (to show the form it opens). */
  const isLive = ({ token, purpose }: Presented) =>
    Effect.suspend(() => live({ tokenHash: hashToken(token), purpose })).pipe(Effect.map(Option.isSome))

  return { issue: orDie(issue), consume: orDie(consumed), isLive: orDie(isLive) }
})

/** The SQL of one-time account tokens. */
export class AccountTokensRepo extends Context.Service<AccountTokensRepo, Effect.Success<typeof make>>()("studio/AccountTokensRepo") {
  static readonly layer = Layer.effect(AccountTokensRepo)(make)
}
