import { Effect } from "effect"
import { CurrentBusiness } from "../../access/tenant.ts"
import { pageLinks, pageOf } from "../../shared/pagination.ts"
import type { SalesTaxListQuery, SalesTaxRow, SalesTaxWire } from "./model.ts"
import { SalesTaxesRepo } from "./repo.ts"
import { SalesTaxRefusals } from "./refusals.ts"

/** Sales taxes (staff mode, read only over HTTP; written by the import). */
const toWire = (row: SalesTaxRow): SalesTaxWire => ({ id: row.id, name: row.name, tax_rate: row.tax_rate, inclusive: row.inclusive })

export const listSalesTaxes = Effect.fn("SalesTaxes.list")(function* (query: SalesTaxListQuery) {
  const business = yield* CurrentBusiness
  const page = pageOf(query)
  const { rows, total } = yield* (yield* SalesTaxesRepo).list({ businessId: business.id, page })
  return { sales_taxes: rows.map(toWire), ...(yield* pageLinks(page, total)) }
})

export const getSalesTax = Effect.fn("SalesTaxes.get")(function* (id: number) {
  const business = yield* CurrentBusiness
  const repo = yield* SalesTaxesRepo
  const row = yield* repo.find({ businessId: business.id, id })
  if (!row) return yield* SalesTaxRefusals.salesTaxNotFound.fail({ id })
  const locations = yield* repo.locations({ businessId: business.id, id })
  return { sales_taxes: { ...toWire(row), locations: locations.map((l) => ({ id: l.id, name: l.name, tax_rate: l.tax_rate })) } }
})
