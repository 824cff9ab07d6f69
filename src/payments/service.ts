import { Data, Effect } from "effect"
import { randomUUID } from "node:crypto"
import { CurrentBusiness } from "../auth/tenant.ts"
import { gatewayUnavailable } from "../forms-of-payment/service.ts"
import { sendMail } from "../mail/service.ts"
import { RequestContext } from "../shared/request-context.ts"
import type { InvoiceRow } from "../invoices/model.ts"
import { InvoicesRepo } from "../invoices/repo.ts"
import { closeInvoice } from "../invoices/close.ts"
import { type Caller, findInvoice, now } from "../invoices/service.ts"
import { PaymentConfigurationRepo } from "../payment-configuration/repo.ts"
import { PaymentGateway } from "../platform/payments/gateway.ts"
import { inTransaction } from "../platform/transactions.ts"
import { type Message, NotFound, Unprocessable, fail } from "../shared/errors.ts"
import { idempotent } from "../shared/idempotency.ts"
import { localDateAt } from "../shared/zoned-time.ts"
import {
  CHECKOUT_STATES,
  EXTERNAL_TYPE_BASE,
  type FormRow,
  PAYABLE_STATES,
  PAYMENT_TYPE_IDS,
  type PaymentInput,
  PaymentMethods,
  type PaymentRow,
  Payments,
  type RefundInput,
  type RefundRow,
  Refunds,
  type VoidInput
} from "./model.ts"
import type { PaymentWire, RefundWire } from "../invoices/payments.ts"
import { type NewPayment, type NewRefund, PaymentsRepo } from "./repo.ts"
import { invoicePayments, maximumRefund, money, outstandingFrom, settled } from "./wire.ts"

/**
 * Payments, refunds and voids (spec: the invoice payments endpoints). Every write is one
 * transaction that locks what it counts on (the invoice for a payment, the payment for a
 * refund, the person for account credit) and checks every rule before writing; the gateway is
 * asked last, and a decline rolls everything back but the failed payment's (or refund's) own
 * record, written after. Money rule: the invoice's paid amount = settled payments − settled
 * refunds; outstanding = total − paid, 0 once the invoice is closed or canceled.
 */

class Declined extends Data.TaggedError("Declined")<{ readonly reason: string; readonly record: () => Effect.Effect<unknown> }> {}

const scopeOf = (caller: Caller) => (caller._tag === "Staff" ? `account:${caller.accountId}` : `person:${caller.personId}`)
const modePath = (caller: Caller) => (caller._tag === "Staff" ? "desk" : "front")

const paymentAnswer = (invoice: InvoiceRow, paymentId: number) =>
  Effect.map(invoicePayments([invoice]), (byInvoice) => ({ payments: byInvoice.get(invoice.id)!.payments.filter((p) => p.id === paymentId) }))

const cardDescription = (form: FormRow) =>
  form.type === "ach" ? `ACH ${form.account_number_masked ?? ""}`.trim() : `${form.card_type ?? "card"} ending in ${form.last_four ?? ""}`

/** Keys a caller may pay with: staff the configuration's types, credit and external methods; a client creditcard and credit. */
const acceptedKeys = Effect.fn("Payments.acceptedKeys")(function* (caller: Caller) {
  const business = yield* CurrentBusiness
  const config = yield* (yield* PaymentConfigurationRepo).find(business.id)
  const keys = new Map<string, number>()
  for (const type of config.accepted_types) {
    const id = (PAYMENT_TYPE_IDS as Record<string, number>)[type]
    if (id !== undefined && (caller._tag === "Staff" || type === "creditcard")) keys.set(type, id)
  }
  keys.set("credit", PAYMENT_TYPE_IDS.credit)
  if (caller._tag === "Staff") config.external_methods.forEach((name, i) => keys.set(name, EXTERNAL_TYPE_BASE + i))
  return keys
})

const balanceOf = Effect.fn("Payments.balance")(function* (personId: number) {
  const business = yield* CurrentBusiness
  return (yield* (yield* PaymentsRepo).balances(business.id, [personId])).get(personId) ?? 0
})

// ---------------------------------------------------------------------------------------------
// Payment methods

