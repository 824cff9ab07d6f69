import { Schema } from "effect"
import { PageFields, PageQuery } from "../../shared/pagination.ts"

/** Revenue categories (spec: Revenue categories and sales taxes; fields: compatibility notes). */
export const RevenueCategoryWire = Schema.Struct({
  id: Schema.Int,
  name: Schema.String
}).annotate({ identifier: "RevenueCategory", description: "Where sales are booked in the accounts; never deleted" })
export type RevenueCategoryWire = typeof RevenueCategoryWire.Type

export const RevenueCategoryRow = Schema.Struct({ id: Schema.Number, name: Schema.String })
export type RevenueCategoryRow = typeof RevenueCategoryRow.Type

export const MAX_REVENUE_CATEGORY_NAME = 200

/** The list: an array under the root key, paginated. */
export const RevenueCategoryPage = Schema.Struct({ revenue_categories: Schema.Array(RevenueCategoryWire), ...PageFields })
/** `:id`: an object under the root key, as the public API answers (compatibility notes). */
export const RevenueCategoryOne = Schema.Struct({ revenue_categories: RevenueCategoryWire })

export const RevenueCategoryListQuery = Schema.Struct(PageQuery)
export type RevenueCategoryListQuery = typeof RevenueCategoryListQuery.Type
