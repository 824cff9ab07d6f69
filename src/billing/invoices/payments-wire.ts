import { Effect } from "effect"
import { CurrentBusiness } from "../../access/tenant.ts"
import { InvoiceRefsRepo } from "./refs-repo.ts"
import { formatTimestamp } from "../../shared/schemas.ts"
import { type InvoiceTotal, type PaymentWire, type RefundWire } from "./payments-model.ts"
import type { PaymentRow, RefundRow } from "./payments-model.ts"
import { PaymentsRepo } from "./payments-repo.ts"
import { businessMoney } from "../../access/tenant.ts"

/**
 * Payment records as invoices show them, and the money rule: paid = settled payments − settled
 * refunds; outstanding = total − paid (never below 0), and 0 once the invoice is closed or
 * canceled (nothing more is collected on it; a refund of a closed invoice does not reopen it).
 * Read by the invoice answer (src/billing/invoices/wire.ts) and by payments themselves.
 */

export const settled = <R extends { readonly state: string; readonly amount_cents: number }>(rows: ReadonlyArray<R>) =>
  rows.filter((r) => r.state === "settled").reduce((sum, r) => sum + r.amount_cents, 0)

/** total − (settled payments − settled refunds); nothing once closed or canceled. */
export const outstandingOf = (invoice: InvoiceTotal, settledPayments: number, settledRefunds: number) =>
  invoice.state === "closed" || invoice.state === "canceled" ? 0 : Math.max(0, invoice.total_cents - settledPayments + settledRefunds)

export const outstandingFrom = (invoice: InvoiceTotal, payments: ReadonlyArray<PaymentRow>, refunds: ReadonlyArray<RefundRow>) =>
  outstandingOf(invoice, settled(payments), settled(refunds))

export const maximumRefund = (payment: PaymentRow, refunds: ReadonlyArray<RefundRow>) =>
  payment.state === "settled" ? payment.amount_cents - settled(refunds.filter((r) => r.payment_id === payment.id)) : 0

type Ref = { readonly id: number; readonly name: string; readonly email: string | null }

/** A refund record as payments and refunds show it. */
export const refundWireOf = (price: (cents: number) => string) => (r: RefundRow): RefundWire => ({
  id: r.id,
  amount_cents: r.amount_cents,
  amount: price(r.amount_cents),
  state: r.state,
  payment_id: r.payment_id,
  payment_type_id: r.payment_type_id,
  description: r.description,
  created_at: formatTimestamp(r.created_at),
  voided_at: r.voided_at === null ? null : formatTimestamp(r.voided_at),
  ...(r.error_message === null ? {} : { error_message: r.error_message })
})

/** A payment record as invoices and payments show it, from its refunds and the people who paid. */
export const paymentWireOf = (refunds: ReadonlyArray<RefundRow>, people: ReadonlyArray<Ref>, price: (cents: number) => string) => {
  const refundWire = refundWireOf(price)
  return (p: PaymentRow): PaymentWire => {
    const max = maximumRefund(p, refunds)
    return {
      id: p.id,
      description: p.description,
      state: p.state,
      payment_method: p.payment_method,
      payment_type_id: p.payment_type_id,
      amount_cents: p.amount_cents,
      amount: price(p.amount_cents),
      maximum_refund_cents: max,
      maximum_refund: price(max),
      created_at: formatTimestamp(p.created_at),
      voided_at: p.voided_at === null ? null : formatTimestamp(p.voided_at),
      ...(p.error_message === null ? {} : { error_message: p.error_message }),
      refunds: refunds.filter((r) => r.payment_id === p.id).map(refundWire),
      payer: people.find((person) => person.id === p.person_id) ?? { id: p.person_id, name: "", email: null }
    }
  }
}

/** The invoices' money as payments see it: outstanding amount and payment records, per invoice id. */
export const ofInvoices = Effect.fn("Payments.ofInvoices")(function* (
  businessId: number,
  rows: ReadonlyArray<InvoiceTotal>,
  price: (cents: number) => string
) {
  const business = { id: businessId }
  const repo = yield* PaymentsRepo
  const payments = yield* repo.payments({ businessId: business.id, ids: rows.map((r) => r.id) })
  const refunds = yield* repo.refunds({ businessId: business.id, ids: payments.map((p) => p.id) })
  const people = yield* (yield* InvoiceRefsRepo).people({ businessId: business.id, ids: [...new Set(payments.map((p) => p.person_id))] })
  const wire = paymentWireOf(refunds, people, price)
  return new Map(
    rows.map((row) => {
      const own = payments.filter((p) => p.invoice_id === row.id)
      const ownRefunds = refunds.filter((r) => r.invoice_id === row.id)
      return [row.id, { outstanding: outstandingFrom(row, own, ownRefunds), payments: own.map(wire) }] as const
    })
  )
})

/** The invoices' payments and outstanding amounts, for payments' own answers. */
export const invoicePayments = (rows: ReadonlyArray<InvoiceTotal>) =>
  Effect.gen(function* () {
    const business = yield* CurrentBusiness
    return yield* ofInvoices(business.id, rows, yield* businessMoney)
  })
