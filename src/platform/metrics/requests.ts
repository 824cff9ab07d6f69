import { Metric } from "effect"
import { NO_CONTEXT } from "./context.ts"

/**
 * The service's metrics, in Effect's own Metric registry (rendered by `PrometheusMetrics` on the
 * metrics listener, src/app/metrics-server.ts). Named by Prometheus conventions: `studio_`
 * for the service's own, units in the name, `_total` counters, durations in seconds.
 * Label sets are metric values built once and cached, so a request costs two map lookups and
 * two updates. The process's and the worker's series are in process.ts and jobs.ts beside this.
 */

/** Latency buckets in seconds: 5 ms to 10 s. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

/** The label of a request that matched no route (refused before routing, or an unknown path). */
export const UNMATCHED_ROUTE = "unmatched"

const STATUS_CLASSES = ["1xx", "2xx", "3xx", "4xx", "5xx"] as const
const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"])
/** Routes beyond this many are counted as `unmatched`: a bound, should a route ever carry raw ids. */
const MAX_ROUTES = 2_000

/**
 * One (route, method, status class): its count and latency histogram in plain numbers, which the
 * registry reads at scrape time (`Metric.registerUnsafe`): a request pays a few increments, not
 * two registry lookups (≈ 0.3 µs through `updateUnsafe`).
 */
interface RequestSeries {
  count: number
  sum: number
  /** Per bucket of LATENCY_BUCKETS (not cumulative), the last one past the largest bound. */
  readonly buckets: Float64Array
}

const requestSeries = new Map<string, Map<string, Array<RequestSeries | undefined>>>()

const makeRequestSeries = (route: string, method: string, statusClass: string): RequestSeries => {
  const attributes = { route, method, status_class: statusClass }
  const series: RequestSeries = { count: 0, sum: 0, buckets: new Float64Array(LATENCY_BUCKETS.length + 1) }
  const ignore = () => {}
  Metric.registerUnsafe(
    Metric.counter("studio_http_requests_total", {
      description: "HTTP requests answered, by route template, method and status class",
      attributes,
      incremental: true
    }),
    NO_CONTEXT,
    { get: () => ({ count: series.count, incremental: true }), update: ignore, modify: ignore }
  )
  Metric.registerUnsafe(
    Metric.histogram("studio_http_request_duration_seconds", {
      description: "Time from a request's arrival to its answer, by route template, method and status class",
      attributes,
      boundaries: LATENCY_BUCKETS
    }),
    NO_CONTEXT,
    {
      get: () => {
        let cumulated = 0
        return {
          buckets: LATENCY_BUCKETS.map((boundary, i): [number, number] => [boundary, (cumulated += series.buckets[i]!)]),
          count: series.count,
          sum: series.sum,
          min: Number.NaN,
          max: Number.NaN
        }
      },
      update: ignore,
      modify: ignore
    }
  )
  return series
}

/** One request answered: `route` is its route template (`/api/v2/desk/visits/:id`) or UNMATCHED_ROUTE. */
export const recordRequest = (route: string | undefined, method: string, status: number, seconds: number): void => {
  let key = route ?? UNMATCHED_ROUTE
  let byMethod = requestSeries.get(key)
  if (byMethod === undefined) {
    if (requestSeries.size >= MAX_ROUTES) key = UNMATCHED_ROUTE
    byMethod = requestSeries.get(key)
    if (byMethod === undefined) requestSeries.set(key, (byMethod = new Map()))
  }
  const methodKey = METHODS.has(method) ? method : "other"
  let byClass = byMethod.get(methodKey)
  if (byClass === undefined) byMethod.set(methodKey, (byClass = []))
  const classIndex = status < 200 ? 0 : status < 300 ? 1 : status < 400 ? 2 : status < 500 ? 3 : 4
  let series = byClass[classIndex]
  if (series === undefined) byClass[classIndex] = series = makeRequestSeries(key, methodKey, STATUS_CLASSES[classIndex]!)
  series.count++
  series.sum += seconds
  let bucket = 0
  while (bucket < LATENCY_BUCKETS.length && seconds > LATENCY_BUCKETS[bucket]!) bucket++
  series.buckets[bucket]!++
}

const rateLimitRefusals = {
  ip: Metric.counter("studio_rate_limit_refusals_total", {
    description: "Requests refused with 429 by the API's rate limits, by the budget that ran out",
    attributes: { scope: "ip" },
    incremental: true
  }),
  token: Metric.counter("studio_rate_limit_refusals_total", {
    description: "Requests refused with 429 by the API's rate limits, by the budget that ran out",
    attributes: { scope: "token" },
    incremental: true
  })
}

// Both series from the start: a dashboard shows 0 rather than no data.
rateLimitRefusals.ip.valueUnsafe(NO_CONTEXT)
rateLimitRefusals.token.valueUnsafe(NO_CONTEXT)

/** A request refused by the per-IP or per-token budget. */
export const recordRateLimitRefusal = (scope: "ip" | "token"): void => rateLimitRefusals[scope].updateUnsafe(1, NO_CONTEXT)
