import { Schema } from "effect"
import { Cents, FormattedMoney } from "../../shared/money.ts"
import { PageFields, PageQuery } from "../../shared/pagination.ts"
import { IdListFromString, Timestamp } from "../../shared/schemas.ts"

/**
 * Plan products: the catalog of what a business sells as plans (spec: Plan products; the record
 * is not shown, so it is ours: docs/decisions.md). One `plan_products` row per product, whatever
 * its kind; a pack product (pack-products/) is a plan product of kind `pack`.
 */
export const PLAN_PRODUCT_KINDS = ["membership", "prepaid", "pack", "single_visit_pass"] as const
export type PlanProductKind = (typeof PLAN_PRODUCT_KINDS)[number]

/** The public `type` of each kind: what an integrator filters on. */
export const PLAN_PRODUCT_TYPES = ["Membership", "Prepaid", "Pack", "SingleVisitPass"] as const
export const typeOfKind: Record<PlanProductKind, (typeof PLAN_PRODUCT_TYPES)[number]> = {
  membership: "Membership",
  prepaid: "Prepaid",
  pack: "Pack",
  single_visit_pass: "SingleVisitPass"
}

export const VISIBILITIES = ["Everyone", "Members", "Staff", "New clients"] as const
export type Visibility = (typeof VISIBILITIES)[number]
export const COMMITMENT_UNITS = ["day", "week", "month", "year"] as const
export const TERMS_ACCEPTANCE_TYPES = ["checkbox", "document"] as const

const Named = Schema.Struct({ id: Schema.Int, name: Schema.String })

export const PlanProductSalesTax = Schema.Struct({
  id: Schema.Int,
  name: Schema.String,
  tax_rate: Schema.Number.annotate({ description: "Percent (8.875 is 8.875 %)" }),
  inclusive: Schema.Boolean
}).annotate({ identifier: "PlanProductSalesTax" })

export const PlanProductStaffPrice = Schema.Struct({
  staff_member_id: Schema.Int,
  price_cents: Cents,
  price: FormattedMoney
}).annotate({ identifier: "PlanProductStaffPrice", description: "The price when sold for this staff member (staff-specific pricing)" })

const NullableInt = Schema.NullOr(Schema.Int)

/** The terms a product's plans are sold under, their expiration notices and the product's timestamps (pack products' too). */
export const termsAndTimestamps = {
  terms: Schema.NullOr(Schema.String),
  terms_acceptance_required: Schema.Boolean,
  terms_acceptance_type: Schema.Literals(TERMS_ACCEPTANCE_TYPES),
  terms_acceptance_at_checkout: Schema.Boolean,
  send_expiration_notifications: Schema.Boolean,
  created_at: Timestamp,
  updated_at: Timestamp
}

const planProductFields = {
  id: Schema.Int,
  name: Schema.String,
  type: Schema.Literals(PLAN_PRODUCT_TYPES).annotate({
    description:
      "Membership (recurring), Prepaid (paid once for a term), Pack (a number of visits), SingleVisitPass (a one-visit pack). " +
      "A sale creates a plan of type Membership, Prepaid or Pack (a single-visit pass sells a Pack)"
  }),
  description: Schema.NullOr(Schema.String),
  description_long: Schema.NullOr(Schema.String),
  price_cents: Cents,
  price: FormattedMoney,
  visibility: Schema.Literals(VISIBILITIES).annotate({ description: "Who may buy it in client mode" }),
  count: NullableInt.annotate({ description: "Visits; null: unlimited. With limit_period: visits per period" }),
  limit_period: Schema.NullOr(Schema.Literals(["week", "month", "year"])),
  commitment_length: NullableInt.annotate({ description: "With commitment_unit: how long a sold plan runs (packs: validity)" }),
  commitment_unit: Schema.NullOr(Schema.Literals(COMMITMENT_UNITS)),
  invoice_interval_count: NullableInt.annotate({ description: "Memberships: invoiced every count units" }),
  invoice_interval_unit: Schema.NullOr(Schema.Literals(["weekly", "monthly", "yearly"])),
  stop_renewing_after_commitment: Schema.Boolean,
  cancellation_fee_cents: Schema.NullOr(Cents),
  signup_fee_cents: Schema.NullOr(Cents),
  rollover_limit: NullableInt.annotate({ description: "Unused visits a renewal carries into the next period; null: none" }),
  consider_member: Schema.Boolean.annotate({ description: "Holding a current plan of this product makes a person a member" }),
  location_id: NullableInt.annotate({ description: "Only visits at this location; null: any" }),
  revenue_category: Schema.NullOr(Named),
  sales_taxes: Schema.Array(PlanProductSalesTax),
  services: Schema.Array(Named).annotate({ description: "Services clients may use it with; empty: every service" }),
  staff_specific_pricing: Schema.Boolean,
  staff_prices: Schema.Array(PlanProductStaffPrice),
  ...termsAndTimestamps
}

