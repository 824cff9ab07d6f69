import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Redacted } from "effect"
import { makePgTypes } from "../../src/platform/database.ts"
import { makeMemoryRateLimitStore, type RateLimitStore } from "../../src/platform/rate-limit.ts"
import { makePostgresRateLimitStore } from "../../src/platform/rate-limit-postgres.ts"

/**
 * The per-request cost of the rate limit, in microseconds: `hits` calls of the pipeline's two
 * checks (IP, then token) on the memory store and on the PostgreSQL store (slices leased from
 * the database at `url`), for the default limits (360 per IP, 180 per token, a minute) and
 * `processes` API processes. A fresh key every `limit` hits, so windows never run out and the
 * database is asked once a slice as in production. For `npm run bench:scale` and the report.
 */
export const rateLimitCost = async (url: string, options: { readonly hits?: number; readonly processes?: number } = {}) => {
  const hits = options.hits ?? 50_000
  const processes = options.processes ?? 2
  const measure = (store: RateLimitStore) =>
    Effect.gen(function* () {
      // Keys of this measurement only: budgets of an earlier one would still be spent.
      const run = Math.random().toString(36).slice(2, 10)
      // Warm-up, then the timed run.
      for (let i = 0; i < 2_000; i++) yield* store.hit(`ip:${run}:warm${Math.floor(i / 180)}`, 360, 60)
      const started = performance.now()
      for (let i = 0; i < hits; i++) {
        const round = Math.floor(i / 180)
        yield* store.hit(`ip:${run}:10.0.${round % 250}.${Math.floor(round / 250)}`, 360, 60)
        yield* store.hit(`token:${run}:t${round}`, 180, 60)
      }
      return ((performance.now() - started) * 1000) / hits
    })
  const program = Effect.gen(function* () {
    const memory = yield* measure(makeMemoryRateLimitStore())
    const postgres = yield* measure(yield* makePostgresRateLimitStore(processes))
    return { memoryMicros: memory, postgresMicros: postgres, processes, hits }
  })
  return Effect.runPromise(
    program.pipe(
      Effect.provide(Layer.orDie(PgClient.layer({ url: Redacted.make(url), maxConnections: 4, types: makePgTypes() }))),
      Effect.scoped
    )
  )
}
