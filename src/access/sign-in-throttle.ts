import { Clock, Context, Effect, Layer, Option, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { hash } from "node:crypto"
import { AppConfig } from "../platform/config.ts"

/**
 * Password guessing, throttled per account and per client IP, for every path that
 * checks a password: `/accounts/sign_in` and `/oauth/login` (there is no password grant).
 *
 * Each key (the e-mail address as typed, lower-cased, whether or not an account has it, so the
 * throttle does not tell which addresses exist; and the client's IP) has a window that starts at
 * its first failure. Its first few failures cost nothing, each further one makes the next attempt
 * wait twice as long as the last (1 s, 2 s, 4 s, …), and when the budget is spent the key is
 * refused until the window ends. A refused attempt checks no password and writes nothing.
 *
 * An attempt is counted before its password is checked, under a per-key lock, so a burst of
 * parallel guesses gets no more through than a sequence would; a successful one is handed back
 * (the account's failures are cleared, the IP's attempt uncounted). A successful password reset
 * clears the account's failures too: that is how a locked-out owner gets in before the window
 * ends. The lock never outlasts its window, so locking an account out takes a fresh batch of
 * failures every window, from IPs that each have a budget of their own.
 *
 * Times come from Effect's Clock (tests move it), stored in PostgreSQL so that every API process
 * shares one count (migration 0032).
 */

export interface ThrottlePolicy {
  /** Failures per window; the one that reaches it locks the key until the window ends. */
  readonly maxFailures: number
  /** Failures that cost no delay. */
  readonly freeFailures: number
}

/** When a key may try again after `failures` in a window ending at `windowEndsAt` (epoch ms). */
export const nextAttemptAt = (failures: number, now: number, windowEndsAt: number, policy: ThrottlePolicy): number => {
  if (failures >= policy.maxFailures) return windowEndsAt
  if (failures <= policy.freeFailures) return now
  return Math.min(windowEndsAt, now + 1000 * 2 ** (failures - policy.freeFailures - 1))
}

export type ThrottleVerdict =
  | { readonly _tag: "Allowed" }
  | { readonly _tag: "Refused"; readonly retryAfterSeconds: number }

const accountKey = (email: string) => `account:${email.trim().toLowerCase()}`
const ipKey = (address: string) => `ip:${address}`
const digestOf = (key: string) => hash("sha256", key, "buffer")

const Row = Schema.Struct({
  failures: Schema.Number,
  window_ends_ms: Schema.Number,
  next_attempt_ms: Schema.Number
})

const ByDigest = Schema.Struct({ digest: Schema.Uint8Array })

/** The throttle's statements: one row per key digest, its failures and window. */
const throttleStatements = (sql: SqlClient.SqlClient) => {
  // Serializes the attempts on one key across processes until the transaction ends: two
  // parallel guesses cannot both read the count before either wrote it. Not a write.
  const lock = SqlSchema.void({
    Request: ByDigest,
    execute: ({ digest }) => sql`select pg_advisory_xact_lock(hashtextextended(encode(${digest}, 'hex'), 29))`
  })
  const read = SqlSchema.findOneOption({
    Request: ByDigest,
    Result: Row,
    execute: ({ digest }) =>
      sql`select failures, (extract(epoch from window_ends_at) * 1000)::float8 as window_ends_ms,
                 (extract(epoch from next_attempt_at) * 1000)::float8 as next_attempt_ms
          from sign_in_throttles where key_digest = ${digest}`
  })
  const write = SqlSchema.void({
    Request: Schema.Struct({ digest: Schema.Uint8Array, failures: Schema.Number, windowEndsAt: Schema.Number, nextAttemptAt: Schema.Number }),
    execute: ({ digest, failures, windowEndsAt, nextAttemptAt }) =>
      sql`insert into sign_in_throttles (key_digest, failures, window_ends_at, next_attempt_at)
          values (${digest}, ${failures}, to_timestamp(${windowEndsAt} / 1000.0), to_timestamp(${nextAttemptAt} / 1000.0))
          on conflict (key_digest) do update set
            failures = excluded.failures, window_ends_at = excluded.window_ends_at, next_attempt_at = excluded.next_attempt_at`
  })
  const forget = SqlSchema.void({
    Request: ByDigest,
    execute: ({ digest }) => sql`delete from sign_in_throttles where key_digest = ${digest}`
  })
  // Windows long past are deleted now and then by whichever process counts an attempt.
  const sweep = SqlSchema.void({
    Request: Schema.Struct({ now: Schema.Number }),
    execute: ({ now }) => sql`delete from sign_in_throttles where window_ends_at < to_timestamp(${now} / 1000.0) - interval '1 hour'`
  })
  return { lock, read, write, forget, sweep }
}

const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const config = yield* AppConfig
  const windowMs = (config.signInWindowSeconds ?? 900) * 1000
  const accountMax = Math.max(1, config.signInMaxFailures ?? 10)
  const ipMax = Math.max(1, config.signInMaxFailuresPerIp ?? 30)
  const accountPolicy: ThrottlePolicy = { maxFailures: accountMax, freeFailures: Math.min(3, accountMax - 1) }
  // An office or a school behind one address signs many people in: more failures before delays.
  const ipPolicy: ThrottlePolicy = { maxFailures: ipMax, freeFailures: Math.floor(ipMax / 3) }
  const { lock, read, write, forget, sweep } = throttleStatements(sql)
  let attempts = 0

  /** The key's state in its current window (none: a fresh window). */
  const current = (digest: Buffer, now: number) =>
    Effect.map(read({ digest }), (row) => Option.filter(row, (r) => r.window_ends_ms > now))

  const attempt = Effect.fn("SignInThrottle.attempt")(function* (email: string, address: string) {
    const now = yield* Clock.currentTimeMillis
    const keys = [
      { digest: digestOf(accountKey(email)), policy: accountPolicy },
      { digest: digestOf(ipKey(address)), policy: ipPolicy }
    ]
    const verdict = yield* sql.withTransaction(
      Effect.gen(function* () {
        // Always the account's lock before the IP's: no two attempts wait on each other in a circle.
        const states = []
        for (const key of keys) {
          yield* lock({ digest: key.digest })
          states.push(yield* current(key.digest, now))
        }
        let refusedUntil = 0
        for (const state of states) {
          if (Option.isSome(state) && state.value.next_attempt_ms > now) refusedUntil = Math.max(refusedUntil, state.value.next_attempt_ms)
        }
        if (refusedUntil > 0) return { _tag: "Refused", retryAfterSeconds: Math.max(1, Math.ceil((refusedUntil - now) / 1000)) } as const
        for (const [i, key] of keys.entries()) {
          const state = states[i]!
          const failures = (Option.isSome(state) ? state.value.failures : 0) + 1
          const windowEndsAt = Option.isSome(state) ? state.value.window_ends_ms : now + windowMs
          yield* write({ digest: key.digest, failures, windowEndsAt, nextAttemptAt: nextAttemptAt(failures, now, windowEndsAt, key.policy) })
        }
        return { _tag: "Allowed" } as const
      })
    ).pipe(Effect.orDie)
    if (verdict._tag === "Allowed" && ++attempts % 1000 === 0) yield* Effect.forkDetach(sweep({ now }).pipe(Effect.ignore))
    return verdict satisfies ThrottleVerdict
  })

  /** The attempt was right: the account starts afresh, and the IP's attempt is not a failure. */
  const succeeded = Effect.fn("SignInThrottle.succeeded")(function* (email: string, address: string) {
    const now = yield* Clock.currentTimeMillis
    const account = digestOf(accountKey(email))
    const ip = digestOf(ipKey(address))
    yield* sql.withTransaction(
      Effect.gen(function* () {
        yield* lock({ digest: account })
        yield* forget({ digest: account })
        yield* lock({ digest: ip })
        const state = yield* current(ip, now)
        if (Option.isSome(state)) {
          const failures = Math.max(0, state.value.failures - 1)
          // The delay this attempt set is lifted; the ones before it had passed, or it was refused.
          yield* write({ digest: ip, failures, windowEndsAt: state.value.window_ends_ms, nextAttemptAt: now })
        }
      })
    ).pipe(Effect.orDie)
  })

  /** A password reset by a mailed link proves the owner: their account's failures are cleared. */
  const clearAccount = Effect.fn("SignInThrottle.clearAccount")(function* (email: string) {
    yield* forget({ digest: digestOf(accountKey(email)) }).pipe(Effect.orDie)
  })

  return { attempt, succeeded, clearAccount }
})

export class SignInThrottle extends Context.Service<SignInThrottle, Effect.Success<typeof make>>()("studio/SignInThrottle") {
  static readonly layer = Layer.effect(SignInThrottle)(make)
}
