import { Effect, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { randomBytes } from "node:crypto"
import { hashClientSecret } from "../../access/applications.ts"
import { verifyPassword } from "../../access/passwords.ts"
import { DEMO_CLIENT_ID, DEMO_CLIENT_SECRET, DEMO_PASSWORD, DEMO_SUBDOMAIN } from "./document.ts"

/**
 * The demo's published secrets, in a database that must not honour them: production never
 * seeds the demo, but a database seeded by an earlier version (or by `seed demo` before the
 * switch to production) still holds accounts whose password is `studio-demo` and an OAuth
 * application whose secret is `demo-app-secret`.
 */

/** A redirect URI no browser can follow: the locked demo application sends codes nowhere. */
const LOCKED_REDIRECT_URI = "urn:studio-service:demo-locked"

const Id = Schema.Struct({ id: Schema.Number })
const NoRequest = Schema.Void

/** The demo's statements, each declared once on the caller's connection. */
const demoStatements = (sql: SqlClient.SqlClient) => ({
  /** Whether the published application secret or a demo account with a password is still there. */
  present: SqlSchema.findOne({
    Request: NoRequest,
    Result: Schema.Struct({ present: Schema.Boolean }),
    execute: () =>
      sql`select exists (select 1 from oauth_applications
                         where client_id = ${DEMO_CLIENT_ID} and client_secret_hash = ${hashClientSecret(DEMO_CLIENT_SECRET)})
              or exists (select 1 from accounts a
                         join people p on p.account_id = a.id
                         join businesses b on b.id = p.business_id
                         where b.subdomain = ${DEMO_SUBDOMAIN} and a.password_hash is not null) as present`
  }),
  accountsWithPassword: SqlSchema.findAll({
    Request: NoRequest,
    Result: Schema.Struct({ id: Schema.Number, password_hash: Schema.String }),
    execute: () =>
      sql`select distinct a.id, a.password_hash from accounts a
          join people p on p.account_id = a.id
          join businesses b on b.id = p.business_id
          where b.subdomain = ${DEMO_SUBDOMAIN} and a.password_hash is not null`
  }),
  /** Only if unchanged since it was checked: a password set meanwhile is the owner's own. */
  clearPassword: SqlSchema.findAll({
    Request: Schema.Struct({ id: Schema.Number, passwordHash: Schema.String }),
    Result: Id,
    execute: ({ id, passwordHash }) =>
      sql`update accounts set password_hash = null, updated_at = now()
          where id = ${id} and password_hash = ${passwordHash} returning id`
  }),
  revokeTokens: SqlSchema.findAll({
    Request: NoRequest,
    Result: Id,
    execute: () =>
      sql`update access_tokens set revoked_at = now()
          where revoked_at is null
            and (business_id = (select id from businesses where subdomain = ${DEMO_SUBDOMAIN})
                 or application_id = (select id from oauth_applications where client_id = ${DEMO_CLIENT_ID}))
          returning id`
  }),
  lockApplication: SqlSchema.findAll({
    Request: Schema.Struct({ secretHash: Schema.String }),
    Result: Id,
    execute: ({ secretHash }) =>
      sql`update oauth_applications
          set client_secret_hash = ${secretHash}, redirect_uri = ${LOCKED_REDIRECT_URI}
          where client_id = ${DEMO_CLIENT_ID} and client_secret_hash = ${hashClientSecret(DEMO_CLIENT_SECRET)}
          returning id`
  })
})

/** Whether the published application secret or a demo account with a password is still there. */
export const demoPresent = Effect.gen(function* () {
  const row = yield* demoStatements(yield* SqlClient.SqlClient).present(undefined).pipe(Effect.orDie)
  return row.present
})

export interface DemoLockSummary {
  readonly passwords_cleared: number
  readonly tokens_revoked: number
  readonly application_locked: boolean
}

/**
 * Takes the demo's published secrets away, in one transaction: accounts of the demo business
 * whose password is still the published one lose it (they can set one through a reset mail),
 * every token of the demo business or its application is revoked, and the application gets an
 * unknown secret and a redirect URI that leads nowhere. Data and other accounts are untouched.
 */
export const lockDemo = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const statements = demoStatements(sql)
  const candidates = yield* statements.accountsWithPassword(undefined).pipe(Effect.orDie)
  // scrypt takes ~50 ms a hash, on libuv's pool: checked before the transaction.
  const published = yield* Effect.forEach(
    candidates,
    (account) => Effect.promise(() => verifyPassword(DEMO_PASSWORD, account.password_hash)).pipe(Effect.map((same) => (same ? [account] : []))),
    { concurrency: 4 }
  ).pipe(Effect.map((lists) => lists.flat()))
  return yield* sql.withTransaction(Effect.gen(function* () {
    let cleared = 0
    for (const account of published) {
      cleared += (yield* statements.clearPassword({ id: account.id, passwordHash: account.password_hash })).length
    }
    const revoked = yield* statements.revokeTokens(undefined)
    const locked = yield* statements.lockApplication({ secretHash: hashClientSecret(randomBytes(32).toString("base64url")) })
    return { passwords_cleared: cleared, tokens_revoked: revoked.length, application_locked: locked.length > 0 } satisfies DemoLockSummary
  })).pipe(Effect.orDie)
}).pipe(Effect.withSpan("Demo.lock"))
