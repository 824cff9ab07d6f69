import { Effect, Schema } from "effect"
import { SqlSchema, type SqlClient } from "effect/sql"
import { randomBytes } from "node:crypto"
import type { AppConfig } from "../../platform/config.ts"
import { deploymentKey } from "../../platform/keys.ts"
import { orDie, orUndefined } from "../../shared/statements.ts"

/**
 * The SQL of the login pages: accounts by e-mail or id, their sign-in sessions, the page's
 * branding and the secret signing the cookies. Part of OAuthRepo (repo.ts spreads these in),
 * kept apart from the authorization server's applications, codes and tokens.
 */
const AccountLogin = Schema.Struct({
  id: Schema.Number,
  email: Schema.String,
  first_name: Schema.String,
  last_name: Schema.String,
  password_hash: Schema.NullOr(Schema.String),
  email_confirmed_at: Schema.NullOr(Schema.Date)
})
export type AccountLogin = typeof AccountLogin.Type

const BrandingRow = Schema.Struct({
  name: Schema.String,
  brand_colors: Schema.Record(Schema.String, Schema.Unknown),
  logo_url: Schema.NullOr(Schema.String)
})
export type LoginBranding = typeof BrandingRow.Type

const ACCOUNT_COLUMNS = `id, email, first_name, last_name, password_hash, email_confirmed_at`

const OfAccount = Schema.Struct({ accountId: Schema.Number })
const OfSession = Schema.Struct({ idHash: Schema.Uint8Array })

export const sessionStatements = (sql: SqlClient.SqlClient, config: AppConfig["Service"]) => {
  const accountByEmail = SqlSchema.findOneOption({
    Request: Schema.Struct({ email: Schema.String }),
    Result: AccountLogin,
    execute: ({ email }) => sql`select ${sql.literal(ACCOUNT_COLUMNS)} from accounts where email = ${email}`
  })
  const accountById = SqlSchema.findOneOption({
    Request: OfAccount,
    Result: AccountLogin,
    execute: ({ accountId }) => sql`select ${sql.literal(ACCOUNT_COLUMNS)} from accounts where id = ${accountId}`
  })
  // A new password ends every sign-in session of the account, in the same statement: whoever
  // held a copy of a session cookie (the reason one changes a password) is out with it.
  const setPassword = SqlSchema.void({
    Request: Schema.Struct({ accountId: Schema.Number, passwordHash: Schema.String }),
    execute: ({ accountId, passwordHash }) =>
      sql`with ended as (delete from account_sessions where account_id = ${accountId})
          update accounts set password_hash = ${passwordHash}, updated_at = now() where id = ${accountId}`
  })
  // Each sign-in also sweeps the account's expired sessions, so the table keeps only live ones
  // and those of accounts that stopped signing in.
  const openSession = SqlSchema.void({
    Request: Schema.Struct({
      idHash: Schema.Uint8Array,
      accountId: Schema.Number,
      businessId: Schema.NullOr(Schema.Number),
      now: Schema.Date,
      expiresAt: Schema.Date
    }),
    execute: ({ idHash, accountId, businessId, now, expiresAt }) =>
      sql`with swept as (delete from account_sessions where account_id = ${accountId} and expires_at <= ${now})
          insert into account_sessions (id_hash, account_id, business_id, created_at, expires_at)
          values (${idHash}, ${accountId}, ${businessId}, ${now}, ${expiresAt})`
  })
  const sessionAccount = SqlSchema.findOneOption({
    Request: Schema.Struct({ idHash: Schema.Uint8Array, businessId: Schema.NullOr(Schema.Number), now: Schema.Date }),
    Result: AccountLogin,
    execute: ({ idHash, businessId, now }) =>
      sql`select a.id, a.email, a.first_name, a.last_name, a.password_hash, a.email_confirmed_at
          from account_sessions s join accounts a on a.id = s.account_id
          where s.id_hash = ${idHash} and s.expires_at > ${now}
            and s.business_id is not distinct from ${businessId}::bigint`
  })
  const endSession = SqlSchema.void({
    Request: OfSession,
    execute: ({ idHash }) => sql`delete from account_sessions where id_hash = ${idHash}`
  })
  const confirmEmail = SqlSchema.void({
    Request: OfAccount,
    execute: ({ accountId }) =>
      sql`update accounts set email_confirmed_at = coalesce(email_confirmed_at, now()), updated_at = now()
          where id = ${accountId}`
  })
  const branding = SqlSchema.findOneOption({
    Request: Schema.Struct({ businessId: Schema.Number }),
    Result: BrandingRow,
    execute: ({ businessId }) => sql`select name, brand_colors, logo_url from businesses where id = ${businessId}`
  })
  const createSecret = SqlSchema.void({
    Request: Schema.String,
    execute: (value) => sql`insert into app_secrets (name, value) values ('session', ${value}) on conflict (name) do nothing`
  })
  const readSecret = SqlSchema.findOne({
    Request: Schema.Void,
    Result: Schema.Struct({ value: Schema.String }),
    execute: () => sql`select value from app_secrets where name = 'session'`
  })

  return {
    accountByEmail: orUndefined(accountByEmail),
    accountById: orUndefined(accountById),
    /** Sets the password and ends every sign-in session of the account. */
    setPassword: orDie(setPassword),
    /** Records a sign-in session opened on the host of `businessId` (null: the account-level host). */
    openSession: orDie(openSession),
    /** The account of a live session opened on this host (a session works only where it was opened). */
    sessionAccount: orUndefined(sessionAccount),
    /** Ends one session: every copy of its cookie is refused from now on. */
    endSession: orDie(endSession),
    confirmEmail: orDie(confirmEmail),
    /** The business's name, colors and logo for the login pages of its host. */
    branding: orUndefined(branding),
    /**
     * The secret signing session cookies and CSRF tokens: SESSION_SECRET; in development without
     * it, a row made once per deployment and shared by its processes (src/platform/keys.ts).
     */
    sessionSecret: deploymentKey(
      config,
      "SESSION_SECRET",
      config.sessionSecret,
      Effect.gen(function* () {
        yield* createSecret(randomBytes(32).toString("hex"))
        const row = yield* readSecret(undefined)
        return row.value
      }).pipe(Effect.orDie)
    )
  }
}
