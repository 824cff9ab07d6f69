import { Effect, Option } from "effect"
import { randomUUID } from "node:crypto"
import { CurrentBusiness } from "../../access/tenant.ts"
import { gatewayUnavailable } from "../forms-of-payment/service.ts"
import { closePaidInvoice } from "./close.ts"
import { InvoiceRefsRepo } from "./refs-repo.ts"
import type { InvoiceRow } from "./rows.ts"
import { type Caller, pathModeOf } from "../../access/caller.ts"
import { findInvoice } from "./service.ts"
import { paymentConfigurationOf } from "../../catalog/payment-configuration/repo.ts"
import type { PaymentConfigurationRow } from "../../catalog/payment-configuration/model.ts"
import { PaymentGateway } from "../../platform/payments/gateway.ts"
import { inTransaction } from "../../platform/transactions.ts"
import { type Message, Unprocessable, fail } from "../../shared/errors.ts"
import { idempotent } from "../../shared/idempotency.ts"
import { CHECKOUT_STATES, type FormRow, PAYABLE_STATES, PAYMENT_TYPE_IDS, type PaymentInput, PaymentMethods, Payments } from "./payments-model.ts"
import { PaymentsRepo } from "./payments-repo.ts"
import type { NewPayment } from "./payment-insert.ts"
import { Declined, acceptedKeys, balanceOf, cardDescription, paymentAnswer, recordDeclined, scopeOf } from "./payments-service.ts"
import { undoPayment } from "./voids.ts"
import { outstandingOf, paymentWireOf } from "./payments-wire.ts"
import { InvoicesRepo } from "./repo.ts"
import { currentTime } from "../../shared/clock.ts"
import { businessMoney } from "../../access/tenant.ts"
import { InvoiceRefusals } from "./refusals.ts"

// ---------------------------------------------------------------------------------------------
// Payment methods

