import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { CurrentBusiness } from "../../access/tenant.ts"
import { gatewayUnavailable } from "../forms-of-payment/service.ts"
import type { InvoiceRow } from "./rows.ts"
import type { Caller } from "../../access/caller.ts"
import { findInvoice } from "./service.ts"
import { sendMail } from "../../platform/mail/service.ts"
import { PaymentGateway } from "../../platform/payments/gateway.ts"
import { inTransaction } from "../../platform/transactions.ts"
import { type Message, Unprocessable, fail } from "../../shared/errors.ts"
import { idempotent } from "../../shared/idempotency.ts"
import { RequestContext } from "../../shared/request-context.ts"
import { PAYMENT_TYPE_IDS, type PaymentRow, type RefundInput, Refunds } from "./payments-model.ts"
import { type NewRefund, PaymentsRepo } from "./payments-repo.ts"
import { Declined, balanceOf, cancelItems, itemsToCancel, recordDeclined, scopeOf } from "./payments-service.ts"
import { maximumRefund, refundWireOf } from "./payments-wire.ts"
import { currentTime } from "../../shared/clock.ts"
import { businessMoney } from "../../access/tenant.ts"
import { InvoiceRefusals } from "./refusals.ts"

// ---------------------------------------------------------------------------------------------
// Refunds and their voids (staff)

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/

/** The refund a body asks for: every rule checked before one 422 naming each problem. */
const checkRefund = Effect.fn("Payments.checkRefund")(function* (invoice: InvoiceRow, payment: PaymentRow, input: RefundInput) {
  const business = yield* CurrentBusiness
  if (payment.state !== "settled") return yield* InvoiceRefusals.paymentNotRefundable.fail({ id: payment.id, state: payment.state })
  const max = maximumRefund(payment, yield* (yield* PaymentsRepo).refunds({ businessId: business.id, ids: [payment.id] }))
  const problems: Array<Message> = []
  const amount = input.amount_cents ?? null
  if (amount === null) problems.push(InvoiceRefusals.fieldRequired.message({ field: "amount_cents" }))
  else if (amount <= 0) problems.push(InvoiceRefusals.fieldMustBePositiveInteger.message({ field: "amount_cents" }))
  else if (amount > max) problems.push(InvoiceRefusals.refundAmountTooLarge.message({ field: "amount_cents", max }))
  const typeId = input.payment_type_id ?? payment.payment_type_id
  const allowed = [PAYMENT_TYPE_IDS.cash, PAYMENT_TYPE_IDS.credit, payment.payment_type_id]
  if (!allowed.includes(typeId)) problems.push(InvoiceRefusals.fieldMustBeOneOf.message({ field: "payment_type_id", values: [...new Set(allowed)].join(", ") }))
  const sendReceipt = input.send_receipt ?? false
  const email = input.receipt_email?.trim() || null
  if (sendReceipt && email === null) problems.push(InvoiceRefusals.fieldRequired.message({ field: "receipt_email" }))
  else if (email !== null && !EMAIL.test(email)) problems.push(InvoiceRefusals.fieldIsInvalid.message({ field: "receipt_email" }))
  const cancel = yield* itemsToCancel(invoice.id, input.invoice_item_ids_to_cancel, problems)
  if (problems.length > 0) return yield* fail(Unprocessable, ...problems)
  return { cents: amount!, typeId, sendReceipt, email, cancel }
})

/**
 * A refund to the payment's own method with a gateway transaction goes back through the gateway:
 * a decline is recorded as a failed refund (after the rollback, recordDeclined) and answered 422.
 */
const refundThroughGateway = Effect.fn("Payments.refundThroughGateway")(function* (
  caller: Caller,
  transactionId: string,
  record: NewRefund,
  idempotencyKey: string | undefined
) {
  const business = yield* CurrentBusiness
  const result = yield* (yield* PaymentGateway).refund({
    businessId: business.id,
    transactionId,
    amountCents: record.amountCents,
    idempotencyKey: idempotencyKey === undefined ? randomUUID() : `${business.id}:${scopeOf(caller)}:${idempotencyKey}`
  })
  if (result._tag === "Declined") {
    const repo = yield* PaymentsRepo
    return yield* new Declined({ reason: result.reason, record: () => repo.insertRefund({ businessId: business.id, ...record, state: "failed", errorMessage: result.reason }) })
  }
  return { ...record, gatewayTransactionId: result.transactionId }
})

