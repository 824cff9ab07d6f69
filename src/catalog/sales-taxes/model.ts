import { Schema } from "effect"
import { PageFields, PageQuery } from "../../shared/pagination.ts"

/** Sales taxes (spec: Revenue categories and sales taxes; fields: compatibility notes). */
const TaxRate = Schema.Number.annotate({ description: "Percent, up to four decimals (8.875 is 8.875 %)", examples: [8.875] })

export const SalesTaxLocationWire = Schema.Struct({
  id: Schema.Int.annotate({ description: "Location id" }),
  name: Schema.String,
  tax_rate: TaxRate.annotate({ description: "The rate at this location: its own, else the tax's" })
}).annotate({ identifier: "SalesTaxLocation" })

const salesTaxFields = {
  id: Schema.Int,
  name: Schema.String,
  tax_rate: TaxRate,
  inclusive: Schema.Boolean.annotate({ description: "true: prices already contain the tax; false: it is added on top" })
}
export const SalesTaxWire = Schema.Struct(salesTaxFields).annotate({ identifier: "SalesTax" })
export type SalesTaxWire = typeof SalesTaxWire.Type
export const SalesTaxDetailWire = Schema.Struct({
  ...salesTaxFields,
  locations: Schema.Array(SalesTaxLocationWire).annotate({ description: "Where the tax applies; empty: everywhere" })
}).annotate({ identifier: "SalesTaxDetail" })
export type SalesTaxDetailWire = typeof SalesTaxDetailWire.Type

export const SalesTaxRow = Schema.Struct({ id: Schema.Number, name: Schema.String, tax_rate: Schema.Number, inclusive: Schema.Boolean })
export type SalesTaxRow = typeof SalesTaxRow.Type
export const SalesTaxLocationRow = Schema.Struct({ id: Schema.Number, name: Schema.String, tax_rate: Schema.Number })

export const SalesTaxPage = Schema.Struct({ sales_taxes: Schema.Array(SalesTaxWire), ...PageFields })
/** `:id`: an object under the root key, as the public API answers (compatibility notes). */
export const SalesTaxOne = Schema.Struct({ sales_taxes: SalesTaxDetailWire })

export const SalesTaxListQuery = Schema.Struct(PageQuery)
export type SalesTaxListQuery = typeof SalesTaxListQuery.Type