export const paymentMethods = Effect.fn("Payments.methods")(function* (caller: Caller, invoiceId: number) {
  const business = yield* CurrentBusiness
  const invoice = yield* findInvoice(caller, invoiceId)
  const repo = yield* PaymentsRepo
  const price = yield* money
  const keys = yield* acceptedKeys(caller)
  const payer = (yield* (yield* InvoicesRepo).people(business.id, [invoice.person_id]))[0] ?? { id: invoice.person_id, name: "", email: null }
  const entries: Array<typeof PaymentMethods.Type["payment_methods"][number]> = []
  for (const form of yield* repo.forms(business.id, invoice.person_id)) {
    if (!keys.has(form.type)) continue
    entries.push({
      payment_type_id: keys.get(form.type)!,
      key: form.type,
      description: cardDescription(form),
      form_of_payment_id: form.id,
      autobill: form.autobill,
      payer,
      details:
        form.type === "creditcard"
          ? { card_type: form.card_type, last_four: form.last_four, expire_month: form.expire_month, expire_year: form.expire_year }
          : { account_number: form.account_number_masked }
    })
  }
  const balance = yield* balanceOf(invoice.person_id)
  entries.push({
    payment_type_id: PAYMENT_TYPE_IDS.credit,
    key: "credit",
    description: "Account credit",
    form_of_payment_id: null,
    autobill: false,
    payer,
    details: { balance_cents: balance, balance: price(balance) }
  })
  for (const [key, id] of keys) {
    if (key === "creditcard" || key === "ach" || key === "credit") continue
    entries.push({ payment_type_id: id, key, description: key === "cash" ? "Cash" : key === "check" ? "Check" : key, form_of_payment_id: null, autobill: false, payer, details: {} })
  }
  return { payment_methods: entries }
})

// ---------------------------------------------------------------------------------------------
// Paying

/** Wrapped fields win over top-level ones (the spec lists them unwrapped; every other body is wrapped). */
export const paymentFields = (body: PaymentInput & { readonly payment?: PaymentInput | undefined }): PaymentInput => ({
  payment_method: body.payment?.payment_method ?? body.payment_method,
  amount_cents: body.payment?.amount_cents ?? body.amount_cents,
  form_of_payment_id: body.payment?.form_of_payment_id ?? body.form_of_payment_id
})

const recordDeclined = (error: Declined) =>
  Effect.flatMap(inTransaction(error.record()), () => fail(Unprocessable, { key: "payment_declined", params: { reason: error.reason } }))

