import { Config, Context, Effect, Layer, Option } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { parseTrustProxy, type TrustProxy } from "./trust-proxy.ts"

/**
 * Every setting of the service, read once from the environment.
 * The README lists them; defaults make `npm start` work with nothing set.
 */
export interface AppConfigShape {
  /**
   * NODE_ENV=production: the image's setting. A production start seeds no demo, prints no
   * credential and takes its signing keys from the environment. Optional (false when absent) so
   * that configurations built in code (tests) need not name it.
   */
  readonly production?: boolean
  readonly port: number
  readonly host: string
  /** `{subdomain}.{baseDomain}` is a business host; the bare `baseDomain` is the account-level host. */
  readonly baseDomain: string
  /** Absent: the embedded PostgreSQL in `{dataDir}/postgres` is started. */
  readonly databaseUrl: Option.Option<string>
  readonly dataDir: string
  readonly embeddedPostgresPort: number
  readonly rateLimitPerToken: number
  readonly rateLimitPerIp: number
  readonly rateLimitWindowSeconds: number
  /**
   * Where rate-limit budgets are counted (RATE_LIMIT_STORE): `postgres` (default), one budget
   * shared by every process on the database, leased in slices; `memory`, per process (only for a
   * single API process). Optional so that configurations built in code need not name it.
   */
  readonly rateLimitStore?: "postgres" | "memory"
  /**
   * How many HTTP processes `studio serve` runs (WEB_CONCURRENCY, or `--processes`); each API
   * process also sizes its rate-limit slices with it. Optional, 1 when absent.
   */
  readonly processes?: number
  readonly logLevel: string
  readonly workerConcurrency: number
  readonly workerPollIntervalMs: number
  /** `smtp://user:pass@host:587`; absent: mail goes to the development mailbox (table mail_messages). */
  readonly smtpUrl: Option.Option<string>
  readonly mailFrom: string
  /** Lets webhook targets resolve to loopback and private addresses (tests, local development); off in production. */
  readonly webhooksAllowPrivateTargets: boolean
  /** Reporting API queries per window (rateLimitWindowSeconds) per token and per IP. */
  readonly reportRateLimit: number
  /** Seconds between incremental refreshes of the report store (the worker's cron adds one a minute too). */
  readonly reportRefreshSeconds: number
  /**
   * Who signs document terms: `sandbox` (default), the built-in provider served by this service
   * (src/platform/signing/sandbox.ts), or `remote`, an external provider at `signingProviderUrl`.
   * Optional so that configurations built in code (tests) need not name it.
   */
  readonly signingProvider?: "sandbox" | "remote"
  /** The remote signing provider's base URL (SIGNING_PROVIDER_URL); unset or unreachable: signing is unavailable. */
  readonly signingProviderUrl?: string
  /** The remote signing provider's API key (SIGNING_PROVIDER_KEY), sent as a bearer token. */
  readonly signingProviderKey?: string
  /**
   * Who vaults and charges cards: `sandbox` (default, the only one so far), the built-in gateway
   * served by this service (src/platform/payments/sandbox.ts). A real processor is one more value
   * here with its credentials beside it. Optional so that configurations built in code need not name it.
   */
  readonly paymentGateway?: "sandbox"
  /**
   * Which peers are proxies of ours (TRUST_PROXY: a hop count or address ranges, off by default):
   * only their `X-Forwarded-For`, `-Host` and `-Proto` are believed (src/platform/trust-proxy.ts).
   * Optional (off when absent) so that configurations built in code need not name it.
   */
  readonly trustProxy?: TrustProxy
  /**
   * The public URL of the account-level host (PUBLIC_URL, e.g. `https://studio.example.com`; its
   * host is BASE_DOMAIN): the scheme and port of the links in mail, which are never taken from a
   * request's headers. Absent: `https://{BASE_DOMAIN}` in production, else
   * `http://{BASE_DOMAIN}:{PORT}` (see `publicOrigin`).
   */
  readonly publicUrl?: string
  /** Failed sign-ins per account (its e-mail address) per window before it is locked until the window ends (SIGN_IN_MAX_FAILURES, 10). */
  readonly signInMaxFailures?: number
  /** Failed sign-ins per client IP per window (SIGN_IN_MAX_FAILURES_PER_IP, 30). */
  readonly signInMaxFailuresPerIp?: number
  /** The sign-in throttle's window, counted from a key's first failure (SIGN_IN_WINDOW_SECONDS, 900). */
  readonly signInWindowSeconds?: number
  /** Password-reset and confirmation mails asked for per address per 15 minutes (MAIL_REQUESTS_PER_ADDRESS, 3). */
  readonly mailRequestsPerAddress?: number
  /** Password-reset and confirmation mails asked for per client IP per 15 minutes (MAIL_REQUESTS_PER_IP, 10). */
  readonly mailRequestsPerIp?: number
  /**
   * The largest request body the API reads, in bytes (BODY_LIMIT_BYTES, default 1 MiB); larger
   * bodies are answered 413 before (or while) they are read. Optional so that configurations
   * built in code need not name it.
   */
  readonly bodyLimitBytes?: number
  /**
   * The same for the authorization server's forms, `/oauth/*` and `/accounts/*` (OAUTH_BODY_LIMIT_BYTES,
   * default 64 KiB): they are small and reachable without credentials. Optional, like `bodyLimitBytes`.
   */
  readonly oauthBodyLimitBytes?: number
  /**
   * The memory (DuckDB size, e.g. `1GB`) and threads a report store reader may use per store
   * generation (REPORT_READER_MEMORY_LIMIT, REPORT_READER_THREADS): one query cannot take the
   * machine. Optional; absent, the defaults of reports/store.ts (READER_LIMITS).
   */
  readonly reportReaderMemoryLimit?: string
  readonly reportReaderThreads?: number
  /**
   * Rows a detail export sorts per statement (REPORT_EXPORT_RANGE_ROWS): its memory is about
   * that many rows' CSV lines. Optional; absent, reports/export-ranges.ts RANGE_ROWS.
   */
  readonly reportExportRangeRows?: number
  /**
   * The key signing sign-in session cookies and CSRF tokens (SESSION_SECRET, or the file named
   * by SESSION_SECRET_FILE): at least 32 characters. Required in production; elsewhere, when
   * unset, the database row `app_secrets.session` (made once) stands in. Optional so that
   * configurations built in code need not name it.
   */
  readonly sessionSecret?: string
  /**
   * The AES-256 key sealing webhook secrets at rest (WEBHOOK_SECRET_KEY, or the file named by
   * WEBHOOK_SECRET_KEY_FILE): 64 hex digits. Required in production; elsewhere, when unset, the
   * database row `app_secrets.webhooks` stands in. Optional like `sessionSecret`.
   */
  readonly webhookSecretKey?: string
  /**
   * The Prometheus listener (METRICS_PORT, METRICS_HOST): `GET /metrics` on a port of its own,
   * never the API's. Absent (METRICS_PORT unset): no metrics listener. With several HTTP
   * processes (WEB_CONCURRENCY=N) process i listens on `metricsPort + i`.
   */
  readonly metricsPort?: number
  /** Interface of the metrics listener; 127.0.0.1 unless set (a container sets 0.0.0.0). */
  readonly metricsHost?: string
  /**
   * OTLP/HTTP export of traces, metrics and logs (OTEL_EXPORTER_OTLP_ENDPOINT, the collector's base
   * URL: `/v1/traces`, `/v1/metrics`, `/v1/logs` are added). Absent: nothing is exported and no
   * exporter is built (src/platform/telemetry.ts).
   */
  readonly otlpEndpoint?: string
  /** The `service.name` resource attribute (OTEL_SERVICE_NAME, default `studio-service`). */
  readonly otlpServiceName?: string
  /** Extra resource attributes (OTEL_RESOURCE_ATTRIBUTES, `key=value,key=value`). */
  readonly otlpResourceAttributes?: Record<string, string>
  /** How often buffered spans, logs and metrics are sent, in ms (default 5000; tests set it short). */
  readonly otlpExportIntervalMs?: number
  /** The share of traces begun here that are exported (OTEL_TRACES_SAMPLER_ARG, 0 to 1; default 1: all). */
  readonly otlpTraceSampleRatio?: number
}

