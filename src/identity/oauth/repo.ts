import { Context, Effect, Layer, Option, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { randomBytes } from "node:crypto"
import { AppConfig } from "../../platform/config.ts"
import { deploymentKey } from "../../platform/keys.ts"
import { FIRST_PARTY_APPLICATIONS } from "./first-party.ts"

/** The SQL of the OAuth authorization server and the login pages. */
const AccountLogin = Schema.Struct({
  id: Schema.Number,
  email: Schema.String,
  first_name: Schema.String,
  last_name: Schema.String,
  password_hash: Schema.NullOr(Schema.String),
  email_confirmed_at: Schema.NullOr(Schema.Date)
})
export type AccountLogin = typeof AccountLogin.Type

const Application = Schema.Struct({
  id: Schema.Number,
  client_id: Schema.String,
  client_secret_hash: Schema.NullOr(Schema.String),
  name: Schema.String,
  redirect_uri: Schema.String,
  is_public: Schema.Boolean
})
export type Application = typeof Application.Type

const AuthorizationCode = Schema.Struct({
  application_id: Schema.Number,
  account_id: Schema.Number,
  business_id: Schema.NullOr(Schema.Number),
  redirect_uri: Schema.String,
  code_challenge: Schema.NullOr(Schema.String),
  expired: Schema.Boolean,
  used: Schema.Boolean
})
export type AuthorizationCode = typeof AuthorizationCode.Type

const BrandingRow = Schema.Struct({
  name: Schema.String,
  brand_colors: Schema.Record(Schema.String, Schema.Unknown),
  logo_url: Schema.NullOr(Schema.String)
})
export type LoginBranding = typeof BrandingRow.Type

const ACCOUNT_COLUMNS = `id, email, first_name, last_name, password_hash, email_confirmed_at`

const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const config = yield* AppConfig

  const accountByEmail = SqlSchema.findOneOption({
    Request: Schema.String,
    Result: AccountLogin,
    execute: (email) => sql`select ${sql.literal(ACCOUNT_COLUMNS)} from accounts where email = ${email}`
  })
  const accountById = SqlSchema.findOneOption({
    Request: Schema.Number,
    Result: AccountLogin,
    execute: (id) => sql`select ${sql.literal(ACCOUNT_COLUMNS)} from accounts where id = ${id}`
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
    Request: Schema.Uint8Array,
    execute: (idHash) => sql`delete from account_sessions where id_hash = ${idHash}`
  })
  const confirmEmail = SqlSchema.void({
    Request: Schema.Number,
    execute: (accountId) =>
      sql`update accounts set email_confirmed_at = coalesce(email_confirmed_at, now()), updated_at = now()
          where id = ${accountId}`
  })
  const applicationByClientId = SqlSchema.findOneOption({
    Request: Schema.String,
    Result: Application,
    execute: (clientId) =>
      sql`select id, client_id, client_secret_hash, name, redirect_uri, is_public
          from oauth_applications where client_id = ${clientId}`
  })
  const registerFirstParty = SqlSchema.void({
    Request: Schema.Struct({ clientId: Schema.String, name: Schema.String, redirectUri: Schema.String }),
    execute: (app) =>
      sql`insert into oauth_applications (client_id, client_secret_hash, name, redirect_uri, is_public)
          values (${app.clientId}, null, ${app.name}, ${app.redirectUri}, true)
          on conflict (client_id) do nothing`
  })
  const branding = SqlSchema.findOneOption({
    Request: Schema.Number,
    Result: BrandingRow,
    execute: (businessId) => sql`select name, brand_colors, logo_url from businesses where id = ${businessId}`
  })
  const insertCode = SqlSchema.void({
    Request: Schema.Struct({
      codeHash: Schema.Uint8Array,
      applicationId: Schema.Number,
      accountId: Schema.Number,
      businessId: Schema.NullOr(Schema.Number),
      redirectUri: Schema.String,
      codeChallenge: Schema.NullOr(Schema.String),
      lifetimeSeconds: Schema.Number
    }),
    execute: (code) =>
      sql`insert into oauth_authorization_codes
            (code_hash, application_id, account_id, business_id, redirect_uri, code_challenge, expires_at)
          values (${code.codeHash}, ${code.applicationId}, ${code.accountId}, ${code.businessId}, ${code.redirectUri},
                  ${code.codeChallenge}, now() + ${`${code.lifetimeSeconds} seconds`}::interval)`
  })
  const takeCode = SqlSchema.findOneOption({
    Request: Schema.Uint8Array,
    Result: AuthorizationCode,
    execute: (codeHash) =>
      sql`with previous as (
            select code_hash, used_at is not null as used from oauth_authorization_codes where code_hash = ${codeHash} for update
          )
          update oauth_authorization_codes c set used_at = coalesce(c.used_at, now())
          from previous p where c.code_hash = p.code_hash
          returning c.application_id, c.account_id, c.business_id, c.redirect_uri, c.code_challenge,
                    c.expires_at <= now() as expired, p.used`
  })
  const insertToken = SqlSchema.void({
    Request: Schema.Struct({
      tokenHash: Schema.Uint8Array,
      accountId: Schema.Number,
      businessId: Schema.NullOr(Schema.Number),
      applicationId: Schema.Number,
      codeHash: Schema.Uint8Array
    }),
    execute: (token) =>
      sql`insert into access_tokens (token_hash, account_id, business_id, application_id, authorization_code_hash)
          values (${token.tokenHash}, ${token.accountId}, ${token.businessId}, ${token.applicationId}, ${token.codeHash})`
  })
  const revokeTokensOfCode = SqlSchema.void({
    Request: Schema.Uint8Array,
    execute: (codeHash) =>
      sql`update access_tokens set revoked_at = now()
          where authorization_code_hash = ${codeHash} and revoked_at is null`
  })
  const tokenApplication = SqlSchema.findOneOption({
    Request: Schema.Uint8Array,
    Result: Schema.Struct({ application_id: Schema.NullOr(Schema.Number) }),
    execute: (tokenHash) => sql`select application_id from access_tokens where token_hash = ${tokenHash} and revoked_at is null`
  })
  const revokeToken = SqlSchema.void({
    Request: Schema.Struct({ tokenHash: Schema.Uint8Array, applicationId: Schema.NullOr(Schema.Number) }),
    execute: ({ tokenHash, applicationId }) =>
      sql`update access_tokens set revoked_at = now()
          where token_hash = ${tokenHash} and revoked_at is null
          ${applicationId !== null ? sql`and application_id = ${applicationId}` : sql``}`
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
    accountByEmail: (email: string) => accountByEmail(email).pipe(Effect.orDie),

    accountById: (id: number) => accountById(id).pipe(Effect.orDie),

    /** Sets the password and ends every sign-in session of the account. */
    setPassword: (accountId: number, passwordHash: string) => setPassword({ accountId, passwordHash }).pipe(Effect.orDie),

    /** Records a sign-in session opened on the host of `businessId` (null: the account-level host). */
    openSession: (session: {
      readonly idHash: Buffer
      readonly accountId: number
      readonly businessId: number | null
      readonly now: Date
      readonly expiresAt: Date
    }) => openSession(session).pipe(Effect.orDie),

    /** The account of a live session opened on this host (a session works only where it was opened). */
    sessionAccount: (idHash: Buffer, businessId: number | null, now: Date) =>
      sessionAccount({ idHash, businessId, now }).pipe(Effect.orDie),

    /** Ends one session: every copy of its cookie is refused from now on. */
    endSession: (idHash: Buffer) => endSession(idHash).pipe(Effect.orDie),

    confirmEmail: (accountId: number) => confirmEmail(accountId).pipe(Effect.orDie),

    /** A first-party application (first-party.ts) is registered the first time it is asked for. */
    applicationByClientId: (clientId: string) =>
      applicationByClientId(clientId).pipe(
        Effect.flatMap((found) => {
          const firstParty = FIRST_PARTY_APPLICATIONS.get(clientId)
          if (Option.isSome(found) || firstParty === undefined) return Effect.succeed(found)
          return Effect.andThen(registerFirstParty({ clientId, ...firstParty }), applicationByClientId(clientId))
        }),
        Effect.orDie
      ),

    branding: (businessId: number) => branding(businessId).pipe(Effect.orDie),

    insertCode: (code: {
      readonly codeHash: Buffer
      readonly applicationId: number
      readonly accountId: number
      readonly businessId: number | null
      readonly redirectUri: string
      readonly codeChallenge: string | null
      readonly lifetimeSeconds: number
    }) => insertCode(code).pipe(Effect.orDie),

    /**
     * Marks a code used and returns it as it was: `used` tells a replay, `expired` a late
     * exchange. One statement, so two concurrent exchanges cannot both see it unused; its row
     * stays locked until the caller's transaction ends, so a replay waits for the token the
     * first exchange stores in that transaction (service.ts, exchangeCode).
     */
    takeCode: (codeHash: Buffer) => takeCode(codeHash).pipe(Effect.orDie),

    insertToken: (token: {
      readonly tokenHash: Buffer
      readonly accountId: number
      readonly businessId: number | null
      readonly applicationId: number
      readonly codeHash: Buffer
    }) => insertToken(token).pipe(Effect.orDie),

    revokeTokensOfCode: (codeHash: Buffer) => revokeTokensOfCode(codeHash).pipe(Effect.orDie),

    /** The application a live token was issued to (None: no such token; Some(null): not through OAuth). */
    tokenApplication: (tokenHash: Buffer) =>
      tokenApplication(tokenHash).pipe(Effect.map(Option.map((row) => row.application_id)), Effect.orDie),

    /** Revokes a token; with an application, only that application's own tokens. */
    revokeToken: (tokenHash: Buffer, applicationId: Option.Option<number>) =>
      revokeToken({ tokenHash, applicationId: Option.getOrNull(applicationId) }).pipe(Effect.orDie),

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
})

export class OAuthRepo extends Context.Service<OAuthRepo, Effect.Success<typeof make>>()("studio/OAuthRepo") {
  static readonly layer = Layer.effect(OAuthRepo)(make)
}
