import { Clock, Context, Effect, Layer } from "effect"
import { HttpServerResponse } from "effect/http"
import { t } from "../shared/i18n.ts"
import type { Locale } from "../shared/locale.ts"

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
  /** Seconds until then, at least 1, on the limiter's clock (a refusal's `Retry-After`). */
  readonly retryAfterSeconds: number
}

/** The `RateLimit-*` headers that show a caller the limit that applies to them. */
export const rateLimitHeaders = (decision: RateLimitDecision): Record<string, string> => ({
  "ratelimit-limit": String(decision.limit),
  "ratelimit-remaining": String(decision.remaining),
  "ratelimit-reset": String(decision.resetAt)
})

/** The 429 of every limit: the error model's body, the limit's headers and `Retry-After`. */
export const rateLimitedResponse = (decision: RateLimitDecision, locale: Locale, contentType?: string) =>
  HttpServerResponse.jsonUnsafe(
    { errors: [t(locale, "rate_limited", { seconds: decision.retryAfterSeconds })] },
    {
      status: 429,
      headers: { ...rateLimitHeaders(decision), "retry-after": String(decision.retryAfterSeconds) },
      ...(contentType === undefined ? {} : { contentType })
    }
  )

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
        const resetAt = Math.ceil((start + windowMs) / 1000)
        return {
          allowed: window.count <= limit,
          limit,
          remaining: Math.max(0, limit - window.count),
          resetAt,
          retryAfterSeconds: Math.max(1, resetAt - Math.floor(now / 1000))
        }
      })
  }
}

export const MemoryRateLimiterLive = Layer.sync(RateLimiter)(makeMemoryRateLimitStore)

