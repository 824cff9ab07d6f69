import { Effect, Schema } from "effect"
import { PLAN_PRODUCT_KINDS, TERMS_ACCEPTANCE_TYPES, VISIBILITIES } from "../../catalog/plan-products/model.ts"
import { OptionalText, Text } from "./fields.ts"
import { ImportRepo } from "./repo.ts"

/**
 * The catalog part of the import format: revenue categories, sales taxes (and the locations
 * they apply at) and plan products of every kind. Records refer to each other as the rest of
 * the document does: locations and services by key, staff by e-mail, revenue categories and
 * sales taxes by name (unique in a business).
 */

const Key = Schema.String.check(Schema.isPattern(/^[A-Za-z0-9_.:-]{1,100}$/u, { message: "must be 1-100 letters, digits, or _ . : -" }))
const Count = (min: number, max: number) =>
  Schema.Int.check(Schema.isBetween({ minimum: min, maximum: max }, { message: `must be an integer from ${min} to ${max}` }))
const Cents = Count(0, 100_000_000).annotate({ description: "Integer cents of the business currency" })
const TaxRate = Schema.Number.check(
  Schema.makeFilter((n: number) => (n >= 0 && n < 100 && Math.abs(Math.round(n * 10_000) - n * 10_000) < 1e-6) || "must be a percentage from 0 to below 100, at most four decimals")
).annotate({ description: "Percent: 8.875 is 8.875 %" })

export const ImportRevenueCategory = Schema.Struct({
  name: Text(200).annotate({ description: "Unique in the business; plan products refer to the category by it" })
}).annotate({ identifier: "ImportRevenueCategory" })

export const ImportSalesTax = Schema.Struct({
  name: Text(200).annotate({ description: "Unique in the business; plan products refer to the tax by it" }),
  tax_rate: TaxRate,
  inclusive: Schema.optionalKey(Schema.Boolean.annotate({ description: "Prices already contain the tax (default false)" })),
  locations: Schema.optionalKey(
    Schema.Array(
      Schema.Struct({
        location: Key.annotate({ description: "Key of the location" }),
        tax_rate: Schema.optionalKey(TaxRate.annotate({ description: "The rate there, when it differs" }))
      })
    ).annotate({ description: "Where the tax applies; absent: everywhere" })
  )
}).annotate({ identifier: "ImportSalesTax" })

export const ImportPlanProduct = Schema.Struct({
  kind: Schema.Literals(PLAN_PRODUCT_KINDS).annotate({
    description: "membership (recurring), prepaid (paid once for a term), pack (count visits), single_visit_pass (one visit)"
  }),
  name: Text(200),
  description: Schema.optionalKey(OptionalText(5000)),
  description_long: Schema.optionalKey(OptionalText(50000)),
  price_cents: Cents,
  visibility: Schema.optionalKey(Schema.Literals(VISIBILITIES).annotate({ description: "Default Everyone" })),
  suspended: Schema.optionalKey(Schema.Boolean),
  count: Schema.optionalKey(
    Count(1, 100_000).annotate({ description: "Visits (packs: required; single-visit passes: 1). Memberships: absent is unlimited" })
  ),
  limit_period: Schema.optionalKey(Schema.Literals(["week", "month", "year"]).annotate({ description: "Memberships and prepaid: count per period" })),
  commitment_length: Schema.optionalKey(Count(1, 1000)),
  commitment_unit: Schema.optionalKey(Schema.Literals(["day", "week", "month", "year"])),
  invoice_interval_count: Schema.optionalKey(Count(1, 100).annotate({ description: "Memberships; default 1" })),
  invoice_interval_unit: Schema.optionalKey(Schema.Literals(["weekly", "monthly", "yearly"]).annotate({ description: "Memberships: required" })),
  stop_renewing_after_commitment: Schema.optionalKey(Schema.Boolean),
  cancellation_fee_cents: Schema.optionalKey(Cents),
  signup_fee_cents: Schema.optionalKey(Cents),
  rollover_limit: Schema.optionalKey(Count(0, 100_000)),
  location: Schema.optionalKey(Key.annotate({ description: "Key of the only location it is usable at" })),
  consider_member: Schema.optionalKey(Schema.Boolean.annotate({ description: "Default false" })),
  revenue_category: Schema.optionalKey(Text(200).annotate({ description: "Name of a revenue category of the document" })),
  sales_taxes: Schema.optionalKey(Schema.Array(Text(200)).annotate({ description: "Names of sales taxes of the document" })),
  services: Schema.optionalKey(Schema.Array(Key).annotate({ description: "Keys of the services clients may use it with; absent or empty: every service" })),
  staff_prices: Schema.optionalKey(
    Schema.Array(Schema.Struct({ staff: Schema.String.annotate({ description: "E-mail of a staff member of the document" }), price_cents: Cents })).annotate({
      description: "Staff-specific pricing: the price when sold for that staff member"
    })
  ),
  terms: Schema.optionalKey(OptionalText(100000)),
  terms_acceptance_required: Schema.optionalKey(Schema.Boolean),
  terms_acceptance_type: Schema.optionalKey(Schema.Literals(TERMS_ACCEPTANCE_TYPES)),
  terms_acceptance_at_checkout: Schema.optionalKey(Schema.Boolean),
  send_expiration_notifications: Schema.optionalKey(Schema.Boolean.annotate({ description: "Default true" }))
}).annotate({ identifier: "ImportPlanProduct" })
export type ImportPlanProduct = typeof ImportPlanProduct.Type

