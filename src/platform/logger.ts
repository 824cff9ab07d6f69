import { Context, Formatter, Layer, Logger, References, Tracer } from "effect"
import { AppConfig } from "./config.ts"

/**
 * Effect's structured JSON line (`Logger.formatJson`) plus, inside a span, `trace_id` and
 * `span_id`: a line of a request or a job is found from its trace, and the other way round.
 * Spans are always open (handlers and services are `Effect.fn`s); the ids name an exported trace
 * only while OTLP export is on (src/platform/telemetry.ts).
 */
export const tracedJson: Logger.Logger<unknown, string> = Logger.make((options) => {
  const line = Logger.formatStructured.log(options)
  const span = Context.getOrUndefined(options.fiber.context, Tracer.ParentSpan)
  return Formatter.formatJson(span === undefined ? line : { ...line, trace_id: span.traceId, span_id: span.spanId })
})

/** JSON log lines on the console, at the configured LOG_LEVEL (debug, info, warn, error, none). */
export const LoggerLive = Layer.mergeAll(
  Logger.layer([Logger.withConsoleLog(tracedJson)]),
  Layer.effect(References.MinimumLogLevel)(
    AppConfig.useSync((config) => {
      const level = config.logLevel.toLowerCase()
      return level === "debug" ? "Debug" : level === "warn" ? "Warn" : level === "error" ? "Error" : level === "none" ? "None" : "Info"
    })
  )
)
