import { Context, Option } from "effect"
import type { Locale } from "./locale.ts"

/** A business as every request sees it: resolved once per request from the Host header. */
export interface BusinessRow {
  readonly id: number
  readonly subdomain: string
  readonly name: string
  readonly time_zone: string
  readonly currency_code: string
  readonly default_locale: string
}

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
}

export class RequestContext extends Context.Service<RequestContext, RequestContextShape>()("studio/RequestContext") {}
