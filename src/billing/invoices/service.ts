import { Effect } from "effect"
import { type Caller, personOf } from "../../access/caller.ts"
import { requireManagerRole } from "../../access/policies.ts"
import { CurrentBusiness } from "../../access/tenant.ts"
import { type Message, Unprocessable, fail } from "../../shared/errors.ts"
import { pageLinks, pageOf } from "../../shared/pagination.ts"
import { InvoiceItemsRepo } from "./items-repo.ts"
import { INVOICE_STATES, type InvoiceListQuery, type InvoiceState } from "./model.ts"
import { type InvoiceRow } from "./rows.ts"
import { InvoicesRepo } from "./repo.ts"
import { InvoiceRefsRepo } from "./refs-repo.ts"
import { computeInvoice } from "./totals.ts"
import { invoicesWire, isEditable } from "./wire.ts"
import { currentTime } from "../../shared/clock.ts"
import { InvoiceRefusals } from "./refusals.ts"

/**
 * Invoices, both modes (spec: Invoices): what every invoice write shares (callers, the locked
 * lookup, `recompute`, the answer) and the reads. The writes sit by seam: create.ts (from plan
 * products), update.ts (state events, coupon, settings, booking), close.ts (the close that
 * sells), items.ts (items, prorates, discounts). Every write is one transaction that locks the
 * invoice row, checks every rule before writing, and ends with `recompute`, the only writer of
 * stored amounts (money rule: totals.ts).
 */

/** The invoice, if the caller may see it: staff any of the business's; a client only their own. */
export const findInvoice = Effect.fn("Invoices.find")(function* (caller: Caller, id: number, lock = false) {
  const business = yield* CurrentBusiness
  const row = yield* (yield* InvoicesRepo).find({ businessId: business.id, id, lock })
  if (!row || (caller._tag !== "Staff" && row.person_id !== personOf(caller))) {
    return yield* InvoiceRefusals.invoiceNotFound.fail({ id })
  }
  return row
})

/**
 * Who may move money: out of checkout an invoice is what the client owes, so in staff
 * mode only a manager or higher changes what it asks for (items, coupon, location, hold, reopen,
 * cancel); standard staff collect it. Client mode keeps its own rules.
 */
export const OUT_OF_CHECKOUT: ReadonlyArray<InvoiceState> = ["open", "on_hold"]
export const requireManagerOutOfCheckout = (caller: Caller, row: InvoiceRow) =>
  caller._tag === "Staff" && OUT_OF_CHECKOUT.includes(row.state)
    ? requireManagerRole(caller.role, InvoiceRefusals.invoiceOwedManagerRequired.message({ id: row.id, state: row.state }))
    : Effect.void

export const requireEditable = (row: InvoiceRow) =>
  isEditable(row) ? Effect.void : InvoiceRefusals.invoiceNotEditable.fail({ id: row.id, state: row.state })

/** Computes the invoice's amounts (totals.ts) and stores them: the one writer of money columns. */
export const recompute = Effect.fn("Invoices.recompute")(function* (invoiceId: number) {
  const business = yield* CurrentBusiness
  const repo = yield* InvoicesRepo
  const itemsRepo = yield* InvoiceItemsRepo
  const invoice = (yield* repo.find({ businessId: business.id, id: invoiceId }))!
  const items = yield* itemsRepo.items({ businessId: business.id, invoiceIds: [invoiceId] })
  const adjustments = yield* itemsRepo.adjustments({ businessId: business.id, ids: items.map((item) => item.id) })
  const taxes = yield* itemsRepo.taxes({
    businessId: business.id,
    productIds: [...new Set(items.map((item) => item.plan_product_id))],
    locationId: invoice.location_id
  })
  const coupon = invoice.coupon_id === null ? undefined : yield* (yield* InvoiceRefsRepo).couponById({ businessId: business.id, id: invoice.coupon_id })
  const staffAdjustment = (itemId: number, type: string) =>
    adjustments.find((a) => a.invoice_item_id === itemId && a.type === type && a.source_type === null)
  const amounts = computeInvoice(
    items.map((item) => {
      const discount = staffAdjustment(item.id, "Discount")
      return {
        id: item.id,
        priceCents: item.price_cents,
        override: staffAdjustment(item.id, "PriceOverride")?.requested_cents ?? null,
        prorateCents: staffAdjustment(item.id, "ProrateAdjustment")?.requested_cents ?? null,
        discount: discount === undefined ? null : { percent: discount.percent, amountCents: discount.requested_cents },
        taxes: taxes
          .filter((tax) => tax.plan_product_id === item.plan_product_id)
          .map((tax) => ({ salesTaxId: tax.sales_tax_id, name: tax.name, rate: tax.rate, inclusive: tax.inclusive }))
      }
    }),
    coupon === undefined ? null : { id: coupon.id, name: coupon.name, percent: coupon.discount_percent, amountCents: coupon.discount_amount_cents }
  )
  yield* itemsRepo.writeAmounts({
    businessId: business.id,
    invoiceId,
    amounts,
    stored: adjustments,
    couponId: coupon?.id ?? null,
    couponName: coupon?.name ?? "",
    now: yield* currentTime
  })
})

export const invoiceAnswer = Effect.fn("Invoices.answer")(function* (caller: Caller, id: number) {
  const row = yield* findInvoice(caller, id)
  return { invoices: yield* invoicesWire([row], caller) }
})

export const getInvoice = (caller: Caller, id: number) => invoiceAnswer(caller, id)

/** GET desk/invoices: newest first, only the list fields. */
export const listInvoices = Effect.fn("Invoices.list")(function* (query: InvoiceListQuery) {
  const business = yield* CurrentBusiness
  const problems: Array<Message> = []
  let states: Array<InvoiceState> | null = null
  if (query.state !== undefined && query.state.trim() !== "") {
    states = []
    for (const part of query.state.split(",").map((s) => s.trim())) {
      if ((INVOICE_STATES as ReadonlyArray<string>).includes(part)) states.push(part as InvoiceState)
      else problems.push(InvoiceRefusals.fieldMustBeOneOf.message({ field: "state", values: INVOICE_STATES.join(", ") }))
    }
  }
  if (problems.length > 0) return yield* fail(Unprocessable, problems[0]!)
  const page = pageOf(query)
  const { rows, total } = yield* (yield* InvoicesRepo).list({
    businessId: business.id,
    states,
    personIds: query.person_ids ?? null,
    createdSince: query.created_since ?? null,
    updatedSince: query.updated_since ?? null,
    page
  })
  return { invoices: yield* invoicesWire(rows, "staff_list"), ...(yield* pageLinks(page, total)) }
})