export const createPayment = Effect.fn("Payments.create")(function* (caller: Caller, invoiceId: number, input: PaymentInput, idempotencyKey: string | undefined) {
  const business = yield* CurrentBusiness
  const repo = yield* PaymentsRepo
  const gateway = yield* PaymentGateway
  const write = Effect.gen(function* () {
    const paymentId = yield* inTransaction(
      Effect.gen(function* () {
        const invoice = yield* findInvoice(caller, invoiceId, true)
        if (!(PAYABLE_STATES as ReadonlyArray<string>).includes(invoice.state)) {
          return yield* fail(Unprocessable, { key: "invoice_not_payable", params: { id: invoice.id, state: invoice.state } })
        }
        const payments = yield* repo.payments(business.id, [invoice.id])
        const outstanding = outstandingFrom(invoice, payments, yield* repo.refunds(business.id, payments.map((p) => p.id)))
        const keys = yield* acceptedKeys(caller)
        const problems: Array<Message> = []
        const method = input.payment_method?.trim() ?? ""
        if (method === "") problems.push({ key: "field_required", params: { field: "payment_method" } })
        else if (!keys.has(method)) problems.push({ key: "field_must_be_one_of", params: { field: "payment_method", values: [...keys.keys()].join(", ") } })
        const amount = input.amount_cents ?? null
        if (amount === null) problems.push({ key: "field_required", params: { field: "amount_cents" } })
        else if (amount <= 0) problems.push({ key: "field_must_be_positive_integer", params: { field: "amount_cents" } })
        else if (amount > outstanding) problems.push({ key: "payment_amount_too_large", params: { field: "amount_cents", max: outstanding } })
        let form: FormRow | undefined
        if (method === "creditcard" || method === "ach") {
          const forms = (yield* repo.forms(business.id, invoice.person_id)).filter((f) => f.type === method)
          const wanted = input.form_of_payment_id ?? null
          form = wanted === null ? forms.find((f) => f.autobill) : forms.find((f) => f.id === wanted)
          if (form === undefined) {
            problems.push(
              wanted === null
                ? { key: "field_required", params: { field: "form_of_payment_id" } }
                : { key: "field_id_not_found", params: { field: "form_of_payment_id", id: wanted } }
            )
          }
        }
        if (problems.length > 0) return yield* fail(Unprocessable, ...problems)
        const cents = amount!
        const at = yield* now
        const base: NewPayment = {
          invoiceId: invoice.id,
          personId: invoice.person_id,
          paymentMethod: method,
          paymentTypeId: keys.get(method)!,
          formOfPaymentId: form?.id ?? null,
          state: "settled",
          amountCents: cents,
          description: form ? cardDescription(form) : method === "credit" ? "Account credit" : method === "cash" ? "Cash" : method === "check" ? "Check" : method,
          gatewayTransactionId: null,
          errorMessage: null,
          staffMemberId: caller._tag === "Staff" ? caller.staffMemberId : null,
          now: at
        }
        if (method === "credit") {
          yield* repo.lockPerson(business.id, invoice.person_id)
          const balance = yield* balanceOf(invoice.person_id)
          if (balance < cents) return yield* fail(Unprocessable, { key: "account_credit_insufficient", params: { field: "amount_cents", balance } })
        }
        if (method === "creditcard") {
          const result = yield* gateway.charge({
            businessId: business.id,
            token: form!.gateway_token!,
            amountCents: cents,
            currency: invoice.currency,
            idempotencyKey: idempotencyKey === undefined ? randomUUID() : `${business.id}:${scopeOf(caller)}:${idempotencyKey}`,
            description: `Invoice ${invoice.invoice_number}`
          })
          if (result._tag === "Declined") {
            return yield* new Declined({
              reason: result.reason,
              record: () => repo.insertPayment(business.id, { ...base, state: "failed", errorMessage: result.reason })
            })
          }
          Object.assign(base, { gatewayTransactionId: result.transactionId })
        }
        const id = yield* repo.insertPayment(business.id, base)
        if (method === "credit") {
          yield* repo.insertCredit(business.id, { personId: invoice.person_id, amountCents: -cents, reason: "payment", paymentId: id, refundId: null, now: at })
        }
        if (cents === outstanding) yield* closeInvoice(invoice, caller)
        return id
      })
    )
    const invoice = yield* findInvoice(caller, invoiceId)
    return yield* paymentAnswer(invoice, paymentId)
  })
  return yield* idempotent(
    {
      businessId: business.id,
      scope: scopeOf(caller),
      key: idempotencyKey,
      request: { endpoint: `POST /api/v2/${modePath(caller)}/invoices/${invoiceId}/payments`, payment: input },
      response: Payments,
      status: 201
    },
    write
  ).pipe(Effect.catchTag("GatewayUnavailable", gatewayUnavailable), Effect.catchTag("Declined", recordDeclined))
})

/** DELETE a payment: only while the invoice is in checkout (cart, cart_hidden); the money goes back and the record stays, voided. */
export const deletePayment = Effect.fn("Payments.delete")(function* (caller: Caller, invoiceId: number, paymentId: number) {
  const business = yield* CurrentBusiness
  const repo = yield* PaymentsRepo
  yield* inTransaction(
    Effect.gen(function* () {
      const invoice = yield* findInvoice(caller, invoiceId, true)
      const payment = yield* repo.payment(business.id, paymentId, true)
      if (!payment || payment.invoice_id !== invoice.id) return yield* fail(NotFound, { key: "payment_not_found", params: { id: paymentId } })
      if (!(CHECKOUT_STATES as ReadonlyArray<string>).includes(invoice.state)) {
        return yield* fail(Unprocessable, { key: "payment_not_deletable", params: { id: paymentId, state: invoice.state } })
      }
      yield* undoPayment(payment)
    })
  )
  return yield* paymentAnswer(yield* findInvoice(caller, invoiceId), paymentId)
}, (effect) => Effect.catchTag(effect, "GatewayUnavailable", gatewayUnavailable))

