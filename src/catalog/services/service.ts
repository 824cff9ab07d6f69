import { Effect } from "effect"
import { CurrentBusiness } from "../../access/tenant.ts"
import { formatMoney } from "../../shared/money.ts"
import { type Page, pageLinks, pageOf } from "../../shared/pagination.ts"
import { RequestContext } from "../../shared/request-context.ts"
import { formatTimestamp } from "../../shared/schemas.ts"
import { type CategoryRow, type ServiceCategory, type ServiceDesk, type ServiceRow, SLOT_STEP_MINUTES } from "./model.ts"
import { frontCaller } from "./callers.ts"
import { type ServiceScope, ServicesRepo } from "./repo.ts"
import { ServiceRefusals } from "./refusals.ts"

/** Services are few and change rarely: one page of 100 holds a real studio's catalog. */
export const SERVICES_PER_PAGE = 100

type Locale = Parameters<typeof formatMoney>[2]

/** No sales taxes are configured yet, so a single visit carries none. */
const pricingOf = (row: ServiceRow, currency: string, locale: Locale): ServiceDesk["pricing"] => {
  const cents = row.drop_in_price_cents
  const price = cents === null ? null : formatMoney(cents, currency, locale)
  return {
    drop_in_price_cents: cents,
    drop_in_price: price,
    number_of_free_visits: row.number_of_free_visits,
    single_visit:
      cents === null || price === null
        ? null
        : { base_price: { currency_iso: currency, price_cents: cents, price_string: price }, taxes: [] }
  }
}

const toWire = (row: ServiceRow, currency: string, locale: Locale): ServiceDesk => ({
  id: row.id,
  name: row.name,
  type: row.type,
  position: row.position,
  description: row.description,
  description_short: row.description_short,
  instructions: row.instructions,
  duration_in_minutes: row.duration_in_minutes,
  enrollment_window_blackout_minutes: row.enrollment_window_blackout_minutes,
  free_cancellation_window_in_hours: row.free_cancellation_window_in_hours,
  clients_can_book: row.clients_can_book,
  members_can_book: row.members_can_book,
  require_cc: row.require_cc,
  require_plan: row.require_plan,
  maximum_clients: row.maximum_clients,
  calendar_color: row.calendar_color,
  category_id: row.category_id,
  category_name: row.category_name,
  pricing: pricingOf(row, currency, locale),
  visibility: row.visibility,
  hidden: row.hidden_at !== null,
  hidden_at: row.hidden_at === null ? null : formatTimestamp(row.hidden_at),
  visitors_can_view: row.visibility === "Everyone",
  clients_can_view: row.visibility === "Everyone",
  members_can_view: row.visibility !== "Staff",
  anonymous_staff: row.anonymous_staff,
  snap_duration_in_minutes: row.type === "Appointment" ? SLOT_STEP_MINUTES : null,
  setup_duration_in_minutes: 0,
  cleanup_duration_in_minutes: 0,
  show_capacity_to_clients: row.show_capacity_to_clients,
  show_rooms_to_clients: row.show_rooms_to_clients,
  allow_tips: row.allow_tips,
  no_merchandise_price: row.no_merchandise_price,
  supports_single_payer: row.supports_single_payer,
  online_booking: row.online_booking,
  client_purchase_disabled: row.client_purchase_disabled,
  booking_window_days: row.booking_window_days,
  staff_member_ids: row.staff_member_ids,
  created_at: formatTimestamp(row.created_at),
  updated_at: formatTimestamp(row.updated_at)
})

const categoryWire = (row: CategoryRow): ServiceCategory => ({
  id: row.id,
  name: row.name,
  position: row.position,
  description: row.description,
  description_short: row.description_short
})

const wire = Effect.fn("Services.wire")(function* (rows: ReadonlyArray<ServiceRow>) {
  const business = yield* CurrentBusiness
  const { locale } = yield* RequestContext
  return rows.map((row) => toWire(row, business.currency_code, locale))
})

const list = Effect.fn("Services.list")(function* (
  query: { readonly page?: number | undefined; readonly per_page?: number | undefined },
  scope: ServiceScope
) {
  const business = yield* CurrentBusiness
  const repo = yield* ServicesRepo
  const page: Page = pageOf(query, SERVICES_PER_PAGE)
  const { rows, total } = yield* repo.list({ businessId: business.id, scope, page })
  const categoryIds = [...new Set(rows.flatMap((row) => (row.category_id === null ? [] : [row.category_id])))]
  const categories = yield* repo.categories({ businessId: business.id, ids: categoryIds })
  return {
    services: yield* wire(rows),
    categories: categories.map(categoryWire),
    ...(yield* pageLinks(page, total))
  }
})

/** A service in scope, or the 404 naming it. */
export const findService = Effect.fn("Services.find")(function* (id: number, scope: ServiceScope) {
  const business = yield* CurrentBusiness
  const [row] = yield* (yield* ServicesRepo).findMany({ businessId: business.id, ids: [id], scope })
  if (!row) return yield* ServiceRefusals.serviceNotFound.fail({ id })
  return row
})

export const listFrontServices = Effect.fn("Services.frontList")(function* (query: {
  readonly page?: number | undefined
  readonly per_page?: number | undefined
}) {
  return yield* list(query, yield* frontCaller)
})

/**
 * Client mode's `:id` answers an object under the root key, not a one-item array: the
 * public API does so and its clients rely on it (compatibility notes, docs/decisions.md).
 */
export const getFrontService = Effect.fn("Services.frontGet")(function* (id: number) {
  const row = yield* findService(id, yield* frontCaller)
  return { services: (yield* wire([row]))[0]! }
})

export const listDeskServices = Effect.fn("Services.deskList")(function* (query: {
  readonly page?: number | undefined
  readonly per_page?: number | undefined
  readonly include_hidden?: boolean | undefined
}) {
  return yield* list(query, { _tag: "Staff", includeHidden: query.include_hidden === true })
})

export const getDeskService = Effect.fn("Services.deskGet")(function* (id: number) {
  const row = yield* findService(id, { _tag: "Staff", includeHidden: true })
  return { services: yield* wire([row]) }
})
