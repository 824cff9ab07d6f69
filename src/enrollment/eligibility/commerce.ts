import { Context, type Effect } from "effect"

/**
 * What eligibility needs from plans and forms of payment (`plan_required`,
 * `client_purchase_disabled`, `credit_card_required`). Billing sits above eligibility, so
 * eligibility declares the questions and billing answers them (src/billing/punches/ports-live.ts),
 * provided in src/app/layers.ts: a graph without it does not compile.
 */
export interface PlanTarget {
  readonly serviceId: number
  /** Null: no location (or none named): only plans without a location restriction cover it. */
  readonly locationId: number | null
  /** Empty: no staff (or none named): only plans without a staff restriction cover it. */
  readonly staffMemberIds: ReadonlyArray<number>
  /** When the visit would take place; null when unknown (a service without start_at): today. */
  readonly at: Date | null
}

export class Commerce extends Context.Service<Commerce, {
  /**
   * Of `personIds`, who holds a plan available on the target's business-local date (current, not
   * on hold, a visit left) that covers its service, location and staff: the automatic plan
   * choice's rules (src/billing/punches/choice.ts).
   */
  readonly planHolders: (businessId: number, personIds: ReadonlyArray<number>, target: PlanTarget) => Effect.Effect<ReadonlySet<number>>
  /** Of `personIds`, who has a usable credit card on file. */
  readonly cardHolders: (businessId: number, personIds: ReadonlyArray<number>) => Effect.Effect<ReadonlySet<number>>
}>()("studio/Commerce") {}
