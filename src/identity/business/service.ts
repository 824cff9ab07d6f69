import { Effect } from "effect"
import { CurrentBusiness } from "../../access/tenant.ts"
import { pageLinks, pageOf } from "../../shared/pagination.ts"
import { BRAND_COLOR_KEYS, type Branding } from "./model.ts"
import { BusinessRepo } from "./repo.ts"
import { BusinessRefusals } from "./refusals.ts"

/** Franchise lists are short; like locations they come 100 to a page by default. */
export const FRANCHISEES_PER_PAGE = 100

export const getBusiness = Effect.fn("Business.get")(function* () {
  const business = yield* CurrentBusiness
  const row = yield* (yield* BusinessRepo).find({ businessId: business.id })
  if (!row) return yield* BusinessRefusals.businessNotFound.fail()
  return { businesses: [row] }
})

export const listFranchisees = Effect.fn("Business.franchisees")(function* (query: {
  readonly page?: number | undefined
  readonly per_page?: number | undefined
}) {
  const business = yield* CurrentBusiness
  const page = pageOf(query, FRANCHISEES_PER_PAGE)
  const { rows, total } = yield* (yield* BusinessRepo).franchisees({ businessId: business.id, page })
  // The root key is the pluralized resource name (core-api-part1), not the records' kind.
  return { franchisees: rows, ...(yield* pageLinks(page, total)) }
})

const colorOf = (colors: Readonly<Record<string, unknown>>, key: string): string | null => {
  const value = colors[key]
  return typeof value === "string" ? value : null
}

/**
 * Logos are stored once, full size; the sized variants are the same image with a `size`
 * hint for an image proxy or CDN in front of the service.
 */
const sized = (url: string | null, size: string) => (url === null ? null : `${url}${url.includes("?") ? "&" : "?"}size=${size}`)

export const getBranding = Effect.fn("Business.branding")(function* () {
  const business = yield* CurrentBusiness
  const row = yield* (yield* BusinessRepo).branding({ businessId: business.id })
  if (!row) return yield* BusinessRefusals.businessNotFound.fail()
  const colors = Object.fromEntries(BRAND_COLOR_KEYS.map((key) => [key, colorOf(row.brand_colors, key)])) as Branding["colors"]
  return {
    colors,
    logo: {
      x50: sized(row.logo_url, "50x50"),
      x50_2x: sized(row.logo_url, "100x100"),
      x75: sized(row.logo_url, "75x75"),
      x75_2x: sized(row.logo_url, "150x150"),
      full: row.logo_url
    },
    cover_photo: { full: row.cover_photo_url }
  } satisfies Branding
})
