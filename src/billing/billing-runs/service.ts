import { Clock, Effect } from "effect"
import { SqlClient } from "effect/sql"
import { CurrentBusiness } from "../../access/tenant.ts"
import { InvoiceItemsRepo } from "../invoices/items-repo.ts"
import { InvoicesRepo } from "../invoices/repo.ts"
import type { Caller } from "../../access/caller.ts"
import { recompute } from "../invoices/service.ts"
import { PAYMENT_TYPE_IDS } from "../invoices/payments-model.ts"
import { PaymentsRepo } from "../invoices/payments-repo.ts"
import { createPayment } from "../invoices/paying.ts"
import { outstandingFrom } from "../invoices/payments-wire.ts"
import { AppConfig } from "../../platform/config.ts"
import { enqueueJob } from "../../platform/jobs.ts"
import { commitmentEnd } from "../plans/model.ts"
import { PlansRepo } from "../plans/repo.ts"
import { t } from "../../shared/i18n.ts"
import { type BusinessRow, RequestContext, jobRequestContext } from "../../shared/request-context.ts"
import { addDays, localDateAt } from "../../shared/zoned-time.ts"
import { ChargeMembershipPeriodJob } from "./jobs.ts"
import { BillingRunsRepo, type MembershipRow } from "./repo.ts"

/**
 * Automatic membership billing. A membership sold through an invoice renews on its product's
 * invoice interval: period n starts n intervals after the plan's start date (period 0 was paid
 * by the sale). Two steps, both safe to run any number of times at once:
 *
 * 1. The sweep (cron, `billDueMemberships`): for each plan whose next period has begun
 *    (business-local date), one transaction inserts the period row (the claim: unique per plan
 *    and period_start, `on conflict do nothing`), creates the renewal invoice (state open, one
 *    item at the plan's own price for the plan's people, already tied to the plan so closing it
 *    creates no new plan) and enqueues the period's charge job. A plan with a period still being
 *    retried gets no new one; a missed sweep is caught up one period a sweep.
 * 2. The charge (`chargePeriod`): with the period row locked, pays the invoice's outstanding
 *    amount on the payer's autobill card through the same path as POST .../payments, under the
 *    idempotency key `autobill:<plan>:<period_start>:<attempt>`: a worker that dies mid-charge
 *    rolls back, and its retry sends the same key, so the gateway answers the first charge. Paid:
 *    the invoice closes and the period is `paid`. Declined (or no autobill card): a failed
 *    payment is recorded and the next attempt is scheduled RETRY_DAYS later; after the last,
 *    the period is `failed` and the plan ends the day before the period (its invoice stays
 *    open: the amount is owed, staff may collect or cancel it).
 *
 * Commitment: a product with stop_renewing_after_commitment is not billed for periods starting
 * after its commitment (the plan gets that end date); a plan with an end date is not billed
 * for periods starting after it; canceled and deactivated plans are not billed.
 */

/** Days after a declined attempt the next is made: attempts 2, 3 and 4 come 1, 3 and 7 days after the one before. */
export const RETRY_DAYS = [1, 3, 7] as const
export const MAX_ATTEMPTS = RETRY_DAYS.length + 1

const UNITS = { weekly: "week", monthly: "month", yearly: "year" } as const

/** The first day of period `n` of a plan starting on `start`: the day after commitmentEnd of n intervals (its month-end rule). */
export const periodStart = (start: string, n: number, count: number, unit: MembershipRow["invoice_interval_unit"]): string =>
  n === 0 ? start : addDays(commitmentEnd(start, n * count, UNITS[unit])!, 1)

/** The idempotency key of one charge attempt (payments scope it by business and payer). */
export const attemptKey = (planId: number, start: string, attempt: number) => `autobill:${planId}:${start}:${attempt}`

/** The next period a plan is due to be billed for, if any has begun and the plan's rules allow it. */
export const nextDuePeriod = (plan: MembershipRow, today: string): { readonly start: string; readonly endPlanOn?: string } | undefined => {
  if (plan.unresolved) return undefined
  let n = 1
  let start = periodStart(plan.start_date, n, plan.invoice_interval_count, plan.invoice_interval_unit)
  while (plan.last_period_start !== null && start <= plan.last_period_start) {
    n += 1
    start = periodStart(plan.start_date, n, plan.invoice_interval_count, plan.invoice_interval_unit)
  }
  if (start > today) return undefined
  if (plan.end_date !== null && start > plan.end_date) return undefined
  if (plan.stop_renewing_after_commitment) {
    const end = commitmentEnd(plan.start_date, plan.commitment_length, plan.commitment_unit)
    if (end !== null && start > end) return plan.end_date === null ? { start, endPlanOn: end } : undefined
  }
  return { start }
}