/** Defaults of the optional body limits (AppConfigShape). */
export const DEFAULT_BODY_LIMIT_BYTES = 1024 * 1024
export const DEFAULT_OAUTH_BODY_LIMIT_BYTES = 64 * 1024

export class AppConfig extends Context.Service<AppConfig, AppConfigShape>()("studio/AppConfig") {}

/**
 * The scheme, host and port that links in mail use: PUBLIC_URL's scheme and port with the
 * business's subdomain (if any) before BASE_DOMAIN. Never a request header: a reset link must
 * not point wherever a requester's `X-Forwarded-Host` said.
 */
export const publicOrigin = (config: AppConfigShape, subdomain?: string): string => {
  const host = subdomain === undefined ? config.baseDomain : `${subdomain}.${config.baseDomain}`
  if (config.publicUrl !== undefined) {
    const url = new URL(config.publicUrl)
    return `${url.protocol}//${host}${url.port === "" ? "" : `:${url.port}`}`
  }
  if (config.production) return `https://${host}`
  // Development: `npm start`'s own port (tests listen on an ephemeral port 0 and name none).
  return `http://${host}${config.port === 80 || config.port === 0 ? "" : `:${config.port}`}`
}

/** PUBLIC_URL checked at start: an http(s) URL of BASE_DOMAIN itself, nothing but scheme, host and port. */
const checkPublicUrl = (value: string, baseDomain: string): string | undefined => {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return "PUBLIC_URL is not a URL"
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return "PUBLIC_URL must be an http or https URL"
  if (url.hostname !== baseDomain) return `PUBLIC_URL's host must be BASE_DOMAIN (${baseDomain}); business hosts are built from it`
  if ((url.pathname !== "/" && url.pathname !== "") || url.search !== "" || url.username !== "") return "PUBLIC_URL must name only a scheme, a host and a port"
  return undefined
}

