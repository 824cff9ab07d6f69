import { Effect } from "effect"
import { CurrentBusiness } from "../../access/tenant.ts"
import { gatewayUnavailable } from "../forms-of-payment/service.ts"
import type { Caller } from "../../access/caller.ts"
import { findInvoice } from "./service.ts"
import { PaymentGateway } from "../../platform/payments/gateway.ts"
import { inTransaction } from "../../platform/transactions.ts"
import { type Message, Unprocessable, fail } from "../../shared/errors.ts"
import { idempotent } from "../../shared/idempotency.ts"
import { PAYMENT_TYPE_IDS, type PaymentRow, Payments, type VoidInput } from "./payments-model.ts"
import { PaymentsRepo } from "./payments-repo.ts"
import { cancelItems, itemsToCancel, paymentAnswer, scopeOf } from "./payments-service.ts"
import { settled } from "./payments-wire.ts"
import { currentTime } from "../../shared/clock.ts"
import { InvoiceRefusals } from "./refusals.ts"

/** Voids a settled payment without refunds (its row locked): the gateway voids a card charge, credit goes back to the ledger. */
export const undoPayment = Effect.fn("Payments.undo")(function* (payment: PaymentRow) {
  const business = yield* CurrentBusiness
  const repo = yield* PaymentsRepo
  if (payment.state !== "settled") return yield* InvoiceRefusals.paymentNotVoidable.fail({ id: payment.id, state: payment.state })
  if (settled((yield* repo.refunds({ businessId: business.id, ids: [payment.id] }))) > 0) {
    return yield* InvoiceRefusals.paymentNotVoidable.fail({ id: payment.id, state: "refunded" })
  }
  const at = yield* currentTime
  if (payment.gateway_transaction_id !== null) {
    const result = yield* (yield* PaymentGateway).void({ businessId: business.id, transactionId: payment.gateway_transaction_id })
    if (result._tag === "Declined") return yield* InvoiceRefusals.paymentDeclined.fail({ reason: result.reason })
  }
  if (payment.payment_type_id === PAYMENT_TYPE_IDS.credit) {
    yield* repo.lockPerson({ businessId: business.id, personId: payment.person_id })
    yield* repo.insertCredit({
      businessId: business.id,
      personId: payment.person_id,
      amountCents: payment.amount_cents,
      reason: "payment_voided",
      paymentId: payment.id,
      refundId: null,
      now: at
    })
  }
  yield* repo.voidPayment({ businessId: business.id, id: payment.id, now: at })
})

export const voidPayment = Effect.fn("Payments.void")(function* (caller: Caller, paymentId: number, input: VoidInput, idempotencyKey: string | undefined) {
  const business = yield* CurrentBusiness
  const repo = yield* PaymentsRepo
  const write = Effect.gen(function* () {
    const invoiceId = yield* inTransaction(
      Effect.gen(function* () {
        const payment = yield* repo.payment({ businessId: business.id, id: paymentId, lock: true })
        if (!payment) return yield* InvoiceRefusals.paymentNotFound.fail({ id: paymentId })
        const problems: Array<Message> = []
        const cancel = yield* itemsToCancel(payment.invoice_id, input.invoice_item_ids_to_cancel, problems)
        if (problems.length > 0) return yield* fail(Unprocessable, ...problems)
        yield* undoPayment(payment)
        yield* cancelItems(cancel)
        return payment.invoice_id
      })
    )
    return yield* paymentAnswer(yield* findInvoice(caller, invoiceId), paymentId)
  })
  return yield* idempotent(
    {
      businessId: business.id,
      scope: scopeOf(caller),
      key: idempotencyKey,
      request: { endpoint: `POST /api/v2/desk/payments/${paymentId}/voids`, void: input },
      response: Payments,
      status: 201
    },
    write
  ).pipe(Effect.catchTag("GatewayUnavailable", gatewayUnavailable))
})
