import { Schema } from "effect"
import { COMMITMENT_UNITS, termsAndTimestamps, TERMS_ACCEPTANCE_TYPES, VISIBILITIES } from "../plan-products/model.ts"
import { Cents, FormattedMoney } from "../../shared/money.ts"
import { PageFields, PageQuery } from "../../shared/pagination.ts"
import { BooleanInput, IntInput, Timestamp } from "../../shared/schemas.ts"

/**
 * Pack products (spec: Pack product; record keys: compatibility notes' pack_product). A pack
 * product is a plan product of kind `pack`: one `plan_products` row, so `product.id` is the
 * pack product's id, and the product is listed by GET plan_products too.
 */
export const PACK_COMMITMENT_UNITS = ["day", "week", "month"] as const satisfies ReadonlyArray<(typeof COMMITMENT_UNITS)[number]>

export const MAX_NAME = 200
export const MAX_DESCRIPTION = 5000
export const MAX_DESCRIPTION_LONG = 50000
export const MAX_TERMS = 100000
export { MAX_INT } from "../../shared/schemas.ts"

export const PackProductProductWire = Schema.Struct({
  id: Schema.Int.annotate({ description: "The product's id: the same as the pack product's (and the plan product's)" }),
  name: Schema.String,
  description: Schema.NullOr(Schema.String),
  description_long: Schema.NullOr(Schema.String),
  price_cents: Cents,
  price: FormattedMoney,
  visibility: Schema.Literals(VISIBILITIES),
  suspended: Schema.Boolean,
  created_at: Timestamp,
  updated_at: Timestamp
}).annotate({ identifier: "PackProductProduct" })

export const PackProductWire = Schema.Struct({
  id: Schema.Int,
  count: Schema.Int.annotate({ description: "Visits a pack of this product holds" }),
  commitment_length: Schema.Int.annotate({ description: "With commitment_unit: how long a pack is valid" }),
  commitment_unit: Schema.Literals(COMMITMENT_UNITS),
  location_id: Schema.NullOr(Schema.Int),
  consider_member: Schema.Boolean,
  ...termsAndTimestamps,
  product: PackProductProductWire,
  services: Schema.Array(Schema.Struct({ id: Schema.Int, name: Schema.String })).annotate({
    description: "Services clients may use the packs with; empty: every service (staff are unrestricted)"
  })
}).annotate({ identifier: "PackProduct" })
export type PackProductWire = typeof PackProductWire.Type

const Text = Schema.NullOr(Schema.String)

/** The six attributes the spec places in `product`; also accepted at the top level of `pack_product`. */
const productFields = {
  name: Schema.optional(Text.annotate({ description: `Required on create; at most ${MAX_NAME} characters` })),
  price_cents: Schema.optional(Schema.NullOr(IntInput).annotate({ description: "Required on create; not negative" })),
  visibility: Schema.optional(
    Text.annotate({ description: "Required on create: Everyone, Members, Staff or New clients (any letter case: `staff` is Staff)" })
  ),
  description: Schema.optional(Text.annotate({ description: "Brief description" })),
  description_long: Schema.optional(Text.annotate({ description: "Detailed description" })),
  suspended: Schema.optional(BooleanInput.annotate({ description: "Cannot be sold while true; default false" }))
}
export const PackProductProductInput = Schema.Struct(productFields)

/** A form sends `pack_product[service_ids][]=` (one empty value) for an empty list. */
const ServiceId = Schema.Union([IntInput, Schema.Literal("")])

export const PackProductInput = Schema.Struct({
  product: Schema.optional(PackProductProductInput.annotate({ description: "name, price_cents, visibility, description, description_long, suspended" })),
  ...productFields,
  count: Schema.optional(Schema.NullOr(IntInput).annotate({ description: "Required on create; visits a pack holds (at least 1)" })),
  commitment_length: Schema.optional(Schema.NullOr(IntInput).annotate({ description: "Required on create; at least 1" })),
  commitment_unit: Schema.optional(Text.annotate({ description: "Required on create: day, week or month" })),
  location_id: Schema.optional(Schema.NullOr(IntInput).annotate({ description: "Only visits at this location (a location of the business); null: any" })),
  consider_member: Schema.optional(BooleanInput.annotate({ description: "Default false" })),
  terms: Schema.optional(Text),
  terms_acceptance_required: Schema.optional(BooleanInput.annotate({ description: "Default false; when true the client is e-mailed to accept" })),
  terms_acceptance_type: Schema.optional(Text.annotate({ description: "checkbox (default) or document" })),
  terms_acceptance_at_checkout: Schema.optional(BooleanInput.annotate({ description: "Default false" })),
  send_expiration_notifications: Schema.optional(BooleanInput.annotate({ description: "Default true" })),
  service_ids: Schema.optional(
    Schema.NullOr(Schema.Array(ServiceId)).annotate({
      description: "Services clients may use it with: `[]` removes all; null or absent leaves them unchanged; unknown ids are ignored"
    })
  )
})
export type PackProductInput = typeof PackProductInput.Type

export const PackProducts = Schema.Struct({ pack_products: Schema.Array(PackProductWire) })
export const PackProductPage = Schema.Struct({ pack_products: Schema.Array(PackProductWire), ...PageFields })
export const PackProductListQuery = Schema.Struct(PageQuery)
export type PackProductListQuery = typeof PackProductListQuery.Type

/** What the repo writes: every column of a pack product. */
export interface PackProductFields {
  readonly name: string
  readonly price_cents: number
  readonly visibility: (typeof VISIBILITIES)[number]
  readonly description: string | null
  readonly description_long: string | null
  readonly suspended: boolean
  readonly count: number
  readonly commitment_length: number
  readonly commitment_unit: (typeof PACK_COMMITMENT_UNITS)[number]
  readonly location_id: number | null
  readonly consider_member: boolean
  readonly terms: string | null
  readonly terms_acceptance_required: boolean
  readonly terms_acceptance_type: (typeof TERMS_ACCEPTANCE_TYPES)[number]
  readonly terms_acceptance_at_checkout: boolean
  readonly send_expiration_notifications: boolean
}
