import { Context, Effect, Option, Schema } from "effect"
import type { Locale } from "./locale.ts"

/** A business as every request sees it: resolved once per request from the Host header. */
export const BusinessRow = Schema.Struct({
  id: Schema.Number,
  subdomain: Schema.String,
  name: Schema.String,
  time_zone: Schema.String,
  currency_code: Schema.String,
  default_locale: Schema.String
})
export type BusinessRow = typeof BusinessRow.Type

/**
 * What the global middleware learns about a request before routing: its id, the host kind
 * and business, the locale, the raw credentials, and the absolute base URL for `next`/`prev`.
 */
export interface RequestContextShape {
  readonly requestId: string
  readonly locale: Locale
  /** None on the account-level host. */
  readonly business: Option.Option<BusinessRow>
  /** `https://demo.example.com`: scheme and host as the client addressed us. */
  readonly origin: string
  /** The path as the client sent it (with any `.json` suffix) and its query. */
  readonly originalUrl: string
  readonly accessToken: Option.Option<string>
  readonly clientId: Option.Option<string>
  /**
   * The client's IP address: the socket's peer, or behind a trusted proxy (TRUST_PROXY) the
   * right-most untrusted `X-Forwarded-For` entry. Keys the per-IP budgets.
   */
  readonly clientAddress: string
  /**
   * The template of the route that matched (`/api/v2/desk/visits/:id`), written by the router's
   * RouteTemplate middleware (src/platform/route-template.ts) once it found the route; the
   * request metrics' label. Undefined when no route matched.
   */
  route?: string
}

/**
 * A reference rather than a required service: the request pipeline provides it for every
 * request, and code that runs outside a request (jobs, the CLI) gets the neutral default
 * (English, no business) instead of a type-level requirement threaded through every layer.
 */
export const RequestContext = Context.Reference<RequestContextShape>("studio/RequestContext", {
  defaultValue: () => ({
    requestId: "none",
    locale: "en",
    business: Option.none(),
    origin: "http://localhost",
    originalUrl: "/",
    accessToken: Option.none(),
    clientId: Option.none(),
    clientAddress: "unknown"
  })
})

/**
 * The request context of a job acting for a business: a job has no request, so links use the
 * business's public host over https (production runs behind TLS) and messages the neutral
 * locale it started with.
 */
export const jobRequestContext = (business: BusinessRow, baseDomain: string) =>
  RequestContext.use((neutral) =>
    Effect.succeed({
      ...neutral,
      business: Option.some(business),
      origin: `https://${business.subdomain}.${baseDomain}`,
      originalUrl: "/"
    })
  )
