import { Context, Effect, Layer, Option, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { AppConfig } from "../../platform/config.ts"
import { orDie, orUndefined } from "../../shared/statements.ts"
import { FIRST_PARTY_APPLICATIONS } from "./first-party.ts"
import { sessionStatements } from "./sessions-repo.ts"

/**
 * The SQL of the OAuth authorization server: applications, authorization codes and the tokens
 * they are exchanged for. The login pages' accounts and sessions are in sessions-repo.ts.
 */
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

const OfCode = Schema.Struct({ codeHash: Schema.Uint8Array })
const OfToken = Schema.Struct({ tokenHash: Schema.Uint8Array })

/** Client applications; a first-party one is registered the first time it is asked for. */
const applicationStatements = (sql: SqlClient.SqlClient) => {
  const applicationByClientId = SqlSchema.findOneOption({
    Request: Schema.Struct({ clientId: Schema.String }),
    Result: Application,
    execute: ({ clientId }) =>
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
  /** A first-party application (first-party.ts) is registered the first time it is asked for. */
  const application = ({ clientId }: { readonly clientId: string }) =>
    applicationByClientId({ clientId }).pipe(
      Effect.flatMap((found) => {
        const firstParty = FIRST_PARTY_APPLICATIONS.get(clientId)
        if (Option.isSome(found) || firstParty === undefined) return Effect.succeed(found)
        return Effect.andThen(registerFirstParty({ clientId, ...firstParty }), applicationByClientId({ clientId }))
      }),
      Effect.map(Option.getOrUndefined)
    )
  return { applicationByClientId: orDie(application) }
}

/** Authorization codes and the access tokens they are exchanged for. */
const grantStatements = (sql: SqlClient.SqlClient) => {
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
    Request: OfCode,
    Result: AuthorizationCode,
    execute: ({ codeHash }) =>
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
    Request: OfCode,
    execute: ({ codeHash }) =>
      sql`update access_tokens set revoked_at = now()
          where authorization_code_hash = ${codeHash} and revoked_at is null`
  })
  const tokenApplication = SqlSchema.findOneOption({
    Request: OfToken,
    Result: Schema.Struct({ application_id: Schema.NullOr(Schema.Number) }),
    execute: ({ tokenHash }) => sql`select application_id from access_tokens where token_hash = ${tokenHash} and revoked_at is null`
  })
  const revokeToken = SqlSchema.void({
    Request: Schema.Struct({ tokenHash: Schema.Uint8Array, applicationId: Schema.NullOr(Schema.Number) }),
    execute: ({ tokenHash, applicationId }) =>
      sql`update access_tokens set revoked_at = now()
          where token_hash = ${tokenHash} and revoked_at is null
          ${applicationId !== null ? sql`and application_id = ${applicationId}` : sql``}`
  })
  return {
    insertCode: orDie(insertCode),
    /**
     * Marks a code used and returns it as it was: `used` tells a replay, `expired` a late
     * exchange. One statement, so two concurrent exchanges cannot both see it unused; its row
     * stays locked until the caller's transaction ends, so a replay waits for the token the
     * first exchange stores in that transaction (service.ts, exchangeCode).
     */
    takeCode: orUndefined(takeCode),
    insertToken: orDie(insertToken),
    revokeTokensOfCode: orDie(revokeTokensOfCode),
    /** The live token's row: its application (null: not issued through OAuth); undefined: no such token. */
    tokenApplication: orUndefined(tokenApplication),
    /** Revokes a token; with an application (not null), only that application's own tokens. */
    revokeToken: orDie(revokeToken)
  }
}

const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const config = yield* AppConfig
  return {
    ...sessionStatements(sql, config),
    ...applicationStatements(sql),
    ...grantStatements(sql)
  }
})

export class OAuthRepo extends Context.Service<OAuthRepo, Effect.Success<typeof make>>()("studio/OAuthRepo") {
  static readonly layer = Layer.effect(OAuthRepo)(make)
}
