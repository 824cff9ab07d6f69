import { Effect } from "effect"
import { businessToday, CurrentBusiness } from "../../access/tenant.ts"
import { currentTime } from "../../shared/clock.ts"
import type { NewLine } from "./create-statement.ts"
import { computedAdjustments, type ItemInsert } from "./items-repo.ts"
import type { TaxRow } from "./tax-lines.ts"
import { outstandingFrom } from "./payments-wire.ts"
import { InvoicesRepo } from "./repo.ts"
import type { AdjustmentRow } from "./rows.ts"
import { type Caller, personOf } from "../../access/caller.ts"
import { computeInvoice } from "./totals.ts"
import type { InvoicesShown } from "./wire.ts"

/** One `plan_products` entry once checked: its plan item and, with a signup fee, the fee's own item, for its recipients. */
export interface PlannedItem {
  readonly plan: ItemInsert
  readonly signupFee: ItemInsert | null
  readonly recipientIds: ReadonlyArray<number>
  /** The product's sales taxes at no location, read with the product. */
  readonly taxes: ReadonlyArray<TaxRow>
}

/**
 * The writes of a new invoice, each row once and in its final state: the money rule (totals.ts)
 * runs on the checked items before anything is written (a new invoice has no coupon, location or
 * staff adjustment yet), so the invoice and its items are inserted with their amounts, each item
 * with its recipients and computed adjustments, and the invoice's number, in one statement
 * (create-statement.ts), which needs no transaction. Answers the row and what its answer shows,
 * from what was written: nothing is read back.
 */

type Named = { readonly id: number; readonly name: string; readonly email: string | null }

interface Line {
  readonly item: ItemInsert
  readonly recipientIds: ReadonlyArray<number>
  /** A signup fee: its parent is the line before it. */
  readonly fee: boolean
}

/** The money rule on lines not written yet: no coupon, no staff adjustment; ids are the lines' positions. */
const amountsOf = (lines: ReadonlyArray<Line>, taxes: ReadonlyArray<TaxRow>) =>
  computeInvoice(
    lines.map((line, i) => ({
      id: i,
      priceCents: line.item.priceCents,
      override: null,
      prorateCents: null,
      discount: null,
      taxes: taxes
        .filter((tax) => tax.plan_product_id === line.item.planProductId)
        .map((tax) => ({ salesTaxId: tax.sales_tax_id, name: tax.name, rate: tax.rate, inclusive: tax.inclusive }))
    })),
    null
  )

/** The lines as the create's statement writes them: each item's amounts and computed tax lines. */
const newLines = (lines: ReadonlyArray<Line>, amounts: ReturnType<typeof amountsOf>): Array<NewLine> =>
  lines.map((line, i) => {
    const item = amounts.items[i]!
    return {
      fee: line.fee,
      kind: line.item.kind,
      plan_product_id: line.item.planProductId,
      name: line.item.name,
      description: line.item.description,
      staff_member_id: line.item.staffMemberId,
      event_id: line.item.eventId,
      start_date: line.item.startDate,
      price_cents: line.item.priceCents,
      adjustment_total_cents: item.adjustmentTotalCents,
      discount_total_cents: item.discountTotalCents,
      included_tax_total_cents: item.includedTaxTotalCents,
      additional_tax_total_cents: item.additionalTaxTotalCents,
      total_cents: item.totalCents,
      person_ids: line.recipientIds,
      adjustments: computedAdjustments(item, null)
    }
  })

export const writeNew = Effect.fn("Invoices.writeNew")(function* (caller: Caller, { payerId, planned, bookingId, people, staffPersonId }: {
  readonly payerId: number
  readonly planned: ReadonlyArray<PlannedItem>
  readonly bookingId: number | null
  /** The payer, the recipients and (staff mode) the staff member's own person, as read by the checks. */
  readonly people: ReadonlyArray<Named>
  readonly staffPersonId: number | undefined
}) {
  const business = yield* CurrentBusiness
  const repo = yield* InvoicesRepo
  const lines: ReadonlyArray<Line> = planned.flatMap((p) => [
    { item: p.plan, recipientIds: p.recipientIds, fee: false },
    ...(p.signupFee === null ? [] : [{ item: p.signupFee, recipientIds: p.recipientIds, fee: true }])
  ])
  // Each product's taxes once, however many items sell it (amountsOf picks them by product).
  const taxes = [...new Map(planned.map((p) => [p.plan.planProductId, p.taxes])).values()].flat()
  const amounts = amountsOf(lines, taxes)
  const at = yield* currentTime
  const written = yield* repo.insertNew({
    businessId: business.id,
    invoiceDate: yield* businessToday,
    personId: payerId,
    currency: business.currency_code,
    bookingId,
    createdByStaffMemberId: caller._tag === "Staff" ? caller.staffMemberId : null,
    createdByPersonId: personOf(caller),
    subtotalCents: amounts.subtotalCents,
    discountTotalCents: amounts.discountTotalCents,
    adjustmentTotalCents: amounts.adjustmentTotalCents,
    includedTaxTotalCents: amounts.includedTaxTotalCents,
    additionalTaxTotalCents: amounts.additionalTaxTotalCents,
    totalCents: amounts.totalCents,
    lines: newLines(lines, amounts),
    now: at
  })
  const { items, adjustment_ids, ...invoice } = written
  // The adjustments as written: what was computed for each line, with the id its row was given.
  const adjustments = lines.flatMap((_, i) => {
    const itemId = items[i]!.id
    return computedAdjustments(amounts.items[i]!, null)
      .map((a): AdjustmentRow => ({
        ...a,
        id: adjustment_ids.find((w) => w.invoice_item_id === itemId && w.source_type === a.source_type && w.source_id === a.source_id)!.id,
        invoice_item_id: itemId,
        requested_cents: null,
        initial_punchcard_count: null,
        created_at: at
      }))
      .sort((a, b) => a.id - b.id)
  })
  const named = (id: number) => people.find((person) => person.id === id)
  const self = staffPersonId === undefined ? undefined : named(staffPersonId)
  // A staff member is named as their person (refs-repo's `staff`).
  const staff = caller._tag === "Staff" && self !== undefined ? [{ id: caller.staffMemberId, name: self.name, email: self.email }] : []
  const shown: InvoicesShown = {
    items,
    adjustments,
    recipients: lines.flatMap((line, i) =>
      line.recipientIds.map((id) => ({ invoice_item_id: items[i]!.id, id, name: named(id)?.name ?? "", email: named(id)?.email ?? null }))),
    paid: new Map([[invoice.id, { outstanding: outstandingFrom(invoice, [], []), payments: [] }]]),
    people: people.map(({ id, name, email }) => ({ id, name, email })),
    staff,
    coupons: new Map(),
    locations: new Map()
  }
  return { row: invoice, shown }
})
