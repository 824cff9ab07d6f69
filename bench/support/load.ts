import { createRequire } from "node:module"

/** The part of autocannon's programmatic API the benchmark uses (the package ships no types). */
interface AutocannonOptions {
  readonly url: string
  readonly connections: number
  readonly duration: number
  readonly headers?: Record<string, string>
  readonly overallRate?: number
}
interface Histogram {
  readonly average: number
  readonly p50: number
  readonly p99: number
}
interface AutocannonResult {
  readonly requests: Histogram & { readonly total: number }
  readonly latency: Histogram
  readonly errors: number
  readonly timeouts: number
  readonly non2xx: number
  readonly duration: number
  readonly statusCodeStats?: Record<string, { readonly count: number }>
}
const autocannon = createRequire(import.meta.url)("autocannon") as (options: AutocannonOptions) => Promise<AutocannonResult>

export interface LoadResult {
  readonly requestsPerSecond: number
  readonly p50Ms: number
  readonly p99Ms: number
  /** Socket errors and timeouts. */
  readonly errors: number
  readonly non2xx: number
  /** The answers that were not 2xx, by status (`503: 12`), so a failing round says what it got. */
  readonly non2xxStatuses: Record<string, number>
  readonly total: number
}

/**
 * `connections` keep-alive connections sending GETs to `url` for `seconds`, as fast as the
 * server answers, or at `overallRate` requests per second in all (to compare CPU per request
 * at equal load).
 */
export const runLoad = async (
  url: string,
  options: {
    readonly connections: number
    readonly seconds: number
    readonly headers: Record<string, string>
    readonly overallRate?: number
  }
): Promise<LoadResult> => {
  const result = await autocannon({
    url,
    connections: options.connections,
    duration: options.seconds,
    headers: options.headers,
    ...(options.overallRate ? { overallRate: options.overallRate } : {})
  })
  return {
    requestsPerSecond: result.requests.total / result.duration,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    non2xxStatuses: Object.fromEntries(
      Object.entries(result.statusCodeStats ?? {}).filter(([status]) => !status.startsWith("2")).map(([status, { count }]) => [status, count])
    ),
    total: result.requests.total
  }
}
