import { Clock, Context, Effect, Layer, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { hash, randomBytes } from "node:crypto"

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
const decodeGrantRows = Schema.decodeUnknownSync(Schema.Array(GrantRow))

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
 * cache keeps that off the database on busy clients. A revocation through this process
 * clears the entry at once; other processes see it within `TTL_MS`.
 */
const TTL_MS = 5_000

export const AccessTokensLive = Layer.effect(AccessTokens)(
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const cache = new Map<string, { readonly grant: Option.Option<TokenGrant>; readonly expires: number }>()
    const cacheKey = (hash: Buffer, businessId: Option.Option<number>) =>
      `${hash.toString("base64")}:${Option.getOrElse(businessId, () => 0)}`

    const load = (hash: Buffer, businessId: Option.Option<number>) =>
      sql`select t.id as token_id, t.account_id, t.business_id as token_business_id,
                 p.id as person_id, s.id as staff_member_id, s.role
          from access_tokens t
          left join people p
            on p.business_id = ${Option.getOrNull(businessId)} and p.account_id = t.account_id and p.deleted_at is null
          left join staff_members s on s.business_id = p.business_id and s.person_id = p.id
          where t.token_hash = ${hash} and t.revoked_at is null`.pipe(
        Effect.map((rows) =>
          Option.map(Option.fromNullishOr(decodeGrantRows(rows)[0]), (row): TokenGrant => ({
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

    return AccessTokens.of({
      // Every request passes here: a span only on a cache miss (in `load`), not per call.
      verify: Effect.fnUntraced(function* (token, businessId) {
        if (token.length < 16 || token.length > 512) return Option.none()
        const hash = hashToken(token)
        const key = cacheKey(hash, businessId)
        const now = yield* Clock.currentTimeMillis
        const hit = cache.get(key)
        if (hit && hit.expires > now) return hit.grant
        const grant = yield* load(hash, businessId)
        if (cache.size > 50_000) cache.clear()
        cache.set(key, { grant, expires: now + TTL_MS })
        return grant
      }),
      issue: Effect.fn("AccessTokens.issue")(function* (options) {
        const token = generateToken()
        yield* sql`insert into access_tokens (token_hash, account_id, business_id, application_id)
                   values (${hashToken(token)}, ${options.accountId}, ${Option.getOrNull(options.businessId)},
                           ${Option.getOrNull(options.applicationId)})`.pipe(Effect.orDie)
        return token
      }),
      revoke: Effect.fn("AccessTokens.revoke")(function* (token) {
        const hash = hashToken(token)
        const prefix = `${hash.toString("base64")}:`
        for (const key of cache.keys()) if (key.startsWith(prefix)) cache.delete(key)
        const rows = yield* sql`update access_tokens set revoked_at = now()
                                where token_hash = ${hash} and revoked_at is null returning id`.pipe(Effect.orDie)
        return rows.length > 0
      }),
      forgetCached: Effect.sync(() => cache.clear())
    })
  })
)
