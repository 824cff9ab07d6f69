import { Schema } from "effect"
import type { SqlClient, Statement } from "effect/sql"

/**
 * A plan product's sales taxes at a location (a location's own rate, else the tax's), written once:
 * read for an invoice's items by the recompute (`InvoiceItemsRepo.taxes`) and, at no location, with
 * the product a new invoice sells (`InvoiceRefsRepo.product`), so the create reads them in that read.
 */
export const TaxRow = Schema.Struct({
  plan_product_id: Schema.Number,
  sales_tax_id: Schema.Number,
  name: Schema.String,
  rate: Schema.Number,
  inclusive: Schema.Boolean
})
export type TaxRow = typeof TaxRow.Type

/** `products`: the condition on `pt.plan_product_id` (a list, or a column of an enclosing query). */
export const taxLinesSql = (sql: SqlClient.SqlClient, businessId: number, products: Statement.Fragment, locationId: number | null) =>
  sql`select pt.plan_product_id, t.id as sales_tax_id, t.name, coalesce(tl.tax_rate, t.tax_rate)::float8 as rate, t.inclusive
      from plan_product_sales_taxes pt
      join sales_taxes t on t.business_id = pt.business_id and t.id = pt.sales_tax_id
      left join sales_tax_locations tl on tl.business_id = t.business_id and tl.sales_tax_id = t.id and tl.location_id = ${locationId}
      where pt.business_id = ${businessId} and ${products}
      order by pt.plan_product_id, t.id`
