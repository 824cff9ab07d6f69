import { type Cause, Deferred, Effect, Layer, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { hash } from "node:crypto"
import { AppConfig } from "./config.ts"
import { makeMemoryRateLimitStore, MemoryRateLimiterLive, type RateLimitDecision, RateLimiter, type RateLimitStore } from "./rate-limit.ts"

/**
 * The rate limits shared by every API process on one database (RATE_LIMIT_STORE=postgres).
 *
 * Each key's window has one budget in `rate_limit_budgets` (migration 0029). A process leases a
 * slice of it (`sliceSize`) with one upsert, spends the slice in memory, and asks again when it
 * is empty; concurrent requests of a process wait for one lease rather than each asking.
 * PostgreSQL only hands out what is left of the window's budget, so all processes together
 * never allow more than the limit; a slice left unspent at the window's end is lost. Once the
 * database answered that nothing is left, the process refuses the key until the window ends
 * without asking again, except in the window's last WINDOW_END_GRACE_MS, where a request waits
 * for the next window instead.
 *
 * `RateLimit-Remaining` is what the window had not leased at this process's last lease, plus
 * what this process still holds: exact with one process, and with several it leaves out what the
 * others hold (it understates, except for leases the others took since this process's last one).
 *
 * Windows are PostgreSQL's (its `now()`), so they are timed on the wall clock (`Date.now()`), not
 * on Effect's Clock, which tests move: a window must not end early here while it still runs there.
 *
 * The key hashed with its limit and window: a changed limit (or the Reporting API's stricter one
 * on the same token) counts in a budget of its own.
 */

/**
 * A refusal this close to the window's end waits for the next window instead. A process's window
 * ends up to a lease's round trip before the database's (counted from before the lease), so a
 * lease asked for in that gap lands in the ending window; with every slice of it leased it gets
 * nothing, and the process would refuse requests the next window has room for.
 */
export const WINDOW_END_GRACE_MS = 100

/** Slices of a quarter of a process's fair share: small enough that an idle process strands little. */
export const sliceSize = (limit: number, processes: number) =>
  Math.max(1, Math.floor(limit / (4 * Math.max(1, processes))))

const LeaseRow = Schema.Struct({
  granted: Schema.Number,
  leased: Schema.Number,
  /** Milliseconds until the window ends, on PostgreSQL's clock. */
  ends_in_ms: Schema.Number
})

interface LocalBudget {
  /** Window end on this process's clock. */
  windowEndsAt: number
  /** Requests this process may still allow without asking. */
  held: number
  /** What the window had not leased at the last lease. */
  unleased: number
  /** A lease under way: requests that find the slice empty wait for it. */
  pending: Deferred.Deferred<void> | undefined
}

export const makePostgresRateLimitStore = (processes: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const lease = SqlSchema.findOne({
      Request: Schema.Struct({ digest: Schema.Uint8Array, limit: Schema.Number, windowSeconds: Schema.Number, want: Schema.Number }),
      Result: LeaseRow,
      execute: ({ digest, limit, windowSeconds, want }) =>
        sql`insert into rate_limit_budgets as b (key_digest, max_requests, window_ends_at, leased, last_grant)
            values (${digest}, ${limit}, now() + make_interval(secs => ${windowSeconds}), least(${limit}, ${want}), least(${limit}, ${want}))
            on conflict (key_digest) do update set
              window_ends_at = case when b.window_ends_at <= now() then excluded.window_ends_at else b.window_ends_at end,
              leased = case when b.window_ends_at <= now() then excluded.leased
                            else b.leased + least(${want}, greatest(0, b.max_requests - b.leased)) end,
              last_grant = case when b.window_ends_at <= now() then excluded.leased
                                else least(${want}, greatest(0, b.max_requests - b.leased)) end
            returning last_grant as granted, leased,
                      (extract(epoch from (window_ends_at - now())) * 1000)::float8 as ends_in_ms`
    })
    // Windows long past are deleted now and then by whichever process leases.
    let leases = 0
    const sweep = sql`delete from rate_limit_budgets where window_ends_at < now() - interval '1 hour'`.pipe(Effect.ignore)

    const budgets = new Map<string, LocalBudget>()

    const decide = (budget: LocalBudget, limit: number, now: number): RateLimitDecision => {
      const allowed = budget.held > 0
      if (allowed) budget.held -= 1
      const resetAt = Math.ceil(budget.windowEndsAt / 1000)
      return {
        allowed,
        limit,
        remaining: Math.max(0, Math.min(limit, budget.unleased + budget.held)),
        resetAt,
        retryAfterSeconds: Math.max(1, resetAt - Math.floor(now / 1000))
      }
    }

    const refill = (key: string, budget: LocalBudget, limit: number, windowSeconds: number) =>
      Effect.gen(function* () {
        const done = yield* Deferred.make<void>()
        budget.pending = done
        const digest = hash("sha256", `${key}\u0000${limit}\u0000${windowSeconds}`, "buffer")
        // The window's end counted from before the query: never later, on this clock, than
        // PostgreSQL's, so no slice is spent after its window ended there.
        const asked = Date.now()
        const row = yield* lease({ digest, limit, windowSeconds, want: sliceSize(limit, processes) }).pipe(
          Effect.map((row): typeof LeaseRow.Type | undefined => row),
          Effect.catchCause((cause) => Effect.as(unreachable(cause), undefined)),
          // The budget is set before the waiters wake: one that ran in between would find the
          // slice still empty and the lease no longer pending, and lease a second slice.
          Effect.tap((row) =>
            Effect.sync(() => {
              if (row === undefined) return
              budget.windowEndsAt = asked + Math.max(0, row.ends_in_ms)
              budget.held = row.granted
              budget.unleased = Math.max(0, limit - row.leased)
            })),
          Effect.ensuring(Effect.suspend(() => {
            budget.pending = undefined
            return Deferred.succeed(done, undefined)
          }))
        )
        if (row === undefined) return false
        if (++leases % 1000 === 0) yield* Effect.forkDetach(sweep)
        return true
      })

    // PostgreSQL unreachable: each process counts alone, its share of the limit, so health checks
    // and cached answers keep working and a client still cannot pass the limit across processes.
    const fallback = makeMemoryRateLimitStore()
    let warnedAt = 0
    const unreachable = (cause: Cause.Cause<unknown>) => {
      if (Date.now() - warnedAt < 10_000) return Effect.void
      warnedAt = Date.now()
      return Effect.logWarning("rate limits counted per process: PostgreSQL did not answer the lease", cause)
    }

    // A refusal in the window's last moments: `again` once the window has ended (a few times at most:
    // the database's window may end a round trip after this process's).
    const refuseOrWait = (decision: RateLimitDecision, budget: LocalBudget, waits: number, again: () => Effect.Effect<RateLimitDecision>) => {
      const left = budget.windowEndsAt - Date.now()
      if (decision.allowed || left > WINDOW_END_GRACE_MS || waits >= 5) return Effect.succeed(decision)
      return Effect.andThen(Effect.sleep(Math.max(1, Math.ceil(left) + 1)), Effect.suspend(again))
    }

    const hit = (key: string, limit: number, windowSeconds: number, waits = 0): Effect.Effect<RateLimitDecision> =>
      Effect.suspend(() => {
        const now = Date.now()
        let budget = budgets.get(key)
        if (budget === undefined) {
          if (budgets.size > 10_000) {
            for (const [k, b] of budgets) if (b.windowEndsAt <= now && b.pending === undefined) budgets.delete(k)
          }
          budget = { windowEndsAt: 0, held: 0, unleased: 0, pending: undefined }
          budgets.set(key, budget)
        }
        const current = budget
        const live = current.windowEndsAt > now
        const decided = (decision: RateLimitDecision) => refuseOrWait(decision, current, waits, () => hit(key, limit, windowSeconds, waits + 1))
        // Spend what this process holds; refuse without asking when the window has nothing left.
        if (live && (current.held > 0 || current.unleased === 0)) return decided(decide(current, limit, now))
        if (current.pending !== undefined) return Effect.flatMap(Deferred.await(current.pending), () => hit(key, limit, windowSeconds, waits))
        return Effect.flatMap(refill(key, current, limit, windowSeconds), (leased) =>
          leased
            ? decided(decide(current, limit, Date.now()))
            : fallback.hit(key, Math.max(1, Math.floor(limit / Math.max(1, processes))), windowSeconds))
      })

    return { hit } satisfies RateLimitStore
  })

export const PostgresRateLimiterLive = Layer.effect(RateLimiter)(
  Effect.flatMap(AppConfig, (config) => makePostgresRateLimitStore(config.processes ?? 1))
)

/**
 * The store RATE_LIMIT_STORE names: PostgreSQL's shared budgets unless `memory` is asked for
 * (only right when a single API process serves).
 */
export const RateLimiterLive = Layer.unwrap(
  AppConfig.useSync((config) => (config.rateLimitStore === "memory" ? MemoryRateLimiterLive : PostgresRateLimiterLive))
)
