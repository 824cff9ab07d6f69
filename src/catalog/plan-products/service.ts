import { Clock, Effect, Option } from "effect"
import { CurrentClient } from "../../access/access.ts"
import { CurrentBusiness } from "../../access/tenant.ts"
import { privateResponse } from "../../shared/cache-headers.ts"
import { formatMoney } from "../../shared/money.ts"
import { pageLinks, pageOf } from "../../shared/pagination.ts"
import { RequestContext } from "../../shared/request-context.ts"
import { formatTimestamp } from "../../shared/schemas.ts"
import { localDateAt } from "../../shared/zoned-time.ts"
import {
  type CatalogScope,
  type PlanProductDesk,
  type PlanProductFront,
  type PlanProductListQuery,
  type PlanProductRecord,
  typeOfKind
} from "./model.ts"
import { PlanProductsRepo } from "./repo.ts"
import { PlanProductRefusals } from "./refusals.ts"

/**
 * The catalog (spec: Plan products). Staff see every product not deleted, suspended included;
 * client mode sees what the caller may buy (PlanProductsRepo's visibility rule), so client
 * answers depend on the caller and are never cached across people.
 */
type Locale = Parameters<typeof formatMoney>[2]

export const toFrontWire = (record: PlanProductRecord, currency: string, locale: Locale): PlanProductFront => {
  const row = record.row
  return {
    id: row.id,
    name: row.name,
    type: typeOfKind[row.kind],
    description: row.description,
    description_long: row.description_long,
    price_cents: row.price_cents,
    price: formatMoney(row.price_cents, currency, locale),
    visibility: row.visibility,
    count: row.count,
    limit_period: row.limit_period,
    commitment_length: row.commitment_length,
    commitment_unit: row.commitment_unit,
    invoice_interval_count: row.invoice_interval_count,
    invoice_interval_unit: row.invoice_interval_unit,
    stop_renewing_after_commitment: row.stop_renewing_after_commitment,
    cancellation_fee_cents: row.cancellation_fee_cents,
    signup_fee_cents: row.signup_fee_cents,
    rollover_limit: row.rollover_limit,
    consider_member: row.consider_member,
    location_id: row.location_id,
    revenue_category:
      row.revenue_category_id === null ? null : { id: row.revenue_category_id, name: row.revenue_category_name ?? "" },
    sales_taxes: record.salesTaxes.map((tax) => ({ id: tax.id, name: tax.name, tax_rate: tax.tax_rate, inclusive: tax.inclusive })),
    services: record.services,
    staff_specific_pricing: row.staff_specific_pricing,
    staff_prices: record.staffPrices.map((price) => ({
      staff_member_id: price.staff_member_id,
      price_cents: price.price_cents,
      price: formatMoney(price.price_cents, currency, locale)
    })),
    terms: row.terms,
    terms_acceptance_required: row.terms_acceptance_required,
    terms_acceptance_type: row.terms_acceptance_type,
    terms_acceptance_at_checkout: row.terms_acceptance_at_checkout,
    send_expiration_notifications: row.send_expiration_notifications,
    created_at: formatTimestamp(row.created_at),
    updated_at: formatTimestamp(row.updated_at)
  }
}

export const toDeskWire = (record: PlanProductRecord, currency: string, locale: Locale): PlanProductDesk => ({
  ...toFrontWire(record, currency, locale),
  suspended: record.row.suspended
})

/** The client-mode scope: the token's person (or nobody on a `client_id` call) on the business's today. */
const clientScope = Effect.gen(function* () {
  yield* privateResponse
  const business = yield* CurrentBusiness
  const client = yield* CurrentClient
  const personId = Option.getOrNull(Option.flatMap(client.grant, (grant) => grant.personId))
  const today = localDateAt(yield* Clock.currentTimeMillis, business.time_zone)
  return { _tag: "Client", personId, today } satisfies CatalogScope
})

const staffScope: CatalogScope = { _tag: "Staff" }

const filterOf = (scope: CatalogScope, query: PlanProductListQuery) => ({
  scope,
  ...(query.location_ids === undefined ? {} : { locationIds: query.location_ids }),
  ...(query.service_ids === undefined ? {} : { serviceIds: query.service_ids })
})

const list = <A>(scope: CatalogScope, query: PlanProductListQuery, wire: (record: PlanProductRecord, currency: string, locale: Locale) => A) =>
  Effect.gen(function* () {
    const business = yield* CurrentBusiness
    const { locale } = yield* RequestContext
    const page = pageOf(query)
    const { records, total } = yield* (yield* PlanProductsRepo).list({ businessId: business.id, ...filterOf(scope, query), page })
    return { plan_products: records.map((record) => wire(record, business.currency_code, locale)), ...(yield* pageLinks(page, total)) }
  })

const get = <A>(scope: CatalogScope, id: number, wire: (record: PlanProductRecord, currency: string, locale: Locale) => A) =>
  Effect.gen(function* () {
    const business = yield* CurrentBusiness
    const { locale } = yield* RequestContext
    const record = yield* (yield* PlanProductsRepo).find({ businessId: business.id, scope, id })
    if (!record) return yield* PlanProductRefusals.planProductNotFound.fail({ id })
    return { plan_products: [wire(record, business.currency_code, locale)] }
  })

export const listFrontPlanProducts = Effect.fn("PlanProducts.frontList")(function* (query: PlanProductListQuery) {
  return yield* list(yield* clientScope, query, toFrontWire)
})

export const getFrontPlanProduct = Effect.fn("PlanProducts.frontGet")(function* (id: number) {
  return yield* get(yield* clientScope, id, toFrontWire)
})

export const listDeskPlanProducts = Effect.fn("PlanProducts.deskList")(function* (query: PlanProductListQuery) {
  return yield* list(staffScope, query, toDeskWire)
})

export const getDeskPlanProduct = Effect.fn("PlanProducts.deskGet")(function* (id: number) {
  return yield* get(staffScope, id, toDeskWire)
})
