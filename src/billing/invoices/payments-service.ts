import { Data, Effect } from "effect"
import { CurrentBusiness } from "../../access/tenant.ts"
import type { InvoiceRow } from "./rows.ts"
import { type Caller, personOf } from "../../access/caller.ts"
import { PaymentConfigurationRepo } from "../../catalog/payment-configuration/repo.ts"
import type { PaymentConfigurationRow } from "../../catalog/payment-configuration/model.ts"
import { inTransaction } from "../../platform/transactions.ts"
import { type Message } from "../../shared/errors.ts"
import { localDateAt } from "../../shared/zoned-time.ts"
import { EXTERNAL_TYPE_BASE, type FormRow, PAYMENT_TYPE_IDS } from "./payments-model.ts"
import { PaymentsRepo } from "./payments-repo.ts"
import { PlansRepo } from "../plans/repo.ts"
import { invoicePayments } from "./payments-wire.ts"
import { currentTime } from "../../shared/clock.ts"
import { InvoiceRefusals } from "./refusals.ts"

/**
 * Payments, refunds and voids (spec: the invoice payments endpoints), by seam: paying.ts
 * (methods, paying, deleting a payment), voids.ts (voiding a payment), refunds.ts (refunds and
 * their voids); this file holds what they share. Every write is one transaction that locks
 * what it counts on (the invoice for a payment, the payment for a refund, the person for
 * account credit) and checks every rule before writing; the gateway is
 * asked last, and a decline rolls everything back but the failed payment's (or refund's) own
 * record, written after. Money rule: the invoice's paid amount = settled payments − settled
 * refunds; outstanding = total − paid, 0 once the invoice is closed or canceled.
 */

export class Declined extends Data.TaggedError("Declined")<{ readonly reason: string; readonly record: () => Effect.Effect<unknown> }> {}

export const scopeOf = (caller: Caller) => (caller._tag === "Staff" ? `account:${caller.accountId}` : `person:${personOf(caller)}`)

export const paymentAnswer = (invoice: InvoiceRow, paymentId: number) =>
  Effect.map(invoicePayments([invoice]), (byInvoice) => ({ payments: byInvoice.get(invoice.id)!.payments.filter((p) => p.id === paymentId) }))

export const cardDescription = (form: FormRow) =>
  form.type === "ach" ? `ACH ${form.account_number_masked ?? ""}`.trim() : `${form.card_type ?? "card"} ending in ${form.last_four ?? ""}`

/**
 * Keys a caller may pay with: staff the configuration's types, credit and external methods; a client creditcard and credit.
 * `known`: the configuration as the caller read it already (a payment reads it with its invoice's lock).
 */
export const acceptedKeys = Effect.fn("Payments.acceptedKeys")(function* (caller: Caller, known?: PaymentConfigurationRow) {
  const business = yield* CurrentBusiness
  const config = known ?? (yield* (yield* PaymentConfigurationRepo).find({ businessId: business.id }))
  const keys = new Map<string, number>()
  for (const type of config.accepted_types) {
    const id = (PAYMENT_TYPE_IDS as Record<string, number>)[type]
    if (id !== undefined && (caller._tag === "Staff" || type === "creditcard")) keys.set(type, id)
  }
  keys.set("credit", PAYMENT_TYPE_IDS.credit)
  if (caller._tag === "Staff") config.external_methods.forEach((name, i) => keys.set(name, EXTERNAL_TYPE_BASE + i))
  return keys
})

export const balanceOf = Effect.fn("Payments.balance")(function* (personId: number) {
  const business = yield* CurrentBusiness
  return (yield* (yield* PaymentsRepo).balances({ businessId: business.id, ids: [personId] })).get(personId) ?? 0
})

export const recordDeclined = (error: Declined) =>
  Effect.flatMap(inTransaction(error.record()), () => InvoiceRefusals.paymentDeclined.fail({ reason: error.reason }))

export const itemsToCancel = Effect.fn("Payments.itemsToCancel")(function* (invoiceId: number, ids: ReadonlyArray<number> | null | undefined, problems: Array<Message>) {
  const business = yield* CurrentBusiness
  const wanted = [...new Set(ids ?? [])]
  if (wanted.length === 0) return wanted
  const existing = yield* (yield* PaymentsRepo).invoiceItemIds({ businessId: business.id, invoiceId })
  for (const id of wanted) if (!existing.has(id)) problems.push(InvoiceRefusals.fieldIdNotFound.message({ field: "invoice_item_ids_to_cancel", id }))
  return wanted
})

export const cancelItems = Effect.fn("Payments.cancelItems")(function* (itemIds: ReadonlyArray<number>) {
  const business = yield* CurrentBusiness
  const at = yield* currentTime
  yield* (yield* PlansRepo).cancelItemPlans({ businessId: business.id, ids: itemIds, now: at, today: localDateAt(at.getTime(), business.time_zone) })
})