/** One refund, inside the caller's transaction: credit to the ledger, items canceled, the receipt enqueued. Answers its row as written. */
const refund = Effect.fn("Payments.refundInTransaction")(function* (
  caller: Caller,
  invoiceId: number,
  paymentId: number,
  input: RefundInput,
  idempotencyKey: string | undefined
) {
  const business = yield* CurrentBusiness
  const repo = yield* PaymentsRepo
  const invoice = yield* findInvoice(caller, invoiceId)
  const payment = yield* repo.payment({ businessId: business.id, id: paymentId, lock: true })
  if (!payment || payment.invoice_id !== invoice.id) return yield* InvoiceRefusals.paymentNotFound.fail({ id: paymentId })
  const { cents, typeId, sendReceipt, email, cancel } = yield* checkRefund(invoice, payment, input)
  const at = yield* currentTime
  const base: NewRefund = {
    paymentId: payment.id,
    invoiceId: invoice.id,
    paymentTypeId: typeId,
    state: "settled",
    amountCents: cents,
    description: typeId === PAYMENT_TYPE_IDS.cash ? "Cash" : typeId === PAYMENT_TYPE_IDS.credit ? "Account credit" : payment.description,
    gatewayTransactionId: null,
    errorMessage: null,
    sendReceipt,
    receiptEmail: email,
    staffMemberId: caller._tag === "Staff" ? caller.staffMemberId : null,
    now: at
  }
  const record = typeId === payment.payment_type_id && payment.gateway_transaction_id !== null
    ? yield* refundThroughGateway(caller, payment.gateway_transaction_id, base, idempotencyKey)
    : base
  const written = yield* repo.insertRefund({ businessId: business.id, ...record })
  if (typeId === PAYMENT_TYPE_IDS.credit) {
    yield* repo.lockPerson({ businessId: business.id, personId: payment.person_id })
    yield* repo.insertCredit({
      businessId: business.id,
      personId: payment.person_id,
      amountCents: cents,
      reason: "refund",
      paymentId: null,
      refundId: written.id,
      now: at
    })
  }
  yield* cancelItems(cancel)
  if (sendReceipt && email !== null) {
    // Enqueued in this transaction: a refund that rolls back sends nothing.
    yield* sendMail({
      template: "refund_receipt",
      to: email,
      locale: (yield* RequestContext).locale,
      params: { business: business.name, amount: (yield* businessMoney)(cents), invoice: invoice.invoice_number, description: record.description },
      businessId: business.id
    })
  }
  return written
})

export const createRefund = Effect.fn("Payments.refund")(function* (caller: Caller, invoiceId: number, paymentId: number, input: RefundInput, idempotencyKey: string | undefined) {
  const business = yield* CurrentBusiness
  // Answered from the row as written: a refund's record is its own row, nothing else is read back.
  const write = Effect.flatMap(inTransaction(refund(caller, invoiceId, paymentId, input, idempotencyKey)), (row) =>
    Effect.map(businessMoney, (price) => ({ refunds: [refundWireOf(price)(row)] })))
  return yield* idempotent(
    {
      businessId: business.id,
      scope: scopeOf(caller),
      key: idempotencyKey,
      request: { endpoint: `POST /api/v2/desk/invoices/${invoiceId}/payments/${paymentId}/refunds`, refund: input },
      response: Refunds,
      status: 201
    },
    write
  ).pipe(Effect.catchTag("GatewayUnavailable", gatewayUnavailable), Effect.catchTag("Declined", recordDeclined))
})

/** A refund as it is now (after its void). */
const refundAnswer = Effect.fn("Payments.refundAnswer")(function* (refundId: number) {
  const business = yield* CurrentBusiness
  const refund = (yield* (yield* PaymentsRepo).refund({ businessId: business.id, id: refundId }))!
  return { refunds: [refundWireOf(yield* businessMoney)(refund)] }
})

/** Voids a settled refund: a card refund through the gateway's void, account credit taken back from the ledger. */
export const voidRefund = Effect.fn("Payments.voidRefund")(function* (caller: Caller, refundId: number, idempotencyKey: string | undefined) {
  const business = yield* CurrentBusiness
  const repo = yield* PaymentsRepo
  const write = Effect.gen(function* () {
    yield* inTransaction(
      Effect.gen(function* () {
        const found = yield* repo.refund({ businessId: business.id, id: refundId })
        if (!found) return yield* InvoiceRefusals.refundNotFound.fail({ id: refundId })
        // The payment first, then the refund: the order every refund writer locks in.
        const payment = (yield* repo.payment({ businessId: business.id, id: found.payment_id, lock: true }))!
        const refund = (yield* repo.refund({ businessId: business.id, id: refundId, lock: true }))!
        if (refund.state !== "settled") {
          return yield* InvoiceRefusals.refundNotSettled.fail({ id: refund.id, state: refund.state })
        }
        const at = yield* currentTime
        if (refund.gateway_transaction_id !== null) {
          const result = yield* (yield* PaymentGateway).void({ businessId: business.id, transactionId: refund.gateway_transaction_id })
          if (result._tag === "Declined") return yield* InvoiceRefusals.paymentDeclined.fail({ reason: result.reason })
        }
        if (refund.payment_type_id === PAYMENT_TYPE_IDS.credit) {
          yield* repo.lockPerson({ businessId: business.id, personId: payment.person_id })
          const balance = yield* balanceOf(payment.person_id)
          if (balance < refund.amount_cents) return yield* InvoiceRefusals.accountCreditInsufficient.fail({ field: "amount_cents", balance })
          yield* repo.insertCredit({
            businessId: business.id,
            personId: payment.person_id,
            amountCents: -refund.amount_cents,
            reason: "refund_voided",
            paymentId: null,
            refundId: refund.id,
            now: at
          })
        }
        yield* repo.voidRefund({ businessId: business.id, id: refund.id, now: at })
      })
    )
    return yield* refundAnswer(refundId)
  })
  return yield* idempotent(
    {
      businessId: business.id,
      scope: scopeOf(caller),
      key: idempotencyKey,
      request: { endpoint: `POST /api/v2/desk/refunds/${refundId}/voids` },
      response: Refunds,
      status: 201
    },
    write
  ).pipe(Effect.catchTag("GatewayUnavailable", gatewayUnavailable))
})
