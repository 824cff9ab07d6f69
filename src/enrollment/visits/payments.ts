import { Context, type Effect } from "effect"

/** A visit just inserted, as auto-pay judges it: its occurrence's service, location, staff and business-local date. */
export interface NewVisit {
  readonly id: number
  readonly person_id: number
  readonly state: string
  readonly service_id: number
  readonly location_id: number | null
  readonly staff_member_ids: ReadonlyArray<number>
  /** The occurrence's start as a business-local calendar date (YYYY-MM-DD). */
  readonly visit_date: string
}

/**
 * What visits ask of billing when a visit comes to be spent or goes away. Billing (plans,
 * punches) sits above visits, so visits declares the questions and src/billing/punches/ports-live.ts
 * answers them; provided in src/app/layers.ts. Both run inside the caller's transaction: a visit and
 * its punch commit together or not at all.
 */
export class VisitPayments extends Context.Service<VisitPayments, {
  /**
   * Auto-pay: each of the visits that has a person, is registered or completed and has no punch
   * yet is paid by the automatic plan choice when a suitable plan exists (else stays unpaid).
   */
  readonly payVisits: (businessId: number, visitIds: ReadonlyArray<number>) => Effect.Effect<void>
  /**
   * Auto-pay of visits this transaction has just inserted (registered or completed, with a
   * person, no punch): the same choice as `payVisits`, from what the writer knows of them, since
   * no other transaction can see them yet (nothing to read back or lock).
   */
  readonly payNewVisits: (businessId: number, visits: ReadonlyArray<NewVisit>) => Effect.Effect<void>
  /**
   * The visits are about to be deleted: their punches go first, so the plans they spent get the
   * visits back (a used-up pack is no longer exhausted).
   */
  readonly unpayVisits: (businessId: number, visitIds: ReadonlyArray<number>) => Effect.Effect<void>
}>()("studio/VisitPayments") {}
