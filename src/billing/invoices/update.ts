import { Effect } from "effect"
import { CurrentBusiness } from "../../access/tenant.ts"
import { inTransaction } from "../../platform/transactions.ts"
import { type Message, Unprocessable, fail } from "../../shared/errors.ts"
import { closeInvoice } from "./close.ts"
import { InvoiceItemsRepo } from "./items-repo.ts"
import { type DeskInvoiceUpdateInput, type FrontInvoiceUpdateInput, INVOICE_STATES, type InvoiceState } from "./model.ts"
import { requireUnpaid } from "./paid-guard.ts"
import { ofInvoices } from "./payments-wire.ts"
import { type InvoiceSettings, InvoicesRepo } from "./repo.ts"
import { InvoiceRefsRepo } from "./refs-repo.ts"
import type { InvoiceRow } from "./rows.ts"
import type { Caller } from "../../access/caller.ts"
import { findInvoice, invoiceAnswer, recompute, requireManagerOutOfCheckout } from "./service.ts"
import { isEditable, stateEvents } from "./wire.ts"
import { currentTime } from "../../shared/clock.ts"
import { InvoiceRefusals } from "./refusals.ts"

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/

/**
 * The settings a body asks for (staff mode; a client's body holds only the coupon and the state
 * event), with each rule's problem gathered into `problems` for the one 422.
 */
const checkSettings = Effect.fn("Invoices.checkSettings")(function* (row: InvoiceRow, desk: DeskInvoiceUpdateInput, problems: Array<Message>) {
  const business = yield* CurrentBusiness
  const refs = yield* InvoiceRefsRepo
  let couponId = row.coupon_id
  if (desk.coupon_code !== undefined) {
    const code = (desk.coupon_code ?? "").trim()
    if (code === "") couponId = null
    else {
      const coupon = yield* refs.couponByCode({ businessId: business.id, code })
      if (!coupon || !coupon.active) problems.push(InvoiceRefusals.fieldIdNotFound.message({ field: "coupon_code", id: code }))
      else couponId = coupon.id
    }
  }
  const lookups = [
    ["location_id", "locations"],
    ["commission_recipient_id", "staff_members"],
    ["tip_recipient_id", "staff_members"],
    ["booking_id", "bookings"]
  ] as const
  for (const [field, table] of lookups) {
    const value = desk[field]
    if (value !== undefined && value !== null && !(yield* refs.exists({ businessId: business.id, table, id: value })).found) {
      problems.push(InvoiceRefusals.fieldIdNotFound.message({ field, id: value }))
    }
  }
  const sendReceipt = desk.send_receipt ?? row.send_receipt
  const receiptEmail = desk.receipt_email === undefined ? row.receipt_email : desk.receipt_email === null || desk.receipt_email.trim() === "" ? null : desk.receipt_email.trim()
  if (sendReceipt && receiptEmail === null) problems.push(InvoiceRefusals.fieldRequired.message({ field: "receipt_email" }))
  else if (receiptEmail !== null && !EMAIL.test(receiptEmail)) problems.push(InvoiceRefusals.fieldIsInvalid.message({ field: "receipt_email" }))
  const settings: InvoiceSettings = {
    locationId: desk.location_id === undefined ? row.location_id : desk.location_id,
    couponId,
    commissionRecipientId: desk.commission_recipient_id === undefined ? row.commission_recipient_id : desk.commission_recipient_id,
    tipRecipientId: desk.tip_recipient_id === undefined ? row.tip_recipient_id : desk.tip_recipient_id,
    sendReceipt,
    receiptEmail,
    bookingId: desk.booking_id === undefined ? row.booking_id : desk.booking_id
  }
  return settings
})

/** Moves the invoice to `next` when the state it has after the settings allows it (closing sells, close.ts). */
const applyStateEvent = Effect.fn("Invoices.applyStateEvent")(function* (caller: Caller, id: number, next: InvoiceState, at: Date) {
  const business = yield* CurrentBusiness
  const repo = yield* InvoicesRepo
  const current = (yield* repo.find({ businessId: business.id, id }))!
  const live = (yield* (yield* InvoiceItemsRepo).items({ businessId: business.id, invoiceIds: [id] })).length
  const outstanding = (yield* ofInvoices(business.id, [current], String)).get(id)!.outstanding
  if (!stateEvents(current, live, outstanding).includes(next)) {
    return yield* InvoiceRefusals.invoiceStateEventInvalid.fail({ field: "state_event", state: current.state, event: next })
  }
  if (next === "closed") yield* closeInvoice(current, caller)
  else yield* repo.setState({ businessId: business.id, id, state: next, now: at })
})

/** PUT invoices/:id: settings first, then the state event, in one transaction. */
export const updateInvoice = Effect.fn("Invoices.update")(function* (caller: Caller, id: number, input: DeskInvoiceUpdateInput | FrontInvoiceUpdateInput) {
  const business = yield* CurrentBusiness
  const repo = yield* InvoicesRepo
  const desk: DeskInvoiceUpdateInput = caller._tag === "Staff" ? input : { state_event: input.state_event, coupon_code: input.coupon_code }
  yield* inTransaction(
    Effect.gen(function* () {
      const row = yield* findInvoice(caller, id, true)
      const problems: Array<Message> = []
      const changesSettings = Object.entries(desk).some(([key, value]) => key !== "state_event" && value !== undefined)
      if (changesSettings && !isEditable(row)) return yield* InvoiceRefusals.invoiceNotEditable.fail({ id, state: row.state })
      const settings = yield* checkSettings(row, desk, problems)

      let next: InvoiceState | undefined
      if (desk.state_event !== undefined) {
        const event = desk.state_event
        if (!(INVOICE_STATES as ReadonlyArray<string>).includes(event)) {
          problems.push(InvoiceRefusals.fieldMustBeOneOf.message({ field: "state_event", values: INVOICE_STATES.join(", ") }))
        } else if (event !== row.state) next = event as InvoiceState
      }
      const movesTotal = settings.couponId !== row.coupon_id || (desk.location_id !== undefined && desk.location_id !== row.location_id)
      // Holding, reopening or canceling an invoice out of checkout, or moving its total, is a manager's (service.ts).
      if (movesTotal || (next !== undefined && next !== "closed")) yield* requireManagerOutOfCheckout(caller, row)
      if (problems.length > 0) return yield* fail(Unprocessable, ...problems)
      if (movesTotal) yield* requireUnpaid(row)

      const at = yield* currentTime
      if (changesSettings) {
        yield* repo.setSettings({ businessId: business.id, id, ...settings, now: at })
        yield* recompute(id)
      }
      if (next !== undefined) yield* applyStateEvent(caller, id, next, at)
    })
  )
  return yield* invoiceAnswer(caller, id)
})