/** Client mode: what a buyer needs (`suspended` is always false there, so it is left out). */
export const PlanProductFront = Schema.Struct(planProductFields).annotate({ identifier: "PlanProductFront" })
export type PlanProductFront = typeof PlanProductFront.Type
export const PlanProductDesk = Schema.Struct({
  ...planProductFields,
  suspended: Schema.Boolean.annotate({ description: "Cannot be sold while true" })
}).annotate({ identifier: "PlanProductDesk" })
export type PlanProductDesk = typeof PlanProductDesk.Type

export const PlanProductRow = Schema.Struct({
  id: Schema.Number,
  kind: Schema.Literals(PLAN_PRODUCT_KINDS),
  name: Schema.String,
  description: Schema.NullOr(Schema.String),
  description_long: Schema.NullOr(Schema.String),
  price_cents: Schema.Number,
  visibility: Schema.Literals(VISIBILITIES),
  suspended: Schema.Boolean,
  count: Schema.NullOr(Schema.Number),
  limit_period: Schema.NullOr(Schema.Literals(["week", "month", "year"])),
  commitment_length: Schema.NullOr(Schema.Number),
  commitment_unit: Schema.NullOr(Schema.Literals(COMMITMENT_UNITS)),
  invoice_interval_count: Schema.NullOr(Schema.Number),
  invoice_interval_unit: Schema.NullOr(Schema.Literals(["weekly", "monthly", "yearly"])),
  stop_renewing_after_commitment: Schema.Boolean,
  cancellation_fee_cents: Schema.NullOr(Schema.Number),
  signup_fee_cents: Schema.NullOr(Schema.Number),
  rollover_limit: Schema.NullOr(Schema.Number),
  staff_specific_pricing: Schema.Boolean,
  location_id: Schema.NullOr(Schema.Number),
  consider_member: Schema.Boolean,
  revenue_category_id: Schema.NullOr(Schema.Number),
  revenue_category_name: Schema.NullOr(Schema.String),
  terms: Schema.NullOr(Schema.String),
  terms_acceptance_required: Schema.Boolean,
  terms_acceptance_type: Schema.Literals(TERMS_ACCEPTANCE_TYPES),
  terms_acceptance_at_checkout: Schema.Boolean,
  send_expiration_notifications: Schema.Boolean,
  created_at: Schema.Date,
  updated_at: Schema.Date
})
export type PlanProductRow = typeof PlanProductRow.Type

export const ProductServiceRow = Schema.Struct({ plan_product_id: Schema.Number, id: Schema.Number, name: Schema.String })
export const ProductSalesTaxRow = Schema.Struct({
  plan_product_id: Schema.Number,
  id: Schema.Number,
  name: Schema.String,
  tax_rate: Schema.Number,
  inclusive: Schema.Boolean
})
export const ProductStaffPriceRow = Schema.Struct({ plan_product_id: Schema.Number, staff_member_id: Schema.Number, price_cents: Schema.Number })

/** A product with what hangs off it, as the repo reads it. */
export interface PlanProductRecord {
  readonly row: PlanProductRow
  readonly services: ReadonlyArray<{ readonly id: number; readonly name: string }>
  readonly salesTaxes: ReadonlyArray<typeof ProductSalesTaxRow.Type>
  readonly staffPrices: ReadonlyArray<typeof ProductStaffPriceRow.Type>
}

/** Who reads the catalog: staff see everything not deleted; a client what they may buy. */
export type CatalogScope =
  | { readonly _tag: "Staff" }
  | { readonly _tag: "Client"; readonly personId: number | null; readonly today: string }

export const PlanProductListQuery = Schema.Struct({
  ...PageQuery,
  location_ids: Schema.optional(
    IdListFromString.annotate({ description: "Only products usable at one of these locations (or at any location)" })
  ),
  service_ids: Schema.optional(
    IdListFromString.annotate({ description: "Only products usable with one of these services (or with every service)" })
  )
})
export type PlanProductListQuery = typeof PlanProductListQuery.Type

export const PlanProductFrontPage = Schema.Struct({ plan_products: Schema.Array(PlanProductFront), ...PageFields })
export const PlanProductFrontOne = Schema.Struct({ plan_products: Schema.Array(PlanProductFront) })
export const PlanProductDeskPage = Schema.Struct({ plan_products: Schema.Array(PlanProductDesk), ...PageFields })
export const PlanProductDeskOne = Schema.Struct({ plan_products: Schema.Array(PlanProductDesk) })