/** Voids a settled payment without refunds (its row locked): the gateway voids a card charge, credit goes back to the ledger. */
const undoPayment = Effect.fn("Payments.undo")(function* (payment: PaymentRow) {
  const business = yield* CurrentBusiness
  const repo = yield* PaymentsRepo
  if (payment.state !== "settled") return yield* fail(Unprocessable, { key: "payment_not_voidable", params: { id: payment.id, state: payment.state } })
  if (settled((yield* repo.refunds(business.id, [payment.id]))) > 0) {
    return yield* fail(Unprocessable, { key: "payment_not_voidable", params: { id: payment.id, state: "refunded" } })
  }
  const at = yield* now
  if (payment.gateway_transaction_id !== null) {
    const result = yield* (yield* PaymentGateway).void({ businessId: business.id, transactionId: payment.gateway_transaction_id })
    if (result._tag === "Declined") return yield* fail(Unprocessable, { key: "payment_declined", params: { reason: result.reason } })
  }
  if (payment.payment_type_id === PAYMENT_TYPE_IDS.credit) {
    yield* repo.lockPerson(business.id, payment.person_id)
    yield* repo.insertCredit(business.id, { personId: payment.person_id, amountCents: payment.amount_cents, reason: "payment_voided", paymentId: payment.id, refundId: null, now: at })
  }
  yield* repo.voidPayment(business.id, payment.id, at)
})

// ---------------------------------------------------------------------------------------------
// Refunds and voids (staff)

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/

const itemsToCancel = Effect.fn("Payments.itemsToCancel")(function* (invoiceId: number, ids: ReadonlyArray<number> | null | undefined, problems: Array<Message>) {
  const business = yield* CurrentBusiness
  const wanted = [...new Set(ids ?? [])]
  const existing = yield* (yield* PaymentsRepo).invoiceItemIds(business.id, invoiceId)
  for (const id of wanted) if (!existing.has(id)) problems.push({ key: "field_id_not_found", params: { field: "invoice_item_ids_to_cancel", id } })
  return wanted
})

const cancelItems = Effect.fn("Payments.cancelItems")(function* (itemIds: ReadonlyArray<number>) {
  const business = yield* CurrentBusiness
  const at = yield* now
  yield* (yield* PaymentsRepo).cancelItemPlans(business.id, itemIds, at, localDateAt(at.getTime(), business.time_zone))
})