interface CatalogDocument {
  readonly locations?: ReadonlyArray<{ readonly key: string }>
  readonly services?: ReadonlyArray<{ readonly key: string }>
  readonly staff?: ReadonlyArray<{ readonly email: string }>
  readonly revenue_categories?: ReadonlyArray<typeof ImportRevenueCategory.Type>
  readonly sales_taxes?: ReadonlyArray<typeof ImportSalesTax.Type>
  readonly plan_products?: ReadonlyArray<ImportPlanProduct>
}
type Problem = { readonly path: ReadonlyArray<PropertyKey>; readonly issue: string }

/** References resolve, names are unique, and each kind has what it needs (the table's checks, with a path). */
export const catalogProblems = (doc: CatalogDocument): ReadonlyArray<Problem> => {
  const problems: Array<Problem> = []
  const unique = (items: ReadonlyArray<{ readonly name: string }>, root: string) => {
    const seen = new Set<string>()
    items.forEach((item, i) => {
      const name = item.name.trim()
      if (seen.has(name)) problems.push({ path: [root, i, "name"], issue: `name "${name}" is used twice` })
      seen.add(name)
    })
    return seen
  }
  const categories = unique(doc.revenue_categories ?? [], "revenue_categories")
  const taxes = unique(doc.sales_taxes ?? [], "sales_taxes")
  const locations = new Set((doc.locations ?? []).map((l) => l.key))
  const services = new Set((doc.services ?? []).map((s) => s.key))
  const staff = new Set((doc.staff ?? []).map((s) => s.email.toLowerCase()))
  ;(doc.sales_taxes ?? []).forEach((tax, i) =>
    (tax.locations ?? []).forEach((at, j) => {
      if (!locations.has(at.location)) problems.push({ path: ["sales_taxes", i, "locations", j, "location"], issue: `no location with key "${at.location}" in this document` })
    })
  )
  ;(doc.plan_products ?? []).forEach((product, i) => {
    const at = (...rest: Array<PropertyKey>) => ["plan_products", i, ...rest]
    const packLike = product.kind === "pack" || product.kind === "single_visit_pass"
    if (product.kind === "pack" && product.count === undefined) problems.push({ path: at("count"), issue: "a pack needs a count" })
    if (product.kind === "single_visit_pass" && product.count !== undefined && product.count !== 1) {
      problems.push({ path: at("count"), issue: "a single-visit pass has a count of 1" })
    }
    if (packLike && product.limit_period !== undefined) problems.push({ path: at("limit_period"), issue: `a ${product.kind} has no limit period` })
    if (product.kind === "membership" && product.invoice_interval_unit === undefined) {
      problems.push({ path: at("invoice_interval_unit"), issue: "a membership needs an invoice interval" })
    }
    if (product.kind !== "membership" && (product.invoice_interval_unit !== undefined || product.invoice_interval_count !== undefined)) {
      problems.push({ path: at("invoice_interval_unit"), issue: "only memberships are invoiced at intervals" })
    }
    if ((product.commitment_length === undefined) !== (product.commitment_unit === undefined)) {
      problems.push({ path: at(product.commitment_length === undefined ? "commitment_length" : "commitment_unit"), issue: "commitment_length and commitment_unit go together" })
    }
    if (product.location !== undefined && !locations.has(product.location)) {
      problems.push({ path: at("location"), issue: `no location with key "${product.location}" in this document` })
    }
    if (product.revenue_category !== undefined && !categories.has(product.revenue_category.trim())) {
      problems.push({ path: at("revenue_category"), issue: `no revenue category named "${product.revenue_category}" in this document` })
    }
    ;(product.sales_taxes ?? []).forEach((name, j) => {
      if (!taxes.has(name.trim())) problems.push({ path: at("sales_taxes", j), issue: `no sales tax named "${name}" in this document` })
    })
    ;(product.services ?? []).forEach((key, j) => {
      if (!services.has(key)) problems.push({ path: at("services", j), issue: `no service with key "${key}" in this document` })
    })
    ;(product.staff_prices ?? []).forEach((price, j) => {
      if (!staff.has(price.staff.toLowerCase())) problems.push({ path: at("staff_prices", j, "staff"), issue: `no staff member with e-mail ${price.staff} in this document` })
    })
  })
  return problems
}

