import { Context, Duration, Layer, Option, Tracer } from "effect"
import { Headers, UrlParams } from "effect/http"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import { Otlp, OtlpExporter } from "effect/observability"
import { AppConfig } from "./config.ts"

/**
 * OTLP/HTTP export of traces, metrics and logs (Effect's own `Otlp` layer, JSON encoding) when
 * OTEL_EXPORTER_OTLP_ENDPOINT is set. Unset, this layer is empty: no exporter, no tracer (Effect's
 * native tracer records nothing anywhere), no extra logger; nothing is built and nothing is slower.
 *
 * What spans may carry: Effect's server span records no headers unless a filter asks for them
 * (none here), and its URL attributes redact the query parameters named in
 * `UrlParams.CurrentRedactedNames`; the service's credentials that can travel in a query are added
 * to that list. SQL spans carry the statement text with `$n` placeholders, never the values.
 */

/** Query parameters whose values never reach a span (`url.full`, `url.query`). */
export const REDACTED_QUERY_PARAMETERS: ReadonlyArray<string> = [
  "access_token",
  "refresh_token",
  "token",
  "client_secret",
  "code",
  "password",
  "secret",
  "signature",
  "sig",
  "key"
]

/** Headers redacted if a header filter ever records them. */
export const REDACTED_HEADERS: ReadonlyArray<string> = [
  "authorization",
  "cookie",
  "set-cookie",
  "x-api-key",
  "x-csrf-token",
  "x-webhook-signature"
]

const redactions = Layer.mergeAll(
  Layer.succeed(UrlParams.CurrentRedactedNames)([...UrlParams.CurrentRedactedNames.defaultValue(), ...REDACTED_QUERY_PARAMETERS]),
  Layer.succeed(Headers.CurrentRedactedNames)([...Headers.CurrentRedactedNames.defaultValue(), ...REDACTED_HEADERS])
)

/**
 * Parent-based ratio sampling: a trace begun in this process (a request without `traceparent`, a
 * crontab job) is exported with probability `ratio`; a span with a parent follows its parent's
 * decision (Effect marks the children of an unsampled span unsampled, and a job carries its
 * enqueuer's flag), so a trace is kept or dropped whole. An unsampled span is never encoded or sent.
 */
export const sampledTracer = (tracer: Tracer.Tracer, ratio: number, random: () => number = Math.random): Tracer.Tracer =>
  ratio >= 1
    ? tracer
    : Tracer.make({
      span: (options) => tracer.span(Option.isNone(options.parent) && options.sampled ? { ...options, sampled: random() < ratio } : options),
      ...(tracer.context === undefined ? {} : { context: tracer.context.bind(tracer) })
    })

export const TelemetryLive: Layer.Layer<never, never, AppConfig> = Layer.unwrap(
  AppConfig.useSync((config) => {
    if (config.otlpEndpoint === undefined) return Layer.empty
    const interval = config.otlpExportIntervalMs === undefined ? undefined : Duration.millis(config.otlpExportIntervalMs)
    return Otlp.layerJson({
      baseUrl: config.otlpEndpoint,
      resource: {
        serviceName: config.otlpServiceName ?? "studio-service",
        attributes: config.otlpResourceAttributes ?? {}
      },
      tracerExportInterval: interval,
      loggerExportInterval: interval,
      metricsExportInterval: interval,
      // Console lines stay: the OTLP logger is added beside the JSON console logger.
      loggerMergeWithExisting: true
    }).pipe(
      Layer.provide(FetchHttpClient.layer),
      // The tracer, the loggers and the metric reader are references: only they are kept.
      Layer.flatMap((context) =>
        Layer.succeedContext(
          Context.omit(OtlpExporter.Flusher)(context).pipe(
            Context.add(Tracer.Tracer, sampledTracer(Context.get(context, Tracer.Tracer), config.otlpTraceSampleRatio ?? 1))
          )
        )),
      Layer.merge(redactions)
    )
  })
)
