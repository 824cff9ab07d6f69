import { Effect } from "effect"
import { enqueueJob } from "../../platform/jobs.ts"
import { localDateAt } from "../../shared/zoned-time.ts"
import { PayProblem } from "./errors.ts"
import { CreateSalePaysJob, CreateServicePaysJob } from "./jobs.ts"
import type { PayRate, PayRow } from "./model.ts"
import { type PayFilters, type PayInsert, StaffPayRepo } from "./repo.ts"
import { commission, DEFAULT_PAY_PERIOD_RULE, payPeriod, servicePay } from "./rules.ts"
import { currentTime } from "../../shared/clock.ts"

/**
 * Staff pay: pays are recorded by jobs (an occurrence's attendance completed, an invoice
 * closed), by the operator CLI (ad-hoc and tip pays) and by the demo; they are reviewed once,
 * pending → approved | denied. Writers run inside the caller's transaction where there is one.
 */


const periodRule = (businessId: number) =>
  Effect.map(StaffPayRepo.use((repo) => repo.periodRule({ businessId })), (rule) => rule ?? DEFAULT_PAY_PERIOD_RULE)

// ---------------------------------------------------------------------------------------------
// Jobs enqueued by other domains' writes

/** Enqueued in the transaction that completes the occurrence's attendance. */
export const enqueueServicePays = (businessId: number, occurrenceId: number) =>
  enqueueJob(CreateServicePaysJob, { business_id: businessId, event_occurrence_id: occurrenceId })

/** Enqueued in the transaction that closes the invoice (src/billing/invoices/close.ts). */
export const enqueueSalePays = (businessId: number, invoiceId: number) =>
  enqueueJob(CreateSalePaysJob, { business_id: businessId, invoice_id: invoiceId })

// ---------------------------------------------------------------------------------------------
// Service pays

/**
 * One pending service pay per staff member of each occurrence whose attendance is complete,
 * from the member's rate for the occurrence's service, else their default rate. A staff member
 * without either gets no pay (there is nothing to compute it from). Answers how many were
 * recorded; a pay recorded before is kept as it is (exactly once).
 */
export const createServicePays = Effect.fn("StaffPay.createServicePays")(function* (
  businessId: number,
  occurrenceIds: ReadonlyArray<number>,
  recordedAt?: Date
) {
  const repo = yield* StaffPayRepo
  const at = recordedAt ?? (yield* currentTime)
  const occurrences = (yield* repo.occurrences({ businessId, ids: occurrenceIds })).filter((o) => o.attendance_complete)
  if (occurrences.length === 0) return 0
  const rates = yield* repo.rates({ businessId })
  const rule = yield* periodRule(businessId)
  const rateOf = (staffId: number, serviceId: number): PayRate | undefined =>
    rates.find((r) => r.staff_member_id === staffId && r.service_id === serviceId) ??
    rates.find((r) => r.staff_member_id === staffId && r.service_id === null)
  const pays: Array<PayInsert> = []
  for (const occurrence of occurrences) {
    const period = payPeriod(rule, occurrence.local_date)
    for (const staffId of occurrence.staff_member_ids) {
      const rate = rateOf(staffId, occurrence.service_id)
      if (rate === undefined) continue
      const figures = servicePay(rate, {
        appointment: occurrence.service_type === "Appointment",
        completedVisits: occurrence.completed_visits,
        durationMinutes: occurrence.duration_minutes
      })
      pays.push({
        pay_type: "service",
        staff_member_id: staffId,
        service_id: occurrence.service_id,
        event_occurrence_id: occurrence.id,
        invoice_id: null,
        description: null,
        ...figures,
        pay_period_start: period.start,
        pay_period_end: period.end,
        recorded_at: at
      })
    }
  }
  return yield* repo.insertPays({ businessId, pays })
})

// ---------------------------------------------------------------------------------------------
// Sale pays

/**
 * The commission pay of each closed invoice with a commission recipient who has a commission
 * rate: rules.ts `commission` of the live commissionable items' revenue, in the pay period of
 * the invoice's closing date. Tips are not here: the Core API stores no tip amount, so tip pays
 * are added by the operator (`studio pays add --type tip --invoice N`).
 */
export const createSalePays = Effect.fn("StaffPay.createSalePays")(function* (
  businessId: number,
  invoiceIds: ReadonlyArray<number>,
  recordedAt?: Date
) {
  const repo = yield* StaffPayRepo
  const at = recordedAt ?? (yield* currentTime)
  const invoices = (yield* repo.invoices({ businessId, ids: invoiceIds })).filter((i) => i.state === "closed" && i.commission_recipient_id !== null)
  if (invoices.length === 0) return 0
  const rates = yield* repo.commissionRates({ businessId })
  const rule = yield* periodRule(businessId)
  const pays: Array<PayInsert> = []
  for (const invoice of invoices) {
    const rate = rates.find((r) => r.staff_member_id === invoice.commission_recipient_id)
    if (rate === undefined || invoice.local_closed_date === null) continue
    const amount = commission(rate.basis_points, invoice.commissionable_revenue_cents)
    const period = payPeriod(rule, invoice.local_closed_date)
    pays.push({
      pay_type: "commission",
      staff_member_id: invoice.commission_recipient_id!,
      service_id: null,
      event_occurrence_id: null,
      invoice_id: invoice.id,
      description: `Commission on invoice ${invoice.invoice_number ?? invoice.id}`,
      base_cents: 0,
      per_head_cents: 0,
      tiered_cents: 0,
      final_cents: amount,
      service_hours: 0,
      pay_period_start: period.start,
      pay_period_end: period.end,
      recorded_at: at
    })
  }
  return yield* repo.insertPays({ businessId, pays })
})

