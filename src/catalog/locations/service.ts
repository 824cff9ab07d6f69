import { Effect } from "effect"
import { CurrentBusiness } from "../../access/tenant.ts"
import { type Page, pageLinks, pageOf } from "../../shared/pagination.ts"
import { RequestContext } from "../../shared/request-context.ts"
import { friendlyTimeZone } from "../../shared/time-zones.ts"
import type { LocationDesk, LocationRow } from "./model.ts"
import { LocationRefusals } from "./refusals.ts"
import { LocationsRepo } from "./repo.ts"

/** Locations change rarely and every list fits one page for real studios: 100 per page by default. */
export const LOCATIONS_PER_PAGE = 100

const toWire = (row: LocationRow, locale: Parameters<typeof friendlyTimeZone>[1]): LocationDesk => ({
  id: row.id,
  name: row.name,
  address: row.address,
  latitude: row.latitude,
  longitude: row.longitude,
  phone: row.phone,
  description: row.description,
  timezone_friendly: friendlyTimeZone(row.time_zone, locale),
  timezone: row.time_zone,
  show_in_client_mode: row.show_in_client_mode,
  slug: row.slug
})

/** Front and desk differ only in visibility; the response schema of each mode drops desk fields. */
export const listLocations = Effect.fn("Locations.list")(function* (
  query: { readonly page?: number | undefined; readonly per_page?: number | undefined },
  options: { readonly clientVisibleOnly: boolean }
) {
  const business = yield* CurrentBusiness
  const { locale } = yield* RequestContext
  const page: Page = pageOf(query, LOCATIONS_PER_PAGE)
  const { rows, total } = yield* (yield* LocationsRepo).list({ businessId: business.id, page, clientVisibleOnly: options.clientVisibleOnly })
  return { locations: rows.map((row) => toWire(row, locale)), ...(yield* pageLinks(page, total)) }
})

export const getLocation = Effect.fn("Locations.get")(function* (id: number, options: { readonly clientVisibleOnly: boolean }) {
  const business = yield* CurrentBusiness
  const { locale } = yield* RequestContext
  const row = yield* (yield* LocationsRepo).find({ businessId: business.id, id, clientVisibleOnly: options.clientVisibleOnly })
  if (!row) return yield* LocationRefusals.locationNotFound.fail({ id })
  return { locations: [toWire(row, locale)] }
})
