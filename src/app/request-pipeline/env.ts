import { ByteSize, Effect, LogLevel, References, Tracer } from "effect"
import { BusinessDirectory, type BusinessDirectoryShape, type HostKind } from "../../access/tenant.ts"
import { AppConfig, type AppConfigShape, DEFAULT_BODY_LIMIT_BYTES, DEFAULT_OAUTH_BODY_LIMIT_BYTES } from "../../platform/config.ts"
import { RateLimiter, type RateLimitStore } from "../../platform/rate-limit.ts"
import { TRUST_NONE, type TrustProxy } from "../../platform/trust-proxy.ts"
import { makeHostKinds } from "./incoming.ts"

/** What every request of the pipeline reads, resolved once when the server starts. */
export interface PipelineEnv {
  readonly config: AppConfigShape
  readonly directory: BusinessDirectoryShape
  readonly limiter: RateLimitStore
  /** The access log is an Info line: below the configured level it is not even built. */
  readonly logsRequests: boolean
  /** With logging off nothing reads the request id annotation either. */
  readonly logsAnything: boolean
  /** OTLP export on (src/platform/telemetry.ts): the server span is named and annotated. */
  readonly tracing: boolean
  readonly hostKind: (header: string | undefined) => HostKind
  readonly trust: TrustProxy
  readonly bodyLimit: number
  readonly oauthBodyLimit: number
  readonly bodyLimitSize: ByteSize.ByteSize
  readonly oauthBodyLimitSize: ByteSize.ByteSize
}

export const makePipelineEnv = Effect.gen(function* () {
  const config = yield* AppConfig
  const minimumLogLevel = yield* References.MinimumLogLevel
  const bodyLimit = config.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES
  const oauthBodyLimit = config.oauthBodyLimitBytes ?? DEFAULT_OAUTH_BODY_LIMIT_BYTES
  const env: PipelineEnv = {
    config,
    directory: yield* BusinessDirectory,
    limiter: yield* RateLimiter,
    logsRequests: !LogLevel.isGreaterThan(minimumLogLevel, "Info"),
    logsAnything: minimumLogLevel !== "None",
    tracing: (yield* Tracer.Tracer) !== Tracer.nativeTracer,
    hostKind: makeHostKinds(config.baseDomain),
    trust: config.trustProxy ?? TRUST_NONE,
    bodyLimit,
    oauthBodyLimit,
    bodyLimitSize: ByteSize.bytes(bodyLimit),
    oauthBodyLimitSize: ByteSize.bytes(oauthBodyLimit)
  }
  return env
})
