import { Effect } from "effect"
import { CurrentBusiness } from "../../access/tenant.ts"
import { completeInvoicedBooking } from "../../enrollment/bookings/service.ts"
import { createPersonPlan } from "../plans/packs.ts"
import { commitmentEnd, expirationEnd } from "../plans/model.ts"
import { enqueueSalePays } from "../staff-pay/service.ts"
import { InvoiceItemsRepo } from "./items-repo.ts"
import type { InvoiceRow } from "./rows.ts"
import type { SaleLine } from "./sale-lines.ts"
import { InvoicesRepo } from "./repo.ts"
import type { Caller } from "../../access/caller.ts"
import type { NewPayment } from "./payment-insert.ts"
import { currentTime } from "../../shared/clock.ts"
import { businessToday } from "../../access/tenant.ts"

/**
 * Closes an invoice (its row locked by the caller's transaction): each plan item creates a
 * person plan for each recipient (dates from the item's start date and the product; terms for
 * the payer when the product requires them), and a linked booking completes with its leases.
 * A payment that pays the invoice off closes it through `closePaidInvoice`, which writes the
 * payment with the closing.
 */
export const closeInvoice = Effect.fn("Invoices.close")(function* (invoice: InvoiceRow, caller: Caller | null) {
  const business = yield* CurrentBusiness
  const at = yield* currentTime
  const sold = yield* sell(invoice, caller, yield* (yield* InvoiceItemsRepo).saleLines({ businessId: business.id, invoiceId: invoice.id }), at)
  yield* (yield* InvoicesRepo).closeSold({ businessId: business.id, id: invoice.id, sold, now: at })
  yield* afterClosing(invoice)
})

/**
 * `closeInvoice` for the payment that leaves nothing outstanding: the payment, the plans' ties and the invoice's
 * state are written by one statement. `saleLines`: what closing sells, read with the invoice's lock
 * (the payment's `findToPay`). Answers the payment with its payer.
 */
export const closePaidInvoice = Effect.fn("Invoices.closePaid")(function* (
  invoice: InvoiceRow,
  caller: Caller,
  saleLines: ReadonlyArray<SaleLine>,
  payment: NewPayment
) {
  const business = yield* CurrentBusiness
  const sold = yield* sell(invoice, caller, saleLines, payment.now)
  const paid = yield* (yield* InvoicesRepo).closePaid({ businessId: business.id, id: invoice.id, sold, now: payment.now, payment: { businessId: business.id, ...payment } })
  yield* afterClosing(invoice)
  return paid
})

/** The person plans a closing sells (one per plan item and recipient), and the linked booking completed. */
const sell = Effect.fn("Invoices.sell")(function* (invoice: InvoiceRow, caller: Caller | null, saleLines: ReadonlyArray<SaleLine>, at: Date) {
  const business = yield* CurrentBusiness
  const today = yield* businessToday
  const sold: Array<{ readonly itemId: number; readonly personId: number; readonly planId: number }> = []
  for (const line of saleLines) {
    // A renewal invoice (src/billing-runs) names the plan it renews: paying it sells no new plan.
    if (line.recipient_plan_id !== null) continue
    const startDate = line.item_start_date ?? today
    const planId = yield* createPersonPlan(
      {
        planProductId: line.id,
        type: line.kind === "membership" ? "Membership" : line.kind === "prepaid" ? "Prepaid" : "Pack",
        name: line.name,
        description: line.description,
        priceCents: line.item_price_cents,
        count: line.initial_punchcard_count ?? line.count,
        limitPeriod: line.kind === "membership" || line.kind === "prepaid" ? line.limit_period : null,
        considerMember: line.consider_member,
        visitsShared: true,
        startDate,
        // A membership renews by its billing (no end); a pack ends at start plus its expiration
        // (spec, Pack), as a pack given at the desk; a prepaid lasts its commitment.
        endDate:
          line.kind === "membership" ? null : (line.kind === "pack" ? expirationEnd : commitmentEnd)(startDate, line.commitment_length, line.commitment_unit),
        staffMemberId: line.item_staff_member_id,
        locationId: invoice.location_id,
        createdByStaffMemberId: caller?._tag === "Staff" ? caller.staffMemberId : null
      },
      [line.recipient_id],
      line.terms_acceptance_required
        ? { payerPersonId: invoice.person_id, acceptanceType: line.terms_acceptance_type, terms: line.terms ?? "" }
        : null,
      at
    )
    sold.push({ itemId: line.item_id, personId: line.recipient_id, planId })
  }
  if (invoice.booking_id !== null) yield* completeInvoicedBooking(business.id, invoice.booking_id)
  return sold
})

/** The commission recipient's pay, recorded by a job that commits with the closing. */
const afterClosing = Effect.fn("Invoices.afterClosing")(function* (invoice: InvoiceRow) {
  const business = yield* CurrentBusiness
  if (invoice.commission_recipient_id !== null) yield* enqueueSalePays(business.id, invoice.id)
})
