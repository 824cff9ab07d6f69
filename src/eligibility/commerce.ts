import { Context, Effect } from "effect"

/**
 * What eligibility needs from plans and forms of payment, which arrive with the enrollment and
 * commerce work. Until then nobody holds a plan or a card, so `plan_required` and
 * `credit_card_required` follow the service's settings (require_plan, require_cc) alone, and
 * `client_purchase_disabled` applies whenever the service disables client purchases.
 *
 * Plug point: provide a real implementation with `Layer.succeed(Commerce)(...)` in src/layers.ts.
 */
export interface PlanTarget {
  readonly serviceId: number
  readonly locationId: number | null
  readonly staffMemberIds: ReadonlyArray<number>
  /** When the visit would take place; null when unknown (a service without start_at). */
  readonly at: Date | null
}

export interface CommerceShape {
  /** Of `personIds`, who holds a plan with a visit left that covers the target. */
  readonly planHolders: (businessId: number, personIds: ReadonlyArray<number>, target: PlanTarget) => Effect.Effect<ReadonlySet<number>>
  /** Of `personIds`, who has a usable credit card on file. */
  readonly cardHolders: (businessId: number, personIds: ReadonlyArray<number>) => Effect.Effect<ReadonlySet<number>>
}

const nobody: CommerceShape = {
  planHolders: () => Effect.succeed(new Set()),
  cardHolders: () => Effect.succeed(new Set())
}

export const Commerce = Context.Reference<CommerceShape>("studio/Commerce", { defaultValue: () => nobody })