/**
 * A start that cannot go on: its message is the one line `explainStartupFailure` (src/main.ts)
 * and the CLI print. A defect rather than a ConfigError so that the line is ours, whole.
 */
const refuseStart = (message: string) => Effect.die(new Error(message))

/**
 * A key from `NAME` or from the file `NAME_FILE` names (Docker and Kubernetes secrets), one
 * trailing newline dropped. In production it is required: there the database row, readable by
 * anyone with a copy of the database, must not be the key.
 */
const readKeySetting = (name: string, production: boolean, valid: (value: string) => boolean, rule: string) =>
  Effect.gen(function* () {
    const direct = Option.getOrUndefined(yield* Config.option(Config.String(name)))
    const file = Option.getOrUndefined(yield* Config.option(Config.String(`${name}_FILE`)))
    if (direct !== undefined && file !== undefined) return yield* refuseStart(`set ${name} or ${name}_FILE, not both`)
    let value = direct
    if (file !== undefined) {
      try {
        value = fs.readFileSync(file, "utf8").replace(/\r?\n$/, "")
      } catch (error) {
        return yield* refuseStart(`${name}_FILE: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? String(error)})`)
      }
    }
    if (value === undefined || value === "") {
      return production ? yield* refuseStart(`${name} (or ${name}_FILE) must be set when NODE_ENV=production: ${rule}`) : undefined
    }
    if (!valid(value)) return yield* refuseStart(`${name}${file !== undefined ? "_FILE" : ""} is not valid: ${rule}`)
    return value
  })