// ---------------------------------------------------------------------------------------------
// The operator's pays: list, add, review

/** The business a pay, staff member or invoice id belongs to (the CLI's commands without --business). */
export const businessOf = (table: "pays" | "staff_members" | "invoices", id: number) => StaffPayRepo.use((repo) => repo.businessOf({ table, id }))

export const listPays = (businessId: number | null, filters: PayFilters) => StaffPayRepo.use((repo) => repo.list({ businessId, ...filters }))

export interface AdHocPay {
  readonly type: "adhoc" | "tip"
  readonly staffMemberId: number | undefined
  readonly amountCents: number
  readonly description: string
  readonly invoiceId: number | undefined
}

const problem = (reason: PayProblem["reason"], message: string) => Effect.fail(new PayProblem({ reason, message }))

/**
 * An ad-hoc pay for a staff member, or a tip pay for an invoice: the tip goes to the invoice's
 * tip recipient (the staff member, when named, must be that recipient), at most once per
 * invoice, in the period of the invoice's closing date. Ad-hoc pays fall in today's period.
 */
export const addPay = Effect.fn("StaffPay.add")(function* (businessId: number, input: AdHocPay) {
  const repo = yield* StaffPayRepo
  const at = yield* currentTime
  if (!Number.isSafeInteger(input.amountCents) || input.amountCents === 0) {
    return yield* problem("invalid_amount", "--amount-cents must be a non-zero whole number of cents")
  }
  let staffId = input.staffMemberId
  let date = localDateAt(at.getTime(), yield* repo.timeZone({ businessId }))
  if (input.type === "tip") {
    if (input.invoiceId === undefined) return yield* problem("invoice_not_found", "--invoice is required for a tip pay")
    const [invoice] = yield* repo.invoices({ businessId, ids: [input.invoiceId] })
    if (invoice === undefined) return yield* problem("invoice_not_found", `--invoice: no invoice ${input.invoiceId} in this business`)
    if (invoice.state !== "closed" || invoice.local_closed_date === null) {
      return yield* problem("invoice_not_closed", `--invoice: invoice ${input.invoiceId} is ${invoice.state}; tips are paid on closed invoices`)
    }
    if (invoice.tip_recipient_id === null) return yield* problem("no_tip_recipient", `--invoice: invoice ${input.invoiceId} has no tip recipient`)
    if (staffId !== undefined && staffId !== invoice.tip_recipient_id) {
      return yield* problem(
        "no_tip_recipient",
        `--staff: staff member ${staffId} is not the tip recipient of invoice ${input.invoiceId} (${invoice.tip_recipient_id} is)`
      )
    }
    staffId = invoice.tip_recipient_id
    date = invoice.local_closed_date
    // Exactly once per invoice and recipient (a unique index backs this up).
    const recorded = (yield* repo.list({ businessId })).some((p) => p.pay_type === "tip" && p.invoice_id === input.invoiceId)
    if (recorded) return yield* problem("tip_already_recorded", `--invoice: invoice ${input.invoiceId} already has a tip pay`)
  }
  if (staffId === undefined) return yield* problem("staff_member_not_found", "--staff is required")
  if (!(yield* repo.staffExists({ businessId, id: staffId }))) {
    return yield* problem("staff_member_not_found", `--staff: no staff member ${staffId} in this business`)
  }
  const period = payPeriod(yield* periodRule(businessId), date)
  const pay: PayInsert = {
    pay_type: input.type,
    staff_member_id: staffId,
    service_id: null,
    event_occurrence_id: null,
    invoice_id: input.type === "tip" ? input.invoiceId! : null,
    description: input.description,
    base_cents: 0,
    per_head_cents: 0,
    tiered_cents: 0,
    final_cents: input.amountCents,
    service_hours: 0,
    pay_period_start: period.start,
    pay_period_end: period.end,
    recorded_at: at
  }
  return yield* repo.insertPay({ businessId, pay })
})

/** pending → approved | denied, once: the pay's row is locked, so two reviews never both pass. */
export const reviewPay = Effect.fn("StaffPay.review")(function* (
  businessId: number,
  payId: number,
  decision: "approved" | "denied",
  reviewerId: number
): Effect.fn.Return<PayRow, PayProblem, StaffPayRepo> {
  const repo = yield* StaffPayRepo
  const pay = yield* repo.lockPay({ businessId, id: payId })
  if (pay === undefined) return yield* problem("pay_not_found", `no pay ${payId} in this business`)
  if (pay.pay_state !== "pending") {
    return yield* problem("already_reviewed", `pay ${payId} was already reviewed: ${pay.pay_state} at ${pay.reviewed_at} by staff member ${pay.reviewed_by_staff_member_id}`)
  }
  if (!(yield* repo.staffExists({ businessId, id: reviewerId }))) return yield* problem("staff_member_not_found", `--by: no staff member ${reviewerId} in this business`)
  return yield* repo.review({ businessId, id: payId, state: decision, by: reviewerId, at: yield* currentTime })
})
