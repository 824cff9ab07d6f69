import { Option } from "effect"
import { type AppConfigShape, publicOrigin } from "../../platform/config.ts"

/**
 * Whether `given` is the application's redirect URI for this authorization request. Most
 * applications register one absolute URI, compared exactly (RFC 6749 section 3.1.2). A
 * registered path (`/reports`, the first-party reports playground) names that page on the
 * business host the authorization runs on: one registration serves every business, and the
 * code can only go to a page of ours on the very host that issued it. The host is the one the
 * request pipeline resolved (X-Forwarded-Host only from TRUST_PROXY's proxies), or the business's
 * public address built from PUBLIC_URL; on the account-level host such an application has no page.
 */
export const redirectAccepted = (
  registered: string,
  given: string | undefined,
  request: { readonly origin: string; readonly business: Option.Option<{ readonly subdomain: string }> },
  config: AppConfigShape
): boolean => {
  if (given === undefined || given === "") return false
  if (!registered.startsWith("/")) return given === registered
  if (Option.isNone(request.business)) return false
  return given === `${request.origin}${registered}` || given === `${publicOrigin(config, request.business.value.subdomain)}${registered}`
}
