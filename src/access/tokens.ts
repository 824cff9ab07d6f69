import { Clock, Context, Effect, Layer, Option, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { hash, randomBytes } from "node:crypto"
import { CacheEvents } from "../platform/cache-events.ts"
import { orDie } from "../shared/statements.ts"

/**
 * Access tokens: 256 random bits, shown once, stored only as their SHA-256 hash. A token
 * granted on a business host carries that business and works only there; one granted on
 * the account-level host works for the whole account (spec, Authentication rule 6).
 */
export const generateToken = (): string => randomBytes(32).toString("base64url")
// One-shot `hash`: every API call hashes its token, and it is several times cheaper than `createHash`.
export const hashToken = (token: string): Buffer => hash("sha256", token, "buffer")

export const STAFF_ROLES = ["primary_owner", "owner", "manager", "standard", "limited", "demoted"] as const
export type StaffRole = (typeof STAFF_ROLES)[number]

/** What a token grants in the business of the request (or on the account host). */
export interface TokenGrant {
  readonly tokenId: number
  readonly accountId: number
  /** None: an account-wide token. */
  readonly tokenBusinessId: Option.Option<number>
  /** The account's person in the request's business, if any. */
  readonly personId: Option.Option<number>
  readonly staff: Option.Option<{ readonly staffMemberId: number; readonly role: StaffRole }>
}

const GrantRow = Schema.Struct({
  token_id: Schema.Number,
  account_id: Schema.Number,
  token_business_id: Schema.NullOr(Schema.Number),
  person_id: Schema.NullOr(Schema.Number),
  staff_member_id: Schema.NullOr(Schema.Number),
  role: Schema.NullOr(Schema.Literals(STAFF_ROLES))
})

export interface AccessTokensShape {
  /** The grant of a live token, seen from `businessId` (None on the account-level host). */
  readonly verify: (token: string, businessId: Option.Option<number>) => Effect.Effect<Option.Option<TokenGrant>>
  /** Issues a token; returns the plain token, which is not stored. */
  readonly issue: (options: {
    readonly accountId: number
    readonly businessId: Option.Option<number>
    readonly applicationId: Option.Option<number>
  }) => Effect.Effect<string>
  readonly revoke: (token: string) => Effect.Effect<boolean>
  /** Drops every cached grant: after tokens were revoked in bulk (a replayed authorization code). */
  readonly forgetCached: Effect.Effect<void>
}

export class AccessTokens extends Context.Service<AccessTokens, AccessTokensShape>()("studio/AccessTokens") {}

/**
 * Verified grants are cached for a few seconds: every API call checks its token, and the
 * cache keeps that off the database on busy clients. The cache is keyed by the token itself
 * (it is in memory anyway, for the request and its rate-limit window), so a hit costs no
 * hashing. A revocation through this process drops the token's entries before and after its
 * update, and a lookup that was in flight meanwhile is not cached (the `generation` check),
 * so once `revoke` returns this process refuses the token. Other processes hear of the change
 * from PostgreSQL (src/platform/cache-events.ts: a revoked token, a person or staff role changed
 * in a business) within milliseconds of its commit; `TTL_MS` bounds it when the listener is away.
 */
const TTL_MS = 5_000

interface CachedGrant {
  readonly grant: Option.Option<TokenGrant>
  readonly expires: number
}

/**
 * The grant cache: token → business id (0: the account-level host) → grant, and the hex digest
 * of each cached token → the token (notifications name tokens by digest). `generation` moves on
 * every drop, so a load that raced a revocation is answered but not kept.
 */
const makeGrantCache = () => {
  const cache = new Map<string, Map<number, CachedGrant>>()
  const byDigest = new Map<string, string>()
  let generation = 0
  const forget = (token?: string) => {
    generation++
    if (token === undefined) {
      cache.clear()
      byDigest.clear()
    } else cache.delete(token)
  }
  return {
    forget,
    forgetDigest: (digest: string) => {
      const token = byDigest.get(digest)
      if (token !== undefined) byDigest.delete(digest)
      forget(token ?? "")
    },
    generation: () => generation,
    hit: (token: string, scope: number, now: number) => {
      const hit = cache.get(token)?.get(scope)
      return hit !== undefined && hit.expires > now ? hit : undefined
    },
    keep: (token: string, digest: Buffer, scope: number, grant: Option.Option<TokenGrant>, expires: number) => {
      if (cache.size > 50_000) forget()
      let byBusiness = cache.get(token)
      if (byBusiness === undefined) {
        cache.set(token, (byBusiness = new Map()))
        byDigest.set(digest.toString("hex"), token)
      }
      byBusiness.set(scope, { grant, expires })
    }
  }
}

const tokenStatements = (sql: SqlClient.SqlClient) => {
  const grantRow = SqlSchema.findOneOption({
    Request: Schema.Struct({ hash: Schema.Uint8Array, businessId: Schema.NullOr(Schema.Number) }),
    Result: GrantRow,
    execute: ({ hash, businessId }) =>
      sql`select t.id as token_id, t.account_id, t.business_id as token_business_id,
                 p.id as person_id, s.id as staff_member_id, s.role
          from access_tokens t
          left join people p
            on p.business_id = ${businessId} and p.account_id = t.account_id and p.deleted_at is null
          left join staff_members s on s.business_id = p.business_id and s.person_id = p.id
          where t.token_hash = ${hash} and t.revoked_at is null`
  })
  const insert = SqlSchema.void({
    Request: Schema.Struct({
      hash: Schema.Uint8Array,
      accountId: Schema.Number,
      businessId: Schema.NullOr(Schema.Number),
      applicationId: Schema.NullOr(Schema.Number)
    }),
    execute: ({ hash, accountId, businessId, applicationId }) =>
      sql`insert into access_tokens (token_hash, account_id, business_id, application_id)
          values (${hash}, ${accountId}, ${businessId}, ${applicationId})`
  })
  const revoke = SqlSchema.findAll({
    Request: Schema.Struct({ hash: Schema.Uint8Array }),
    Result: Schema.Struct({ id: Schema.Number }),
    execute: ({ hash }) => sql`update access_tokens set revoked_at = now() where token_hash = ${hash} and revoked_at is null returning id`
  })
  /** The grant of a live token, seen from `businessId`. */
  const load = (hash: Buffer, businessId: Option.Option<number>) =>
    grantRow({ hash, businessId: Option.getOrNull(businessId) }).pipe(
      Effect.map(
        Option.map((row): TokenGrant => ({
          tokenId: row.token_id,
          accountId: row.account_id,
          tokenBusinessId: Option.fromNullishOr(row.token_business_id),
          personId: Option.fromNullishOr(row.person_id),
          staff:
            row.staff_member_id !== null && row.role !== null
              ? Option.some({ staffMemberId: row.staff_member_id, role: row.role })
              : Option.none()
        }))
      ),
      Effect.orDie,
      Effect.withSpan("AccessTokens.load")
    )
  return { load, insert: orDie(insert), revoke: orDie(revoke) }
}

export const AccessTokensLive = Layer.effect(AccessTokens)(
  Effect.gen(function* () {
    const statements = tokenStatements(yield* SqlClient.SqlClient)
    const cache = makeGrantCache()
    const events = yield* CacheEvents
    events.subscribe({ kind: "token", changed: cache.forgetDigest, dropAll: () => cache.forget() })
    // A person removed or a staff role changed: grants of that business (rare; all are dropped).
    events.subscribe({ kind: "grants", changed: () => cache.forget(), dropAll: () => cache.forget() })

    return AccessTokens.of({
      // Every request passes here: no generator and no span on a cache hit (a span only in `load`).
      verify: (token, businessId) => {
        if (token.length < 16 || token.length > 512) return Effect.succeedNone
        const scope = Option.getOrElse(businessId, () => 0)
        return Effect.flatMap(Clock.currentTimeMillis, (now) => {
          const hit = cache.hit(token, scope, now)
          if (hit !== undefined) return Effect.succeed(hit.grant)
          const loadedIn = cache.generation()
          const digest = hashToken(token)
          return Effect.map(statements.load(digest, businessId), (grant) => {
            if (loadedIn === cache.generation()) cache.keep(token, digest, scope, grant, now + TTL_MS)
            return grant
          })
        })
      },
      issue: Effect.fn("AccessTokens.issue")(function* (options) {
        const token = generateToken()
        yield* statements.insert({
          hash: hashToken(token),
          accountId: options.accountId,
          businessId: Option.getOrNull(options.businessId),
          applicationId: Option.getOrNull(options.applicationId)
        })
        return token
      }),
      revoke: Effect.fn("AccessTokens.revoke")(function* (token) {
        cache.forget(token)
        const rows = yield* statements.revoke({ hash: hashToken(token) }).pipe(Effect.ensuring(Effect.sync(() => cache.forget(token))))
        return rows.length > 0
      }),
      forgetCached: Effect.sync(() => cache.forget())
    })
  })
)
