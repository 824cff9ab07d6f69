import { Context, type Effect } from "effect"

/**
 * What deleting a person asks of visits (people sits below visits, so it declares the question
 * and src/enrollment/visits/future-visits-live.ts answers it; provided in src/app/layers.ts): how many visits
 * of the person hold a place in an occurrence that has not started.
 */
export class FutureVisits extends Context.Service<FutureVisits, {
  readonly count: (businessId: number, personId: number, now: Date) => Effect.Effect<number>
}>()("studio/FutureVisits") {}
