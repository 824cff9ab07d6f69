import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { currentTime } from "../../shared/clock.ts"

import { seedBusiness } from "./scale-business.ts"
import { countOf } from "./scale-sql.ts"
/**
 * `studio seed scale --enrollments N`: many businesses with years of history, for the report
 * benchmark and for trying reports on realistic volumes. Everything is generated inside
 * PostgreSQL (`generate_series`, one transaction per business), so 5 million enrollments take
 * minutes: no row crosses the wire.
 *
 * The shape of the data:
 * - Businesses of uneven size (weights 0.5-1.5) in four time zones, two locations, six
 *   instructors and an owner each; nine services (seven group classes, two courses) whose
 *   popularity falls off like 1/rank^0.8 (skewed class popularity). (No appointments: they are
 *   booked one by one, not scheduled.)
 * - Weekly events for `years` years up to four weeks from now, as many sessions a week as the
 *   service's share of the business's enrollments needs, each materialized as occurrences with
 *   their instructor.
 * - Clients who join over the whole period (more later: the business grows) and drift away
 *   about a year later (churn): a session's visitors are drawn from the clients who joined in
 *   the year before its day.
 * - Attendance: a session fills to its service's popularity times a season (busy in January,
 *   quiet in summer) times noise, at most its capacity. Past visits are mostly completed (84 %),
 *   some no-shows (7 %) and late cancels (9 %); future ones registered. Full sessions get a few
 *   waitlist entries (expired in the past, waiting in the future).
 * - Plans: members (30 %) hold an Unlimited Membership from the day they joined, for a year.
 * - Sales (scale-sales.ts): the members' monthly invoices, packs and drop-ins for the others,
 *   with taxes, a coupon, prorates, payments by card, cash, check and account credit, declined
 *   and voided payments, refunds. Punches (scale-punches.ts): the visits those plans pay. Staff pays (scale-pays.ts): rates, service and commission pays, reviews.
 *
 * Deterministic for a given business number (`setseed` is not needed: every "random" value
 * is a hash of ids), so two runs with the same arguments build the same shape.
 */
export interface ScaleOptions {
  readonly enrollments: number
  /** Default: one per 250,000 enrollments, 1 to 40. */
  readonly businesses?: number | undefined
  readonly years: number
}

export interface ScaleSummary {
  readonly businesses: ReadonlyArray<string>
  readonly clients: number
  readonly event_occurrences: number
  readonly visits: number
  readonly waitlist_entries: number
  readonly plans: number
  readonly invoices: number
  readonly invoice_items: number
  readonly payments: number
  readonly refunds: number
  readonly punches: number
  readonly pays: number
  readonly seconds: number
}


export const seedScale = Effect.fn("Demo.seedScale")(function* (options: ScaleOptions) {
  const sql = yield* SqlClient.SqlClient
  const started = performance.now()
  const now = (yield* currentTime)
  const count = options.businesses ?? Math.min(40, Math.max(1, Math.round(options.enrollments / 250_000)))
  const existing = yield* countOf(sql)({ text: `select count(*)::int as n from businesses where subdomain like 'scale-%'`, params: [] })
  const first = existing.n + 1
  const weights = Array.from({ length: count }, (_, i) => 0.5 + ((first + i) * 0.618034) % 1)
  const total = weights.reduce((sum, weight) => sum + weight, 0)
  const subdomains: Array<string> = []
  const totals = { clients: 0, event_occurrences: 0, visits: 0, waitlist_entries: 0, plans: 0, invoices: 0, invoice_items: 0, payments: 0, refunds: 0, punches: 0, pays: 0 }
  for (const [i, weight] of weights.entries()) {
    const number = first + i
    const result = yield* sql.withTransaction(
      seedBusiness(number, Math.max(1, Math.round((options.enrollments * weight) / total)), options.years, now)
    )
    subdomains.push(result.subdomain)
    totals.clients += result.clients
    totals.event_occurrences += result.eventOccurrences
    totals.visits += result.visits
    totals.waitlist_entries += result.waitlistEntries
    totals.plans += result.plans
    totals.invoices += result.sales.invoices
    totals.invoice_items += result.sales.invoiceItems
    totals.payments += result.sales.payments
    totals.refunds += result.sales.refunds
    totals.punches += result.punches
    totals.pays += result.pays
  }
  return { businesses: subdomains, ...totals, seconds: Math.round((performance.now() - started) / 100) / 10 } satisfies ScaleSummary
})
