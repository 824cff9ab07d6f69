import { Clock, Context, Effect, Layer } from "effect"

/**
 * Rate limiting behind one interface, so a shared store (Redis, PostgreSQL) can replace the
 * in-memory one when the API runs in several processes.
 */
export interface RateLimitDecision {
  readonly allowed: boolean
  readonly limit: number
  readonly remaining: number
  /** Epoch seconds when the window resets (the `RateLimit-Reset` header). */
  readonly resetAt: number
}

export interface RateLimitStore {
  /** Counts one request against `key` and says whether it fits in `limit` per window. */
  readonly hit: (key: string, limit: number, windowSeconds: number) => Effect.Effect<RateLimitDecision>
}

export class RateLimiter extends Context.Service<RateLimiter, RateLimitStore>()("studio/RateLimiter") {}

/**
 * Fixed windows per key, each starting at the key's first request: cheap, and a client's
 * window never resets in the middle of a burst just because a wall-clock minute turned.
 * Stale windows are swept when the map grows.
 */
export const makeMemoryRateLimitStore = (): RateLimitStore => {
  const windows = new Map<string, { start: number; count: number }>()
  let lastSweep = 0
  return {
    hit: (key, limit, windowSeconds) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        const windowMs = windowSeconds * 1000
        if (windows.size > 10_000 && now - lastSweep > windowMs) {
          lastSweep = now
          for (const [k, w] of windows) if (w.start + windowMs <= now) windows.delete(k)
        }
        let window = windows.get(key)
        if (!window || window.start + windowMs <= now) {
          window = { start: now, count: 0 }
          windows.set(key, window)
        }
        const start = window.start
        window.count += 1
        return {
          allowed: window.count <= limit,
          limit,
          remaining: Math.max(0, limit - window.count),
          resetAt: Math.ceil((start + windowMs) / 1000)
        }
      })
  }
}

export const MemoryRateLimiterLive = Layer.sync(RateLimiter)(makeMemoryRateLimitStore)