export const createRefund = Effect.fn("Payments.refund")(function* (caller: Caller, invoiceId: number, paymentId: number, input: RefundInput, idempotencyKey: string | undefined) {
  const business = yield* CurrentBusiness
  const repo = yield* PaymentsRepo
  const write = Effect.gen(function* () {
    const refundId = yield* inTransaction(
      Effect.gen(function* () {
        const invoice = yield* findInvoice(caller, invoiceId)
        const payment = yield* repo.payment(business.id, paymentId, true)
        if (!payment || payment.invoice_id !== invoice.id) return yield* fail(NotFound, { key: "payment_not_found", params: { id: paymentId } })
        if (payment.state !== "settled") return yield* fail(Unprocessable, { key: "payment_not_refundable", params: { id: payment.id, state: payment.state } })
        const max = maximumRefund(payment, yield* repo.refunds(business.id, [payment.id]))
        const problems: Array<Message> = []
        const amount = input.amount_cents ?? null
        if (amount === null) problems.push({ key: "field_required", params: { field: "amount_cents" } })
        else if (amount <= 0) problems.push({ key: "field_must_be_positive_integer", params: { field: "amount_cents" } })
        else if (amount > max) problems.push({ key: "refund_amount_too_large", params: { field: "amount_cents", max } })
        const typeId = input.payment_type_id ?? payment.payment_type_id
        const allowed = [PAYMENT_TYPE_IDS.cash, PAYMENT_TYPE_IDS.credit, payment.payment_type_id]
        if (!allowed.includes(typeId)) problems.push({ key: "field_must_be_one_of", params: { field: "payment_type_id", values: [...new Set(allowed)].join(", ") } })
        const sendReceipt = input.send_receipt ?? false
        const email = input.receipt_email?.trim() || null
        if (sendReceipt && email === null) problems.push({ key: "field_required", params: { field: "receipt_email" } })
        else if (email !== null && !EMAIL.test(email)) problems.push({ key: "field_is_invalid", params: { field: "receipt_email" } })
        const cancel = yield* itemsToCancel(invoice.id, input.invoice_item_ids_to_cancel, problems)
        if (problems.length > 0) return yield* fail(Unprocessable, ...problems)
        const cents = amount!
        const at = yield* now
        const record: NewRefund = {
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
        if (typeId === payment.payment_type_id && payment.gateway_transaction_id !== null) {
          const result = yield* (yield* PaymentGateway).refund({
            businessId: business.id,
            transactionId: payment.gateway_transaction_id,
            amountCents: cents,
            idempotencyKey: idempotencyKey === undefined ? randomUUID() : `${business.id}:${scopeOf(caller)}:${idempotencyKey}`
          })
          if (result._tag === "Declined") {
            return yield* new Declined({ reason: result.reason, record: () => repo.insertRefund(business.id, { ...record, state: "failed", errorMessage: result.reason }) })
          }
          Object.assign(record, { gatewayTransactionId: result.transactionId })
        }
        const id = yield* repo.insertRefund(business.id, record)
        if (typeId === PAYMENT_TYPE_IDS.credit) {
          yield* repo.lockPerson(business.id, payment.person_id)
          yield* repo.insertCredit(business.id, { personId: payment.person_id, amountCents: cents, reason: "refund", paymentId: null, refundId: id, now: at })
        }
        yield* cancelItems(cancel)
        if (sendReceipt && email !== null) {
          // Enqueued in this transaction: a refund that rolls back sends nothing.
          yield* sendMail({
            template: "refund_receipt",
            to: email,
            locale: (yield* RequestContext).locale,
            params: { business: business.name, amount: (yield* money)(cents), invoice: invoice.invoice_number, description: record.description },
            businessId: business.id
          })
        }
        return id
      })
    )
    return yield* refundAnswer(refundId)
  })
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

const refundAnswer = Effect.fn("Payments.refundAnswer")(function* (refundId: number) {
  const business = yield* CurrentBusiness
  const refund = (yield* (yield* PaymentsRepo).refund(business.id, refundId))!
  const invoice = (yield* (yield* InvoicesRepo).find(business.id, refund.invoice_id, { lock: false }))!
  const byInvoice = yield* invoicePayments([invoice])
  const all = byInvoice.get(invoice.id)!.payments.flatMap((p) => p.refunds)
  return { refunds: all.filter((r) => r.id === refundId) }
})

export const voidPayment = Effect.fn("Payments.void")(function* (caller: Caller, paymentId: number, input: VoidInput, idempotencyKey: string | undefined) {
  const business = yield* CurrentBusiness
  const repo = yield* PaymentsRepo
  const write = Effect.gen(function* () {
    const invoiceId = yield* inTransaction(
      Effect.gen(function* () {
        const payment = yield* repo.payment(business.id, paymentId, true)
        if (!payment) return yield* fail(NotFound, { key: "payment_not_found", params: { id: paymentId } })
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

/** Voids a cash or account-credit refund (a card refund has gone back to the card: not voidable). */
export const voidRefund = Effect.fn("Payments.voidRefund")(function* (caller: Caller, refundId: number, idempotencyKey: string | undefined) {
  const business = yield* CurrentBusiness
  const repo = yield* PaymentsRepo
  const write = Effect.gen(function* () {
    yield* inTransaction(
      Effect.gen(function* () {
        const found = yield* repo.refund(business.id, refundId)
        if (!found) return yield* fail(NotFound, { key: "refund_not_found", params: { id: refundId } })
        // The payment first, then the refund: the order every refund writer locks in.
        const payment = (yield* repo.payment(business.id, found.payment_id, true))!
        const refund = (yield* repo.refund(business.id, refundId, true))!
        if (refund.state !== "settled" || refund.gateway_transaction_id !== null) {
          return yield* fail(Unprocessable, { key: "refund_not_voidable", params: { id: refund.id, state: refund.state } })
        }
        const at = yield* now
        if (refund.payment_type_id === PAYMENT_TYPE_IDS.credit) {
          yield* repo.lockPerson(business.id, payment.person_id)
          const balance = yield* balanceOf(payment.person_id)
          if (balance < refund.amount_cents) return yield* fail(Unprocessable, { key: "account_credit_insufficient", params: { field: "amount_cents", balance } })
          yield* repo.insertCredit(business.id, { personId: payment.person_id, amountCents: -refund.amount_cents, reason: "refund_voided", paymentId: null, refundId: refund.id, now: at })
        }
        yield* repo.voidRefund(business.id, refund.id, at)
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
  )
})

/** Account credit balances for the people list (`include_balances`). */
export const accountBalances = Effect.fn("Payments.balances")(function* (personIds: ReadonlyArray<number>) {
  const business = yield* CurrentBusiness
  return yield* (yield* PaymentsRepo).balances(business.id, personIds)
})
