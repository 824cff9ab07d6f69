import { Effect } from "effect"
import { CurrentBusiness } from "../../access/tenant.ts"
import { completeInvoicedBooking } from "../../enrollment/bookings/service.ts"
import { createPersonPlan } from "../plans/packs.ts"
import { commitmentEnd, expirationEnd } from "../plans/model.ts"
import { enqueueSalePays } from "../staff-pay/service.ts"
import { InvoiceItemsRepo } from "./items-repo.ts"
import type { InvoiceRow } from "./rows.ts"
import { InvoicesRepo } from "./repo.ts"
import { InvoiceRefsRepo } from "./refs-repo.ts"
import type { Caller } from "../../access/caller.ts"
import { currentTime } from "../../shared/clock.ts"
import { businessToday } from "../../access/tenant.ts"

/**
 * Closes an invoice (its row locked by the caller's transaction): each plan item creates a
 * person plan for each recipient (dates from the item's start date and the product; terms for
 * the payer when the product requires them), and a linked booking completes with its leases.
 * Payments close paid invoices through this same function.
 */
export const closeInvoice = Effect.fn("Invoices.close")(function* (invoice: InvoiceRow, caller: Caller | null) {
  const business = yield* CurrentBusiness
  const repo = yield* InvoicesRepo
  const itemsRepo = yield* InvoiceItemsRepo
  const at = yield* currentTime
  const today = yield* businessToday
  const items = (yield* itemsRepo.items({ businessId: business.id, invoiceIds: [invoice.id] })).filter((item) => item.kind === "plan")
  const recipients = yield* itemsRepo.recipients({ businessId: business.id, ids: items.map((item) => item.id) })
  const prorates = (yield* itemsRepo.adjustments({ businessId: business.id, ids: items.map((item) => item.id) })).filter(
    (a) => a.type === "ProrateAdjustment" && a.source_type === null
  )
  for (const item of items) {
    const product = (yield* (yield* InvoiceRefsRepo).product({ businessId: business.id, id: item.plan_product_id })) ?? undefined
    if (!product) continue
    const startDate = item.start_date ?? today
    const initialCount = prorates.find((p) => p.invoice_item_id === item.id)?.initial_punchcard_count ?? null
    for (const recipient of recipients.filter((r) => r.invoice_item_id === item.id)) {
      // A renewal invoice (src/billing-runs) names the plan it renews: paying it sells no new plan.
      if (recipient.plan_id !== null) continue
      const planId = yield* createPersonPlan(
        {
          planProductId: product.id,
          type: product.kind === "membership" ? "Membership" : product.kind === "prepaid" ? "Prepaid" : "Pack",
          name: product.name,
          description: product.description,
          priceCents: item.price_cents,
          count: initialCount ?? product.count,
          limitPeriod: product.kind === "membership" || product.kind === "prepaid" ? product.limit_period : null,
          considerMember: product.consider_member,
          visitsShared: true,
          startDate,
          // A membership renews by its billing (no end); a pack ends at start plus its expiration
          // (spec, Pack), as a pack given at the desk; a prepaid lasts its commitment.
          endDate:
            product.kind === "membership"
              ? null
              : (product.kind === "pack" ? expirationEnd : commitmentEnd)(startDate, product.commitment_length, product.commitment_unit),
          staffMemberId: item.staff_member_id,
          locationId: invoice.location_id,
          createdByStaffMemberId: caller?._tag === "Staff" ? caller.staffMemberId : null
        },
        [recipient.id],
        product.terms_acceptance_required
          ? { payerPersonId: invoice.person_id, acceptanceType: product.terms_acceptance_type, terms: product.terms ?? "" }
          : null,
        at
      )
      yield* itemsRepo.setRecipientPlan({ businessId: business.id, itemId: item.id, personId: recipient.id, planId })
    }
  }
  if (invoice.booking_id !== null) yield* completeInvoicedBooking(business.id, invoice.booking_id)
  yield* repo.setState({ businessId: business.id, id: invoice.id, state: "closed", now: at })
  // The commission recipient's pay, recorded by a job that commits with the closing.
  if (invoice.commission_recipient_id !== null) yield* enqueueSalePays(business.id, invoice.id)
})
