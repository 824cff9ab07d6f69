import { Effect } from "effect"
import { businessMoney, CurrentBusiness } from "../../access/tenant.ts"
import { inTransaction } from "../../platform/transactions.ts"
import { BadRequest, type Message, Unprocessable, fail } from "../../shared/errors.ts"
import { InvoiceItemsRepo } from "./items-repo.ts"
import { requireUnpaid } from "./paid-guard.ts"
import { InvoiceRefsRepo } from "./refs-repo.ts"
import type { DiscountInput, InvoiceItemAddInput, PlanProductInput, ProrateInput } from "./model.ts"
import type { InvoiceRow } from "./rows.ts"
import { insertPlanned, planItem } from "./create.ts"
import type { Caller } from "../../access/caller.ts"
import { findInvoice, invoiceAnswer, recompute, requireEditable, requireManagerOutOfCheckout } from "./service.ts"
import { adjustmentWire } from "./wire.ts"
import { currentTime } from "../../shared/clock.ts"
import { MAX_INT } from "../../shared/schemas.ts"
import { InvoiceRefusals } from "./refusals.ts"

/**
 * Invoice items (spec: Invoices): adding a plan product, removing an item (its signup fee goes
 * with it; a signup fee alone cannot go; the invoice stays, even empty), and the staff's
 * prorates and discounts on an item. Each write locks the invoice and recomputes it.
 */

/**
 * Runs `change` on the locked, editable invoice, then recomputes it; answers the invoice. In staff
 * mode an open or on-hold invoice changes only for a manager or higher (service.ts).
 */
const changeInvoice = <A, E, R>(caller: Caller, invoiceId: number, change: (invoice: InvoiceRow) => Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    yield* inTransaction(
      Effect.gen(function* () {
        const invoice = yield* findInvoice(caller, invoiceId, true)
        yield* requireManagerOutOfCheckout(caller, invoice)
        yield* requireEditable(invoice)
        yield* requireUnpaid(invoice)
        yield* change(invoice)
        yield* recompute(invoiceId)
      })
    )
    return yield* invoiceAnswer(caller, invoiceId)
  })

const findItem = Effect.fn("InvoiceItems.find")(function* (invoiceId: number, itemId: number) {
  const business = yield* CurrentBusiness
  const item = (yield* (yield* InvoiceItemsRepo).items({ businessId: business.id, invoiceIds: [invoiceId] })).find((row) => row.id === itemId)
  if (!item) return yield* InvoiceRefusals.invoiceItemNotFound.fail({ id: itemId })
  return item
})

/** The plan product of a POST invoice_items body, given bare (spec) or wrapped in `invoice_item`. */
const planProductOf = (body: InvoiceItemAddInput): Effect.Effect<PlanProductInput, BadRequest> => {
  if (body.plan_product !== undefined && body.invoice_item !== undefined) return InvoiceRefusals.invoiceItemBodyTwice.fail()
  const input = body.plan_product ?? body.invoice_item?.plan_product
  return input === undefined ? InvoiceRefusals.planProductRequired.fail({ field: "plan_product" }) : Effect.succeed(input)
}

export const addItem = (caller: Caller, invoiceId: number, body: InvoiceItemAddInput) =>
  Effect.flatMap(planProductOf(body), (input) => addPlanProduct(caller, invoiceId, input))

const addPlanProduct = (caller: Caller, invoiceId: number, input: PlanProductInput) =>
  changeInvoice(caller, invoiceId, (invoice) =>
    Effect.gen(function* () {
      const problems: Array<Message> = []
      const planned = yield* planItem(caller, invoice.person_id, input, "plan_product", problems)
      if (!planned || problems.length > 0) return yield* fail(Unprocessable, ...problems)
      yield* insertPlanned(invoiceId, planned, yield* currentTime)
    }))

export const removeItem = (caller: Caller, invoiceId: number, itemId: number) =>
  changeInvoice(caller, invoiceId, () =>
    Effect.gen(function* () {
      const business = yield* CurrentBusiness
      const item = yield* findItem(invoiceId, itemId)
      if (item.kind === "signup_fee") {
        return yield* InvoiceRefusals.invoiceSignupFeeAlone.fail({ id: item.parent_item_id ?? item.id })
      }
      yield* (yield* InvoiceItemsRepo).deleteItem({ businessId: business.id, id: itemId })
    }))

/**
 * POST prorates: `amount_cents` is deducted from the item (never below 0);
 * `initial_punchcard_count` sets the first period's visits of a limited membership. A second
 * call updates the one proration.
 */
