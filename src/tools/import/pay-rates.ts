import { Effect, Schema } from "effect"
import { PAY_PERIOD_KINDS } from "../../billing/staff-pay/model.ts"
import { StaffPayRepo } from "../../billing/staff-pay/repo.ts"

/**
 * The staff pay part of the import format (`pay_rates`): what each staff member earns per
 * service, or by default for services without a rate of their own, and their commission on
 * sales. Staff are referred to by e-mail, services by key, as in the rest of the document.
 */

const Key = Schema.String.check(Schema.isPattern(/^[A-Za-z0-9_.:-]{1,100}$/u, { message: "must be 1-100 letters, digits, or _ . : -" }))
const Count = (min: number, max: number) =>
  Schema.Int.check(Schema.isBetween({ minimum: min, maximum: max }, { message: `must be an integer from ${min} to ${max}` }))
const Cents = Count(0, 100_000_000).annotate({ description: "Integer cents of the business currency" })

export const ImportPayRate = Schema.Struct({
  staff: Schema.String.annotate({ description: "E-mail of a staff member of this document" }),
  service: Schema.optionalKey(Key.annotate({ description: "Key of a service; absent: the staff member's default rate" })),
  base_cents: Schema.optionalKey(Cents.annotate({ description: "Paid per class or course session (default 0)" })),
  per_head_cents: Schema.optionalKey(Cents.annotate({ description: "Paid per completed visit beyond per_head_minimum (default 0)" })),
  per_head_minimum: Schema.optionalKey(Count(0, 10_000).annotate({ description: "Attendees before the per-head bonus starts (default 0)" })),
  hourly_cents: Schema.optionalKey(Cents.annotate({ description: "Appointments: paid per hour instead (default 0)" })),
  tiers: Schema.optionalKey(
    Schema.Array(Schema.Struct({ attendance: Count(1, 10_000), bonus_cents: Cents })).annotate({
      description: "Bonuses at attendance thresholds; the highest threshold reached pays"
    })
  ),
  commission_basis_points: Schema.optionalKey(
    Count(0, 10_000).annotate({ description: "Default rates only: commission on sales, in 1/100 % of the commissionable revenue" })
  )
}).annotate({ identifier: "ImportPayRate" })
export type ImportPayRate = typeof ImportPayRate.Type

export const ImportPayPeriod = Schema.Struct({
  kind: Schema.Literals(PAY_PERIOD_KINDS).annotate({ description: "semimonthly (1st-15th, 16th-end; the default), monthly, weekly or biweekly" }),
  anchor_date: Schema.optionalKey(
    Schema.String.check(
      Schema.makeFilter((s: string) => {
        const date = new Date(`${s}T00:00:00Z`)
        return (/^\d{4}-\d{2}-\d{2}$/.test(s) && !Number.isNaN(date.getTime()) && date.toISOString().startsWith(s)) || "must be a date, YYYY-MM-DD"
      })
    ).annotate({ description: "Weekly and biweekly: the first day of one pay period" })
  )
}).annotate({ identifier: "ImportPayPeriod" })
export type ImportPayPeriod = typeof ImportPayPeriod.Type

type Problem = { readonly path: ReadonlyArray<PropertyKey>; readonly issue: string }

interface PayRatesDocument {
  readonly pay_period?: ImportPayPeriod
  readonly staff?: ReadonlyArray<{ readonly email: string }>
  readonly services?: ReadonlyArray<{ readonly key: string }>
  readonly pay_rates?: ReadonlyArray<ImportPayRate>
}

/** Each rate names a staff member and service of the document, once per pair; tier thresholds are distinct. */
export const payRateProblems = (doc: PayRatesDocument): ReadonlyArray<Problem> => {
  const problems: Array<Problem> = []
  const period = doc.pay_period
  if (period !== undefined && (period.kind === "weekly" || period.kind === "biweekly") && period.anchor_date === undefined) {
    problems.push({ path: ["pay_period", "anchor_date"], issue: `a ${period.kind} pay period needs the first day of one period` })
  }
  if (period !== undefined && (period.kind === "semimonthly" || period.kind === "monthly") && period.anchor_date !== undefined) {
    problems.push({ path: ["pay_period", "anchor_date"], issue: `a ${period.kind} pay period follows the calendar; it takes no anchor_date` })
  }
  const staff = new Set((doc.staff ?? []).map((s) => s.email.toLowerCase()))
  const services = new Set((doc.services ?? []).map((s) => s.key))
  const seen = new Map<string, number>()
  ;(doc.pay_rates ?? []).forEach((rate, i) => {
    const at = (...rest: Array<PropertyKey>) => ["pay_rates", i, ...rest]
    if (!staff.has(rate.staff.toLowerCase())) problems.push({ path: at("staff"), issue: `no staff member with e-mail ${rate.staff} in this document` })
    if (rate.service !== undefined && !services.has(rate.service)) {
      problems.push({ path: at("service"), issue: `no service with key "${rate.service}" in this document` })
    }
    const pair = `${rate.staff.toLowerCase()}|${rate.service ?? ""}`
    const previous = seen.get(pair)
    if (previous !== undefined) {
      problems.push({ path: at("service"), issue: `pay_rates[${previous}] already gives ${rate.staff} a ${rate.service === undefined ? "default rate" : `rate for "${rate.service}"`}` })
    } else seen.set(pair, i)
    if (rate.service !== undefined && rate.commission_basis_points !== undefined) {
      problems.push({ path: at("commission_basis_points"), issue: "a commission belongs to the staff member's default rate (without service)" })
    }
    const thresholds = new Set<number>()
    ;(rate.tiers ?? []).forEach((tier, j) => {
      if (thresholds.has(tier.attendance)) problems.push({ path: at("tiers", j, "attendance"), issue: `attendance ${tier.attendance} is used twice` })
      thresholds.add(tier.attendance)
    })
  })
  return problems
}

/** Writes the document's pay period rule and rates for a new business (inside the import's transaction). */
export const writePayRates = Effect.fn("Import.payRates")(function* (
  rates: ReadonlyArray<ImportPayRate>,
  period: ImportPayPeriod | undefined,
  context: { readonly businessId: number; readonly serviceIds: ReadonlyMap<string, number>; readonly staffId: (email: string) => number }
) {
  const repo = yield* StaffPayRepo
  if (period !== undefined) {
    yield* repo.setPayPeriodRule({ businessId: context.businessId, rule: { kind: period.kind, anchor_date: period.anchor_date ?? null } })
  }
  for (const rate of rates) {
    const staffMemberId = context.staffId(rate.staff)
    yield* repo.insertRate({
      businessId: context.businessId,
      rate: {
        staff_member_id: staffMemberId,
        service_id: rate.service === undefined ? null : context.serviceIds.get(rate.service)!,
        base_cents: rate.base_cents ?? 0,
        per_head_cents: rate.per_head_cents ?? 0,
        per_head_minimum: rate.per_head_minimum ?? 0,
        hourly_cents: rate.hourly_cents ?? 0,
        tiers: (rate.tiers ?? []).map((tier) => ({ attendance_threshold: tier.attendance, bonus_cents: tier.bonus_cents }))
      }
    })
    if (rate.commission_basis_points !== undefined) {
      yield* repo.setCommissionRate({ businessId: context.businessId, staffMemberId, basisPoints: rate.commission_basis_points })
    }
  }
  return rates.length
})
