import { Clock, Effect, Option, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { createHash } from "node:crypto"
import { Unprocessable, fail } from "./errors.ts"

/**
 * `Idempotency-Key` of the POSTs that create money-moving records (packs now; invoices and
 * payments later), over the `idempotency_keys` table:
 *
 * - the key is claimed (inserted) in the same transaction as the write it guards, and the
 *   response is stored with it: a key is either free or holds a committed answer, never a half;
 * - a repeat with the same key and the same request answers the stored response without a
 *   second write; with another request (another body or endpoint) it is refused (422 naming
 *   Idempotency-Key);
 * - concurrent duplicates: the second insert waits on the first's uncommitted row, then finds
 *   the committed answer (or, if the first rolled back, claims the key itself): never two writes;
 * - a request that fails (400, 404, 422) stores nothing, so the client may fix it and retry
 *   with the same key.
 *
 * Keys are per business and per caller (`scope`, e.g. `account:12`): two callers never see each
 * other's answers.
 */
export const IDEMPOTENCY_HEADER = "idempotency-key"
export const MAX_KEY_LENGTH = 255

/** The header as endpoints declare it (`headers: IdempotencyHeaders`). */
export const IdempotencyHeaders = {
  [IDEMPOTENCY_HEADER]: Schema.optional(
    Schema.String.annotate({
      description: `Optional, at most ${MAX_KEY_LENGTH} characters: a repeat with the same key and body answers the first response without a second write`
    })
  )
}

/** JSON with keys sorted, so the same request digests the same whatever order its fields came in. */
const canonical = (value: unknown): string =>
  Array.isArray(value)
    ? `[${value.map(canonical).join(",")}]`
    : value !== null && typeof value === "object"
      ? `{${Object.keys(value).filter((k) => (value as Record<string, unknown>)[k] !== undefined).sort()
        .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`).join(",")}}`
      : JSON.stringify(value) ?? "null"

export const requestDigest = (request: unknown): string => createHash("sha256").update(canonical(request)).digest("hex")

export interface IdempotencyOptions<A, I> {
  readonly businessId: number
  /** Who asks: keys of different callers never meet. */
  readonly scope: string
  /** The header's value; absent: the write simply runs. */
  readonly key: string | undefined
  /** What identifies the request: the endpoint and its decoded parameters and body. */
  readonly request: unknown
  /** The success body's Schema (stored encoded, answered decoded) and its status. */
  readonly response: Schema.Codec<A, I>
  readonly status: number
}

const make = (sql: SqlClient.SqlClient) => ({
  claim: SqlSchema.findAll({
    Request: Schema.Struct({ businessId: Schema.Number, scope: Schema.String, key: Schema.String, digest: Schema.String }),
    Result: Schema.Struct({ key: Schema.String }),
    execute: ({ businessId, scope, key, digest }) =>
      sql`insert into idempotency_keys (business_id, scope, key, request_digest)
          values (${businessId}, ${scope}, ${key}, ${digest})
          on conflict (business_id, scope, key) do nothing
          returning key`
  }),
  stored: SqlSchema.findOneOption({
    Request: Schema.Struct({ businessId: Schema.Number, scope: Schema.String, key: Schema.String }),
    Result: Schema.Struct({ request_digest: Schema.String, response_status: Schema.NullOr(Schema.Number), response_body: Schema.Unknown }),
    execute: ({ businessId, scope, key }) =>
      sql`select request_digest, response_status, response_body from idempotency_keys
          where business_id = ${businessId} and scope = ${scope} and key = ${key}`
  }),
  answer: SqlSchema.void({
    Request: Schema.Struct({ businessId: Schema.Number, scope: Schema.String, key: Schema.String, status: Schema.Number, body: Schema.String }),
    execute: ({ businessId, scope, key, status, body }) =>
      sql`update idempotency_keys set response_status = ${status}, response_body = ${body}::jsonb
          where business_id = ${businessId} and scope = ${scope} and key = ${key}`
  })
})

/**
 * Runs `write` at most once per key: inside one transaction with the key's claim, its answer
 * stored on success. `write` may open its own transaction (it nests as a savepoint).
 */
export const idempotent = <A, I, E, R>(options: IdempotencyOptions<A, I>, write: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const key = options.key
    if (key === undefined) return yield* write
    if (key.trim() === "" || key.length > MAX_KEY_LENGTH) {
      return yield* fail(Unprocessable, { key: "idempotency_key_invalid", params: { max: MAX_KEY_LENGTH } })
    }
    const queries = make(sql)
    const ids = { businessId: options.businessId, scope: options.scope, key }
    const digest = requestDigest(options.request)
    return yield* sql.withTransaction(
      Effect.gen(function* () {
        const claimed = yield* queries.claim({ ...ids, digest }).pipe(Effect.orDie)
        if (claimed.length === 0) {
          // Claimed and committed by an earlier request (the insert waited for it to finish).
          const stored = yield* queries.stored(ids).pipe(Effect.orDie)
          if (Option.isNone(stored) || stored.value.request_digest !== digest || stored.value.response_status === null) {
            return yield* fail(Unprocessable, { key: "idempotency_key_reused" })
          }
          return yield* Schema.decodeUnknownEffect(options.response)(stored.value.response_body).pipe(Effect.orDie)
        }
        const result = yield* write
        const body = yield* Schema.encodeEffect(options.response)(result).pipe(Effect.orDie)
        yield* queries.answer({ ...ids, status: options.status, body: JSON.stringify(body) }).pipe(Effect.orDie)
        return result
      })
    ).pipe(Effect.catchTag("SqlError", Effect.die))
  })

/** How long a key answers repeats; older keys are pruned daily (workers/crontab.ts). */
export const IDEMPOTENCY_RETENTION_DAYS = 7

/** Deletes keys older than the retention, across businesses (a maintenance sweep, by its index on created_at). */
export const pruneIdempotencyKeys = Effect.fn("Idempotency.prune")(function* () {
  const sql = yield* SqlClient.SqlClient
  const now = yield* Clock.currentTimeMillis
  const cutoff = new Date(now - IDEMPOTENCY_RETENTION_DAYS * 86_400_000)
  const rows = yield* SqlSchema.findAll({
    Request: Schema.Struct({ cutoff: Schema.Date }),
    Result: Schema.Struct({ n: Schema.Number }),
    execute: ({ cutoff }) =>
      sql`with gone as (delete from idempotency_keys where created_at < ${cutoff} returning 1) select count(*)::int as n from gone`
  })({ cutoff }).pipe(Effect.orDie)
  return rows[0]?.n ?? 0
})
