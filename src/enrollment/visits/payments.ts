import { Context, type Effect } from "effect"

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
   * The visits are about to be deleted: their punches go first, so the plans they spent get the
   * visits back (a used-up pack is no longer exhausted).
   */
  readonly unpayVisits: (businessId: number, visitIds: ReadonlyArray<number>) => Effect.Effect<void>
}>()("studio/VisitPayments") {}