export const paymentMethods = Effect.fn("Payments.methods")(function* (caller: Caller, invoiceId: number) {
  const business = yield* CurrentBusiness
  const invoice = yield* findInvoice(caller, invoiceId)
  const repo = yield* PaymentsRepo
  const price = yield* businessMoney
  const keys = yield* acceptedKeys(caller)
  const payer = (yield* (yield* InvoiceRefsRepo).people({ businessId: business.id, ids: [invoice.person_id] }))[0] ?? { id: invoice.person_id, name: "", email: null }
  const entries: Array<typeof PaymentMethods.Type["payment_methods"][number]> = []
  for (const form of yield* repo.forms({ businessId: business.id, personId: invoice.person_id })) {
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
  // The method's key (a payment type, not a message key).
  const credit = "credit"
  entries.push({
    payment_type_id: PAYMENT_TYPE_IDS.credit,
    key: credit,
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

/** The payment a body asks for: every rule checked before one 422 naming each problem. */
const checkPayment = Effect.fn("Payments.check")(function* (caller: Caller, invoice: InvoiceToPay, input: PaymentInput) {
  const business = yield* CurrentBusiness
  const repo = yield* PaymentsRepo
  if (!(PAYABLE_STATES as ReadonlyArray<string>).includes(invoice.state)) {
    return yield* InvoiceRefusals.invoiceNotPayable.fail({ id: invoice.id, state: invoice.state })
  }
  const outstanding = outstandingOf(invoice, invoice.settled_payments_cents, invoice.settled_refunds_cents)
  const keys = yield* acceptedKeys(caller, paymentConfigurationOf(Option.fromNullishOr(invoice.payment_configuration)))
  const problems: Array<Message> = []
  const method = input.payment_method?.trim() ?? ""
  if (method === "") problems.push(InvoiceRefusals.fieldRequired.message({ field: "payment_method" }))
  else if (!keys.has(method)) problems.push(InvoiceRefusals.fieldMustBeOneOf.message({ field: "payment_method", values: [...keys.keys()].join(", ") }))
  const amount = input.amount_cents ?? null
  if (amount === null) problems.push(InvoiceRefusals.fieldRequired.message({ field: "amount_cents" }))
  else if (amount <= 0) problems.push(InvoiceRefusals.fieldMustBePositiveInteger.message({ field: "amount_cents" }))
  else if (amount > outstanding) problems.push(InvoiceRefusals.paymentAmountTooLarge.message({ field: "amount_cents", max: outstanding }))
  let form: FormRow | undefined
  if (method === "creditcard" || method === "ach") {
    const forms = (yield* repo.forms({ businessId: business.id, personId: invoice.person_id })).filter((f) => f.type === method)
    const wanted = input.form_of_payment_id ?? null
    form = wanted === null ? forms.find((f) => f.autobill) : forms.find((f) => f.id === wanted)
    if (form === undefined) {
      problems.push(
        wanted === null
          ? InvoiceRefusals.fieldRequired.message({ field: "form_of_payment_id" })
          : InvoiceRefusals.fieldIdNotFound.message({ field: "form_of_payment_id", id: wanted })
      )
    }
  }
  if (problems.length > 0) return yield* fail(Unprocessable, ...problems)
  return { method, cents: amount!, form, paymentTypeId: keys.get(method)!, outstanding }
})

/**
 * Charges the card through the gateway: a decline is recorded as a failed payment (after the
 * rollback, recordDeclined) and answered 422. Answers the record with the gateway's transaction.
 */
const chargeCard = Effect.fn("Payments.chargeCard")(function* (
  caller: Caller,
  invoice: InvoiceRow,
  record: NewPayment,
  token: string,
  idempotencyKey: string | undefined
) {
  const business = yield* CurrentBusiness
  const repo = yield* PaymentsRepo
  const result = yield* (yield* PaymentGateway).charge({
    businessId: business.id,
    token,
    amountCents: record.amountCents,
    currency: invoice.currency,
    idempotencyKey: idempotencyKey === undefined ? randomUUID() : `${business.id}:${scopeOf(caller)}:${idempotencyKey}`,
    description: `Invoice ${invoice.invoice_number}`
  })
  if (result._tag === "Declined") {
    return yield* new Declined({
      reason: result.reason,
      record: () => repo.insertPayment({ businessId: business.id, ...record, state: "failed", errorMessage: result.reason })
    })
  }
  return { ...record, gatewayTransactionId: result.transactionId }
})

type InvoiceToPay = InvoiceRow & {
  readonly settled_payments_cents: number
  readonly settled_refunds_cents: number
  /** The business's own payment configuration, read with the invoice's lock (null: it has none). */
  readonly payment_configuration: PaymentConfigurationRow | null
}

/** The invoice, locked, with what is settled on it, if the caller may see it (as `findInvoice`). */
const findToPay = Effect.fn("Payments.findInvoice")(function* (caller: Caller, id: number) {
  const business = yield* CurrentBusiness
  const row = yield* (yield* InvoicesRepo).findToPay({ businessId: business.id, id })
  if (!row || (caller._tag === "Client" && row.person_id !== caller.personId)) return yield* InvoiceRefusals.invoiceNotFound.fail({ id })
  return row
})

/** One payment, inside the caller's transaction; the invoice closes when nothing is left outstanding. Answers the payment and its payer. */
const pay = Effect.fn("Payments.pay")(function* (caller: Caller, invoiceId: number, input: PaymentInput, idempotencyKey: string | undefined) {
  const business = yield* CurrentBusiness
  const repo = yield* PaymentsRepo
  const invoice = yield* findToPay(caller, invoiceId)
  const { method, cents, form, paymentTypeId, outstanding } = yield* checkPayment(caller, invoice, input)
  const at = yield* currentTime
  const base: NewPayment = {
    invoiceId: invoice.id,
    personId: invoice.person_id,
    paymentMethod: method,
    paymentTypeId,
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
    yield* repo.lockPerson({ businessId: business.id, personId: invoice.person_id })
    const balance = yield* balanceOf(invoice.person_id)
    if (balance < cents) return yield* InvoiceRefusals.accountCreditInsufficient.fail({ field: "amount_cents", balance })
  }
  const record = method === "creditcard" ? yield* chargeCard(caller, invoice, base, form!.gateway_token!, idempotencyKey) : base
  // The payment that leaves nothing outstanding is written by the closing's own statement.
  const payment = cents === outstanding
    ? yield* closePaidInvoice(invoice, caller, invoice.sale_lines, record)
    : yield* repo.insertPayment({ businessId: business.id, ...record })
  const id = payment.id
  if (method === "credit") {
    yield* repo.insertCredit({
      businessId: business.id,
      personId: invoice.person_id,
      amountCents: -cents,
      reason: "payment",
      paymentId: id,
      refundId: null,
      now: at
    })
  }
  return payment
})

export const createPayment = Effect.fn("Payments.create")(function* (caller: Caller, invoiceId: number, input: PaymentInput, idempotencyKey: string | undefined) {
  const business = yield* CurrentBusiness
  const write = Effect.gen(function* () {
    const { payer, ...payment } = yield* inTransaction(pay(caller, invoiceId, input, idempotencyKey))
    // A new payment has no refund yet: its answer is what was written.
    return { payments: [paymentWireOf([], [payer], yield* businessMoney)(payment)] }
  })
  return yield* idempotent(
    {
      businessId: business.id,
      scope: scopeOf(caller),
      key: idempotencyKey,
      request: { endpoint: `POST /api/v2/${pathModeOf(caller)}/invoices/${invoiceId}/payments`, payment: input },
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
      const payment = yield* repo.payment({ businessId: business.id, id: paymentId, lock: true })
      if (!payment || payment.invoice_id !== invoice.id) return yield* InvoiceRefusals.paymentNotFound.fail({ id: paymentId })
      if (!(CHECKOUT_STATES as ReadonlyArray<string>).includes(invoice.state)) {
        return yield* InvoiceRefusals.paymentNotDeletable.fail({ id: paymentId, state: invoice.state })
      }
      yield* undoPayment(payment)
    })
  )
  return yield* paymentAnswer(yield* findInvoice(caller, invoiceId), paymentId)
}, (effect) => Effect.catchTag(effect, "GatewayUnavailable", gatewayUnavailable))
