import { Clock, Context, Effect, Layer, Option, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { formatMoney } from "../shared/money.ts"
import { BusinessRow, RequestContext } from "../shared/request-context.ts"
import { localDateAt } from "../shared/zoned-time.ts"
import { CacheEvents, droppedOnChange } from "../platform/cache-events.ts"

/**
 * Tenancy by host (spec, common rule 1): `{subdomain}.{BASE_DOMAIN}` is a business host and
 * the bare `BASE_DOMAIN` the account-level host. Any other host is not ours.
 */
export type HostKind =
  | { readonly _tag: "Account" }
  | { readonly _tag: "Business"; readonly subdomain: string }
  | { readonly _tag: "Foreign"; readonly host: string }

export const classifyHost = (hostHeader: string | undefined, baseDomain: string): HostKind => {
  const host = (hostHeader ?? "").trim().toLowerCase().replace(/:\d+$/, "").replace(/\.$/, "")
  if (host === baseDomain) return { _tag: "Account" }
  const suffix = `.${baseDomain}`
  if (host.endsWith(suffix)) {
    const subdomain = host.slice(0, -suffix.length)
    if (/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/.test(subdomain)) return { _tag: "Business", subdomain }
  }
  return { _tag: "Foreign", host }
}

export class CurrentBusiness extends Context.Service<CurrentBusiness, BusinessRow>()("studio/CurrentBusiness") {}

/** Today in the current business's time zone (a `YYYY-MM-DD` calendar date), from Clock. */
export const businessToday = Effect.gen(function* () {
  const business = yield* CurrentBusiness
  return localDateAt(yield* Clock.currentTimeMillis, business.time_zone)
})

/** Money as the request reads it: integer cents formatted with `Intl` for the business's currency and the request's locale. */
export const businessMoney = Effect.gen(function* () {
  const business = yield* CurrentBusiness
  const { locale } = yield* RequestContext
  return (cents: number) => formatMoney(cents, business.currency_code, locale)
})

/**
 * Subdomain → business, read on every request, so answers are kept for a few seconds
 * (unknown subdomains are cached too, so probing random hosts cannot hammer the database).
 * A business created, changed or removed in any process empties the cache of every process at its
 * commit (src/platform/cache-events.ts); `TTL_MS` bounds it while the listener is away.
 */
export interface BusinessDirectoryShape {
  readonly bySubdomain: (subdomain: string) => Effect.Effect<Option.Option<BusinessRow>>
}
export class BusinessDirectory extends Context.Service<BusinessDirectory, BusinessDirectoryShape>()(
  "studio/BusinessDirectory"
) {}

const TTL_MS = 5_000

export const BusinessDirectoryLive = Layer.effect(BusinessDirectory)(
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    // Renames are rare and the old subdomain is not in the notification: any change drops every entry.
    const cache = droppedOnChange<string, Option.Option<BusinessRow>>(yield* CacheEvents, "business", TTL_MS)
    const businessRow = SqlSchema.findOneOption({
      Request: Schema.Struct({ subdomain: Schema.String }),
      Result: BusinessRow,
      execute: ({ subdomain }) =>
        sql`select id, subdomain, name, time_zone, currency_code, default_locale
            from businesses where subdomain = ${subdomain}`
    })
    const load = (subdomain: string) =>
      businessRow({ subdomain }).pipe(Effect.orDie, Effect.withSpan("BusinessDirectory.load"))
    return BusinessDirectory.of({
      // Every request passes here: no generator and no span on a cache hit (a span only in `load`).
      bySubdomain: (subdomain) => cache.get(subdomain, () => load(subdomain))
    })
  })
)
