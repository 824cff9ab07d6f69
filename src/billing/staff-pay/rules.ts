import type { PayPeriodKind, PayRate } from "./model.ts"

/**
 * The pay rules, pure: what a service pay and a commission come to, and which pay period a date
 * falls in. Money is integer cents; the only rounding is the commission's (below).
 */

export interface ServicePayFigures {
  readonly base_cents: number
  readonly per_head_cents: number
  readonly tiered_cents: number
  readonly final_cents: number
  readonly service_hours: number
}

/**
 * A service pay from the staff member's rate:
 * - classes and courses: base + per_head × max(0, completed visits − minimum) + the bonus of the
 *   highest tier whose threshold the completed visits reach (one tier, not the sum);
 * - appointments: hourly × the occurrence's hours, rounded half up to the cent (the base and
 *   bonuses do not apply; the hourly amount is reported as the base).
 * service_hours is the occurrence's length in hours (to the hundredth) either way.
 */
export const servicePay = (
  rate: PayRate,
  input: { readonly appointment: boolean; readonly completedVisits: number; readonly durationMinutes: number }
): ServicePayFigures => {
  const service_hours = Math.round((input.durationMinutes * 100) / 60) / 100
  if (input.appointment) {
    const hourly = Math.round((rate.hourly_cents * input.durationMinutes) / 60)
    return { base_cents: hourly, per_head_cents: 0, tiered_cents: 0, final_cents: hourly, service_hours }
  }
  const per_head_cents = rate.per_head_cents * Math.max(0, input.completedVisits - rate.per_head_minimum)
  const reached = rate.tiers.filter((tier) => input.completedVisits >= tier.attendance_threshold)
  const top = reached.reduce<(typeof reached)[number] | undefined>(
    (best, tier) => (best === undefined || tier.attendance_threshold > best.attendance_threshold ? tier : best),
    undefined
  )
  const tiered_cents = top?.bonus_cents ?? 0
  return {
    base_cents: rate.base_cents,
    per_head_cents,
    tiered_cents,
    final_cents: rate.base_cents + per_head_cents + tiered_cents,
    service_hours
  }
}

/**
 * Commission: round(basis points × revenue / 10000), half away from zero (the invoices' rule,
 * src/billing/invoices/totals.ts), computed once on the invoice's sum, never per item.
 */
export const commission = (basisPoints: number, revenueCents: number): number => {
  const exact = (basisPoints * revenueCents) / 10000
  return Math.sign(exact) * Math.round(Math.abs(exact))
}

// ---------------------------------------------------------------------------------------------
// Pay periods (dates as YYYY-MM-DD, the business's local dates)

const toDate = (iso: string) => new Date(`${iso}T00:00:00Z`)
const iso = (date: Date) => date.toISOString().slice(0, 10)
const addDays = (date: Date, days: number) => new Date(date.getTime() + days * 86_400_000)
const lastOfMonth = (date: Date) => new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 0))

export interface PayPeriodRule {
  readonly kind: PayPeriodKind
  readonly anchor_date: string | null
}

/** Without a rule of its own a business pays semimonthly: the 1st to the 15th, the 16th to the month's end. */
export const DEFAULT_PAY_PERIOD_RULE: PayPeriodRule = { kind: "semimonthly", anchor_date: null }

/** The pay period (inclusive start and end) that contains `date`. */
export const payPeriod = (rule: PayPeriodRule, date: string): { readonly start: string; readonly end: string } => {
  const day = toDate(date)
  const first = new Date(Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), 1))
  switch (rule.kind) {
    case "monthly":
      return { start: iso(first), end: iso(lastOfMonth(day)) }
    case "semimonthly":
      return day.getUTCDate() <= 15
        ? { start: iso(first), end: iso(addDays(first, 14)) }
        : { start: iso(addDays(first, 15)), end: iso(lastOfMonth(day)) }
    case "weekly":
    case "biweekly": {
      const length = rule.kind === "weekly" ? 7 : 14
      const anchor = toDate(rule.anchor_date ?? date)
      const days = Math.round((day.getTime() - anchor.getTime()) / 86_400_000)
      const start = addDays(anchor, Math.floor(days / length) * length)
      return { start: iso(start), end: iso(addDays(start, length - 1)) }
    }
  }
}