/** A job has no request: links use the business's public host, messages its default locale. */
const inBusiness = (business: BusinessRow) =>
  Effect.gen(function* () {
    const config = yield* AppConfig
    const context = yield* jobRequestContext(business, config.baseDomain)
    return <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      effect.pipe(Effect.provideService(CurrentBusiness, business), Effect.provideService(RequestContext, context))
  })

/** The sweep: claims and invoices every due period; answers how many periods it billed. */
export const billDueMemberships = Effect.fn("BillingRuns.sweep")(function* () {
  const sql = yield* SqlClient.SqlClient
  const repo = yield* BillingRunsRepo
  const nowMs = yield* Clock.currentTimeMillis
  let billed = 0
  for (const business of yield* repo.businesses({})) {
    const provide = yield* inBusiness(business)
    const today = localDateAt(nowMs, business.time_zone)
    for (const plan of yield* repo.memberships({ businessId: business.id })) {
      const due = nextDuePeriod(plan, today)
      if (due === undefined) continue
      const at = new Date(nowMs)
      if (due.endPlanOn !== undefined) {
        // The plan ends on its last paid day (plan.ended announces it once it has passed).
        yield* (yield* PlansRepo).updateState({ businessId: business.id, id: plan.id, endDate: due.endPlanOn, now: at })
        continue
      }
      const claimed = yield* sql.withTransaction(provide(billPeriod(plan, due.start, at))).pipe(Effect.orDie)
      if (claimed) billed += 1
    }
  }
  return billed
})

/** One period's claim, renewal invoice and charge job, in the caller's transaction; false when already claimed. */
const billPeriod = Effect.fn("BillingRuns.billPeriod")(function* (plan: MembershipRow, start: string, at: Date) {
  const business = yield* CurrentBusiness
  const repo = yield* BillingRunsRepo
  const invoices = yield* InvoicesRepo
  const items = yield* InvoiceItemsRepo
  const periodId = yield* repo.claim({ businessId: business.id, planId: plan.id, periodStart: start, personId: plan.payer_id, now: at })
  if (periodId === undefined) return false
  const { id: invoiceId } = yield* invoices.insert({
    businessId: business.id,
    invoiceNumber: yield* invoices.nextNumber({ businessId: business.id }),
    invoiceDate: start,
    personId: plan.payer_id,
    currency: business.currency_code,
    bookingId: null,
    createdByStaffMemberId: null,
    createdByPersonId: null,
    now: at
  })
  const people = yield* repo.planPeople({ businessId: business.id, planId: plan.id })
  const itemId = yield* items.insertItem({
    businessId: business.id,
    invoiceId,
    kind: "plan",
    parentItemId: null,
    planProductId: plan.plan_product_id,
    name: plan.name,
    description: plan.description,
    staffMemberId: plan.staff_member_id,
    eventId: null,
    startDate: start,
    priceCents: plan.price_cents,
    personIds: people,
    now: at
  })
  // Tied to the plan it renews: closing the invoice extends this plan instead of selling a new one.
  for (const personId of people) yield* items.setRecipientPlan({ businessId: business.id, itemId, personId, planId: plan.id })
  yield* recompute(invoiceId)
  yield* invoices.setState({ businessId: business.id, id: invoiceId, state: "open", now: at })
  yield* repo.setInvoice({ businessId: business.id, id: periodId, invoiceId })
  yield* enqueueJob(ChargeMembershipPeriodJob, { business_id: business.id, period_id: periodId }, { jobKey: `autobill:${business.id}:${periodId}` })
  return true
})

export type ChargeOutcome = "paid" | "declined" | "failed" | "skipped"

/** The charge job: one attempt on the period's invoice (see the module's comment). */
export const chargePeriod = Effect.fn("BillingRuns.charge")(function* (businessId: number, periodId: number) {
  const sql = yield* SqlClient.SqlClient
  const business = yield* (yield* BillingRunsRepo).business({ id: businessId })
  if (business === undefined) return "skipped" as ChargeOutcome
  const provide = yield* inBusiness(business)
  return yield* sql.withTransaction(provide(attempt(periodId))).pipe(Effect.orDie)
})