export const prorateItem = (caller: Caller, invoiceId: number, itemId: number, input: ProrateInput) =>
  changeInvoice(caller, invoiceId, () =>
    Effect.gen(function* () {
      const business = yield* CurrentBusiness
      const item = yield* findItem(invoiceId, itemId)
      const problems: Array<Message> = []
      if (item.kind !== "plan" || item.product_kind !== "membership") problems.push(InvoiceRefusals.invoiceProrateNotMembership.message({ id: itemId }))
      if (input.amount_cents === undefined && input.initial_punchcard_count === undefined) {
        problems.push(InvoiceRefusals.fieldRequired.message({ field: "amount_cents" }))
      }
      if (input.amount_cents !== undefined && input.amount_cents < 0) problems.push(InvoiceRefusals.fieldMustBeAtLeast.message({ field: "amount_cents", min: 0 }))
      if (input.amount_cents !== undefined && input.amount_cents > 100_000_000) {
        problems.push(InvoiceRefusals.fieldMustBeAtMost.message({ field: "amount_cents", max: 100_000_000 }))
      }
      if (input.initial_punchcard_count !== undefined) {
        if (input.initial_punchcard_count < 0) problems.push(InvoiceRefusals.fieldMustBeAtLeast.message({ field: "initial_punchcard_count", min: 0 }))
        else if (input.initial_punchcard_count > MAX_INT) problems.push(InvoiceRefusals.fieldMustBeAtMost.message({ field: "initial_punchcard_count", max: MAX_INT }))
        else if (item.product_kind === "membership") {
          const row = yield* (yield* InvoiceRefsRepo).product({ businessId: business.id, id: item.plan_product_id })
          if (!row || row.count === null) problems.push(InvoiceRefusals.invoiceProrateCountUnlimited.message({ field: "initial_punchcard_count" }))
        }
      }
      if (problems.length > 0) return yield* fail(Unprocessable, ...problems)
      yield* (yield* InvoiceItemsRepo).upsertAdjustment({
        businessId: business.id,
        itemId,
        type: "ProrateAdjustment",
        name: "Proration",
        requestedCents: input.amount_cents ?? 0,
        percent: null,
        initialPunchcardCount: input.initial_punchcard_count ?? null,
        now: yield* currentTime
      })
    }))

/** DELETE prorates: the amount and the count return to the product's. */
export const removeProrate = (caller: Caller, invoiceId: number, itemId: number) =>
  changeInvoice(caller, invoiceId, () =>
    Effect.gen(function* () {
      const business = yield* CurrentBusiness
      yield* findItem(invoiceId, itemId)
      if (!(yield* (yield* InvoiceItemsRepo).deleteAdjustment({ businessId: business.id, itemId, type: "ProrateAdjustment" }))) {
        return yield* InvoiceRefusals.invoiceProrateNotFound.fail({ id: itemId })
      }
    }))

/** GET discounts: the item's own discount (a coupon's share is not it); 404 when none. */
export const getDiscount = Effect.fn("InvoiceItems.getDiscount")(function* (caller: Caller, invoiceId: number, itemId: number) {
  const business = yield* CurrentBusiness
  yield* findInvoice(caller, invoiceId)
  yield* findItem(invoiceId, itemId)
  const discount = (yield* (yield* InvoiceItemsRepo).adjustments({ businessId: business.id, ids: [itemId] })).find(
    (a) => a.type === "Discount" && a.source_type === null
  )
  if (!discount) return yield* InvoiceRefusals.invoiceDiscountNotFound.fail({ id: itemId })
  return { discounts: [adjustmentWire(discount, yield* businessMoney)] }
})

/** POST discounts: `amount_cents` (fixed) or `percent` (0–100), not both; replaces the item's discount. */
export const discountItem = (caller: Caller, invoiceId: number, itemId: number, input: DiscountInput) =>
  changeInvoice(caller, invoiceId, () =>
    Effect.gen(function* () {
      const business = yield* CurrentBusiness
      yield* findItem(invoiceId, itemId)
      const problems: Array<Message> = []
      if (input.amount_cents === undefined && input.percent === undefined) problems.push(InvoiceRefusals.fieldRequired.message({ field: "amount_cents" }))
      if (input.amount_cents !== undefined && input.percent !== undefined) problems.push(InvoiceRefusals.invoiceDiscountOneOf.message({ field: "percent" }))
      if (input.amount_cents !== undefined && input.amount_cents < 0) problems.push(InvoiceRefusals.fieldMustBeAtLeast.message({ field: "amount_cents", min: 0 }))
      if (input.amount_cents !== undefined && input.amount_cents > 100_000_000) {
        problems.push(InvoiceRefusals.fieldMustBeAtMost.message({ field: "amount_cents", max: 100_000_000 }))
      }
      if (input.percent !== undefined && input.percent < 0) problems.push(InvoiceRefusals.fieldMustBeAtLeast.message({ field: "percent", min: 0 }))
      if (input.percent !== undefined && input.percent > 100) problems.push(InvoiceRefusals.fieldMustBeAtMost.message({ field: "percent", max: 100 }))
      if (problems.length > 0) return yield* fail(Unprocessable, ...problems)
      yield* (yield* InvoiceItemsRepo).upsertAdjustment({
        businessId: business.id,
        itemId,
        type: "Discount",
        name: input.percent !== undefined ? `Discount (${input.percent}%)` : "Discount",
        requestedCents: input.amount_cents ?? null,
        percent: input.percent ?? null,
        initialPunchcardCount: null,
        now: yield* currentTime
      })
    }))

export const removeDiscount = (caller: Caller, invoiceId: number, itemId: number) =>
  changeInvoice(caller, invoiceId, () =>
    Effect.gen(function* () {
      const business = yield* CurrentBusiness
      yield* findItem(invoiceId, itemId)
      if (!(yield* (yield* InvoiceItemsRepo).deleteAdjustment({ businessId: business.id, itemId, type: "Discount" }))) {
        return yield* InvoiceRefusals.invoiceDiscountNotFound.fail({ id: itemId })
      }
    }))
