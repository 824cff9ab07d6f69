import { Effect, Option, Tracer } from "effect"

/**
 * A job carries the trace of the request (or job) that enqueued it, so its run in the worker
 * continues that trace: W3C `traceparent` text in the payload under `_trace` (graphile-worker 0.18
 * jobs have no metadata column; the jobs' Schemas ignore keys they do not declare). Written only
 * while OTLP export is on (src/platform/telemetry.ts): with Effect's native tracer nothing is
 * added and payloads stay as they were.
 */
export const TRACE_FIELD = "_trace"

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/

/** The current span as `traceparent`, when spans are exported; otherwise undefined. */
export const currentTraceparent: Effect.Effect<string | undefined> = Effect.gen(function* () {
  if ((yield* Tracer.Tracer) === Tracer.nativeTracer) return undefined
  const span = yield* Effect.option(Effect.currentSpan)
  return Option.isSome(span) ? `00-${span.value.traceId}-${span.value.spanId}-${span.value.sampled ? "01" : "00"}` : undefined
})

/** The payload with the trace context beside its own fields (objects only). */
export const withTraceContext = (payload: unknown, traceparent: string | undefined): unknown =>
  traceparent === undefined || payload === null || typeof payload !== "object" || Array.isArray(payload)
    ? payload
    : { ...payload, [TRACE_FIELD]: { traceparent } }

/** The enqueuer's span a job's payload names, if any. */
export const parentOfJob = (payload: unknown): Tracer.ExternalSpan | undefined => {
  if (payload === null || typeof payload !== "object") return undefined
  const trace = (payload as Record<string, unknown>)[TRACE_FIELD]
  if (trace === null || typeof trace !== "object") return undefined
  const traceparent = (trace as Record<string, unknown>)["traceparent"]
  if (typeof traceparent !== "string") return undefined
  const match = TRACEPARENT.exec(traceparent)
  if (match === null) return undefined
  return Tracer.externalSpan({ traceId: match[1]!, spanId: match[2]!, sampled: (parseInt(match[3]!, 16) & 1) === 1 })
}