export interface CatalogCounts {
  readonly revenue_categories: number
  readonly sales_taxes: number
  readonly plan_products: number
}

/** Writes the catalog of a document already checked, on the import's transaction. */
export const writeCatalog = Effect.fn("Import.writeCatalog")(function* (
  doc: CatalogDocument,
  context: {
    readonly businessId: number
    readonly locationIds: ReadonlyMap<string, number>
    readonly serviceIds: ReadonlyMap<string, number>
    readonly staffId: (email: string) => number
  }
) {
  const repo = yield* ImportRepo
  const { businessId } = context
  const categories = doc.revenue_categories ?? []
  const categoryIds = yield* repo.insertRevenueCategories(categories.map((c) => ({ business_id: businessId, name: c.name.trim() })))
  const taxes = doc.sales_taxes ?? []
  const taxIds = yield* repo.insertSalesTaxes(
    taxes.map((tax) => ({ business_id: businessId, name: tax.name.trim(), tax_rate: tax.tax_rate, inclusive: tax.inclusive ?? false }))
  )
  yield* repo.insertCatalogLinks({
    table: "sales_tax_locations",
    rows: taxes.flatMap((tax) =>
      (tax.locations ?? []).map((at) => ({
        business_id: businessId,
        sales_tax_id: taxIds.get(tax.name.trim())!,
        location_id: context.locationIds.get(at.location)!,
        tax_rate: at.tax_rate ?? null
      }))
    )
  })
  const products = doc.plan_products ?? []
  for (const product of products) {
    const id = yield* repo.insertPlanProduct({
      business_id: businessId,
      kind: product.kind,
      name: product.name.trim(),
      description: product.description?.trim() || null,
      description_long: product.description_long?.trim() || null,
      price_cents: product.price_cents,
      visibility: product.visibility ?? "Everyone",
      suspended: product.suspended ?? false,
      count: product.kind === "single_visit_pass" ? 1 : (product.count ?? null),
      limit_period: product.limit_period ?? null,
      commitment_length: product.commitment_length ?? null,
      commitment_unit: product.commitment_unit ?? null,
      invoice_interval_count: product.invoice_interval_unit === undefined ? null : (product.invoice_interval_count ?? 1),
      invoice_interval_unit: product.invoice_interval_unit ?? null,
      stop_renewing_after_commitment: product.stop_renewing_after_commitment ?? false,
      cancellation_fee_cents: product.cancellation_fee_cents ?? null,
      signup_fee_cents: product.signup_fee_cents ?? null,
      rollover_limit: product.rollover_limit ?? null,
      staff_specific_pricing: (product.staff_prices ?? []).length > 0,
      location_id: product.location === undefined ? null : context.locationIds.get(product.location)!,
      consider_member: product.consider_member ?? false,
      revenue_category_id: product.revenue_category === undefined ? null : categoryIds.get(product.revenue_category.trim())!,
      terms: product.terms?.trim() || null,
      terms_acceptance_required: product.terms_acceptance_required ?? false,
      terms_acceptance_type: product.terms_acceptance_type ?? "checkbox",
      terms_acceptance_at_checkout: product.terms_acceptance_at_checkout ?? false,
      send_expiration_notifications: product.send_expiration_notifications ?? true
    })
    const link = { business_id: businessId, plan_product_id: id }
    yield* repo.insertCatalogLinks({
      table: "plan_product_services",
      rows: [...new Set(product.services ?? [])].map((key) => ({ ...link, service_id: context.serviceIds.get(key)! }))
    })
    yield* repo.insertCatalogLinks({
      table: "plan_product_sales_taxes",
      rows: [...new Set((product.sales_taxes ?? []).map((name) => name.trim()))].map((name) => ({ ...link, sales_tax_id: taxIds.get(name)! }))
    })
    const prices = new Map((product.staff_prices ?? []).map((price) => [context.staffId(price.staff), price.price_cents]))
    yield* repo.insertCatalogLinks({
      table: "plan_product_staff_prices",
      rows: [...prices].map(([staffMemberId, cents]) => ({ ...link, staff_member_id: staffMemberId, price_cents: cents }))
    })
  }
  return { revenue_categories: categories.length, sales_taxes: taxes.length, plan_products: products.length } satisfies CatalogCounts
})