export const SESSION_SECRET_RULE = "at least 32 characters, e.g. the output of `openssl rand -hex 32`"
export const WEBHOOK_SECRET_KEY_RULE = "64 hex digits (32 bytes), e.g. the output of `openssl rand -hex 32`"

export const readAppConfig = Effect.gen(function* () {
  const dataDir = yield* Config.String("DATA_DIR").pipe(Config.withDefault(".data"))
  const baseDomain = (yield* Config.String("BASE_DOMAIN").pipe(Config.withDefault("localhost"))).toLowerCase()
  const trustProxy = parseTrustProxy(Option.getOrUndefined(yield* Config.option(Config.String("TRUST_PROXY"))))
  // A setting that cannot be read stops the start: a typo must not trust nobody, or everybody.
  if (trustProxy._tag === "Invalid") return yield* refuseStart(`TRUST_PROXY: "${trustProxy.entry}" is neither an address nor a CIDR range`)
  const publicUrl = Option.getOrUndefined(yield* Config.option(Config.String("PUBLIC_URL")))
  const publicUrlProblem = publicUrl === undefined ? undefined : checkPublicUrl(publicUrl, baseDomain)
  if (publicUrlProblem !== undefined) return yield* refuseStart(publicUrlProblem)
  const production = (yield* Config.String("NODE_ENV").pipe(Config.withDefault("development"))) === "production"
  return AppConfig.of({
    production,
    port: yield* Config.Port("PORT").pipe(Config.withDefault(3000)),
    host: yield* Config.String("HOST").pipe(Config.withDefault("0.0.0.0")),
    baseDomain,
    databaseUrl: yield* Config.option(Config.String("DATABASE_URL")),
    dataDir: path.resolve(dataDir),
    embeddedPostgresPort: yield* Config.Port("EMBEDDED_POSTGRES_PORT").pipe(Config.withDefault(54329)),
    rateLimitPerToken: yield* Config.Int("RATE_LIMIT_PER_TOKEN").pipe(Config.withDefault(180)),
    rateLimitPerIp: yield* Config.Int("RATE_LIMIT_PER_IP").pipe(Config.withDefault(360)),
    rateLimitWindowSeconds: yield* Config.Int("RATE_LIMIT_WINDOW_SECONDS").pipe(Config.withDefault(60)),
    rateLimitStore: yield* Config.Literals(["postgres", "memory"], "RATE_LIMIT_STORE").pipe(Config.withDefault("postgres" as const)),
    processes: yield* Config.Int("WEB_CONCURRENCY").pipe(Config.withDefault(1)),
    logLevel: yield* Config.String("LOG_LEVEL").pipe(Config.withDefault("info")),
    workerConcurrency: yield* Config.Int("WORKER_CONCURRENCY").pipe(Config.withDefault(4)),
    workerPollIntervalMs: yield* Config.Int("WORKER_POLL_INTERVAL_MS").pipe(Config.withDefault(1000)),
    smtpUrl: yield* Config.option(Config.String("SMTP_URL")),
    mailFrom: yield* Config.String("MAIL_FROM").pipe(Config.withDefault("Studio Service <no-reply@localhost>")),
    webhooksAllowPrivateTargets: yield* Config.Boolean("WEBHOOKS_ALLOW_PRIVATE_TARGETS").pipe(Config.withDefault(false)),
    reportRateLimit: yield* Config.Int("REPORT_RATE_LIMIT").pipe(Config.withDefault(60)),
    reportRefreshSeconds: yield* Config.Int("REPORT_REFRESH_SECONDS").pipe(Config.withDefault(30)),
    signingProvider: yield* Config.Literals(["sandbox", "remote"], "SIGNING_PROVIDER").pipe(Config.withDefault("sandbox" as const)),
    signingProviderUrl: Option.getOrUndefined(yield* Config.option(Config.String("SIGNING_PROVIDER_URL"))),
    signingProviderKey: Option.getOrUndefined(yield* Config.option(Config.String("SIGNING_PROVIDER_KEY"))),
    paymentGateway: yield* Config.Literals(["sandbox"], "PAYMENT_GATEWAY").pipe(Config.withDefault("sandbox" as const)),
    trustProxy,
    ...(publicUrl === undefined ? {} : { publicUrl }),
    signInMaxFailures: yield* Config.Int("SIGN_IN_MAX_FAILURES").pipe(Config.withDefault(10)),
    signInMaxFailuresPerIp: yield* Config.Int("SIGN_IN_MAX_FAILURES_PER_IP").pipe(Config.withDefault(30)),
    signInWindowSeconds: yield* Config.Int("SIGN_IN_WINDOW_SECONDS").pipe(Config.withDefault(900)),
    mailRequestsPerAddress: yield* Config.Int("MAIL_REQUESTS_PER_ADDRESS").pipe(Config.withDefault(3)),
    mailRequestsPerIp: yield* Config.Int("MAIL_REQUESTS_PER_IP").pipe(Config.withDefault(10)),
    bodyLimitBytes: yield* Config.Int("BODY_LIMIT_BYTES").pipe(Config.withDefault(DEFAULT_BODY_LIMIT_BYTES)),
    oauthBodyLimitBytes: yield* Config.Int("OAUTH_BODY_LIMIT_BYTES").pipe(Config.withDefault(DEFAULT_OAUTH_BODY_LIMIT_BYTES)),
    reportReaderMemoryLimit: Option.getOrUndefined(yield* Config.option(Config.String("REPORT_READER_MEMORY_LIMIT"))),
    reportReaderThreads: Option.getOrUndefined(yield* Config.option(Config.Int("REPORT_READER_THREADS"))),
    reportExportRangeRows: Option.getOrUndefined(yield* Config.option(Config.Int("REPORT_EXPORT_RANGE_ROWS"))),
    sessionSecret: yield* readKeySetting("SESSION_SECRET", production, (value) => value.length >= 32, SESSION_SECRET_RULE),
    ...Option.match(yield* Config.option(Config.Port("METRICS_PORT")), { onNone: () => ({}), onSome: (metricsPort) => ({ metricsPort }) }),
    metricsHost: yield* Config.String("METRICS_HOST").pipe(Config.withDefault("127.0.0.1")),
    ...Option.match(yield* Config.option(Config.String("OTEL_EXPORTER_OTLP_ENDPOINT")), {
      onNone: () => ({}),
      onSome: (endpoint) => (endpoint.trim() === "" ? {} : { otlpEndpoint: endpoint.trim() })
    }),
    otlpServiceName: yield* Config.String("OTEL_SERVICE_NAME").pipe(Config.withDefault("studio-service")),
    otlpResourceAttributes: parseResourceAttributes(yield* Config.String("OTEL_RESOURCE_ATTRIBUTES").pipe(Config.withDefault(""))),
    otlpTraceSampleRatio: Math.min(1, Math.max(0, yield* Config.Number("OTEL_TRACES_SAMPLER_ARG").pipe(Config.withDefault(1)))),
    webhookSecretKey: yield* readKeySetting("WEBHOOK_SECRET_KEY", production, (value) => /^[0-9a-fA-F]{64}$/.test(value), WEBHOOK_SECRET_KEY_RULE)
  })
})

/** `OTEL_RESOURCE_ATTRIBUTES`: `key=value` pairs separated by commas, values percent-encoded. */
export const parseResourceAttributes = (text: string): Record<string, string> => {
  const attributes: Record<string, string> = {}
  for (const pair of text.split(",")) {
    const at = pair.indexOf("=")
    if (at <= 0) continue
    const key = pair.slice(0, at).trim()
    let value = pair.slice(at + 1).trim()
    try {
      value = decodeURIComponent(value)
    } catch {
      // kept as written
    }
    if (key !== "") attributes[key] = value
  }
  return attributes
}

export const AppConfigLive = Layer.effect(AppConfig)(Effect.orDie(readAppConfig))
