import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { CurrentBusiness } from "../../access/tenant.ts"
import { pageLinks, pageOf } from "../../shared/pagination.ts"
import { MAX_REVENUE_CATEGORY_NAME, type RevenueCategoryListQuery, type RevenueCategoryRow, type RevenueCategoryWire } from "./model.ts"
import { RevenueCategoriesRepo } from "./repo.ts"
import { currentTime } from "../../shared/clock.ts"
import { RevenueCategoryRefusals } from "./refusals.ts"

/** Revenue categories (staff mode, read only over HTTP; renamed by the import or the operator CLI). */
const toWire = (row: RevenueCategoryRow): RevenueCategoryWire => ({ id: row.id, name: row.name })

export const listRevenueCategories = Effect.fn("RevenueCategories.list")(function* (query: RevenueCategoryListQuery) {
  const business = yield* CurrentBusiness
  const page = pageOf(query)
  const { rows, total } = yield* (yield* RevenueCategoriesRepo).list({ businessId: business.id, page })
  return { revenue_categories: rows.map(toWire), ...(yield* pageLinks(page, total)) }
})

export const getRevenueCategory = Effect.fn("RevenueCategories.get")(function* (id: number) {
  const business = yield* CurrentBusiness
  const row = yield* (yield* RevenueCategoriesRepo).find({ businessId: business.id, id })
  if (!row) return yield* RevenueCategoryRefusals.revenueCategoryNotFound.fail({ id })
  return { revenue_categories: toWire(row) }
})

/** Why a rename was refused (the CLI shows it as one line). */
export type RenameProblem = { readonly _tag: "NotFound" } | { readonly _tag: "Invalid"; readonly reason: string }

/**
 * Renames a category of `businessId`: the name is trimmed, 1-200 characters and unique in the
 * business. Sold plans keep pointing at the same category, so their reports follow the new name.
 */
export const renameRevenueCategory = Effect.fn("RevenueCategories.rename")(function* (businessId: number, id: number, name: string) {
  const repo = yield* RevenueCategoriesRepo
  const sql = yield* SqlClient.SqlClient
  const now = (yield* currentTime)
  const trimmed = name.trim()
  if (trimmed === "" || trimmed.length > MAX_REVENUE_CATEGORY_NAME) {
    return yield* Effect.fail<RenameProblem>({ _tag: "Invalid", reason: `the name must be 1-${MAX_REVENUE_CATEGORY_NAME} characters` })
  }
  return yield* sql.withTransaction(
    Effect.gen(function* () {
      const row = yield* repo.find({ businessId, id })
      if (!row) return yield* Effect.fail<RenameProblem>({ _tag: "NotFound" })
      const other = yield* repo.findByName({ businessId, name: trimmed })
      if (other && other.id !== id) {
        return yield* Effect.fail<RenameProblem>({ _tag: "Invalid", reason: `category ${other.id} is already named "${trimmed}"` })
      }
      yield* repo.rename({ businessId, id, name: trimmed, now })
      return toWire({ id, name: trimmed })
    })
  ).pipe(Effect.catchTag("SqlError", Effect.die))
})
