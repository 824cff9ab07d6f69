import { Context, type Effect } from "effect"

/**
 * Who is a member (the members-only and clients-only eligibility rules; a client-mode caller's
 * own membership, for members-only visibility, is read with its household in one statement by
 * `ServicesRepo.clientStanding` from the same rule). Membership comes from plans (billing, src/shared/plan-rules.ts `memberOn`), which sits above
 * the schedule: services declares the question and src/billing/punches/ports-live.ts answers it;
 * provided in src/app/layers.ts.
 */
export class Memberships extends Context.Service<Memberships, {
  /** Of `personIds`, who is a member on `date` (a business-local calendar date, YYYY-MM-DD). */
  readonly members: (businessId: number, personIds: ReadonlyArray<number>, date: string) => Effect.Effect<ReadonlySet<number>>
}>()("studio/Memberships") {}