const attempt = Effect.fn("BillingRuns.attempt")(function* (periodId: number) {
  const business = yield* CurrentBusiness
  const repo = yield* BillingRunsRepo
  const payments = yield* PaymentsRepo
  const nowMs = yield* Clock.currentTimeMillis
  const at = new Date(nowMs)
  const period = yield* repo.lock({ businessId: business.id, id: periodId })
  if (period === undefined || period.state !== "open" || period.invoice_id === null) return "skipped" as ChargeOutcome
  if (period.next_attempt_at !== null && period.next_attempt_at.getTime() > nowMs) return "skipped" as ChargeOutcome
  const invoice = (yield* (yield* InvoicesRepo).find({ businessId: business.id, id: period.invoice_id, lock: true }))!
  const paid = yield* payments.payments({ businessId: business.id, ids: [invoice.id] })
  const outstanding = outstandingFrom(invoice, paid, yield* payments.refunds({ businessId: business.id, ids: paid.map((p) => p.id) }))
  const number = period.attempts + 1
  if (invoice.state === "closed" || outstanding === 0) {
    yield* repo.record({ businessId: business.id, id: period.id, state: invoice.state === "closed" ? "paid" : "open", attempts: period.attempts, nextAttemptAt: null, now: at })
    return "paid" as ChargeOutcome
  }
  if (invoice.state === "canceled") {
    yield* repo.record({ businessId: business.id, id: period.id, state: "failed", attempts: period.attempts, nextAttemptAt: null, now: at })
    return "skipped" as ChargeOutcome
  }
  const form = (yield* payments.forms({ businessId: business.id, personId: period.person_id })).find((f) => f.type === "creditcard" && f.autobill)
  const locale = (yield* RequestContext).locale
  let problem: string | null = null
  if (form === undefined) problem = t(locale, "autobill_no_form")
  else {
    const failedBefore = yield* repo.failedPayments({ businessId: business.id, invoiceId: invoice.id })
    // The renewal is paid as the client would pay it (a client's methods, their own card); payments read no membership.
    const caller: Caller = { _tag: "Client", personId: period.person_id, household: [period.person_id], isMember: false }
    const result = yield* createPayment(
      caller,
      invoice.id,
      { payment_method: "creditcard", amount_cents: outstanding, form_of_payment_id: form.id },
      attemptKey(period.plan_id, period.period_start, number)
    ).pipe(Effect.result)
    if (result._tag === "Success") {
      yield* repo.record({ businessId: business.id, id: period.id, state: "paid", attempts: number, nextAttemptAt: null, now: at })
      return "paid" as ChargeOutcome
    }
    const message = result.failure.errors.join(" ")
    // The gateway could not be reached: nothing happened, so the job fails and is retried with the same key.
    if (message === t(locale, "payment_gateway_unavailable")) return yield* Effect.die(new Error("payment gateway unavailable"))
    // A decline records its failed payment itself; anything else (a refused card type, say) is recorded here.
    if ((yield* repo.failedPayments({ businessId: business.id, invoiceId: invoice.id })) === failedBefore) problem = message
  }
  if (problem !== null) {
    yield* payments.insertPayment({
      businessId: business.id,
      invoiceId: invoice.id,
      personId: period.person_id,
      paymentMethod: "creditcard",
      paymentTypeId: PAYMENT_TYPE_IDS.creditcard,
      formOfPaymentId: form?.id ?? null,
      state: "failed",
      amountCents: outstanding,
      description: "Automatic billing",
      gatewayTransactionId: null,
      errorMessage: problem,
      staffMemberId: null,
      now: at
    })
  }
  if (number >= MAX_ATTEMPTS) {
    yield* repo.record({ businessId: business.id, id: period.id, state: "failed", attempts: number, nextAttemptAt: null, now: at })
    yield* (yield* PlansRepo).updateState({ businessId: business.id, id: period.plan_id, endDate: addDays(period.period_start, -1), now: at })
    return "failed" as ChargeOutcome
  }
  const next = new Date(nowMs + RETRY_DAYS[number - 1]! * 86_400_000)
  yield* repo.record({ businessId: business.id, id: period.id, state: "open", attempts: number, nextAttemptAt: next, now: at })
  yield* enqueueJob(ChargeMembershipPeriodJob, { business_id: business.id, period_id: period.id }, { runAt: next, jobKey: `autobill:${business.id}:${period.id}` })
  return "declined" as ChargeOutcome
})

