import { Context, type Effect } from "effect"

/**
 * What admitting and freeing places ask of the waitlist. Waitlists sits above visits (its offer
 * job admits visits), so visits declares the questions and src/enrollment/waitlists/entries-live.ts answers
 * them from the waitlist's repo; provided in src/app/layers.ts.
 */
export class WaitlistEntries extends Context.Service<WaitlistEntries, {
  /** Spec: creating a visit for a waitlisted person moves their live entry to `enrolled`. */
  readonly enrollVisitors: (
    businessId: number,
    pairs: ReadonlyArray<{ readonly occurrenceId: number; readonly personId: number }>,
    now: Date
  ) => Effect.Effect<void>
  /** Of the occurrences, those with someone waiting. */
  readonly withWaiting: (businessId: number, occurrenceIds: ReadonlyArray<number>) => Effect.Effect<ReadonlyArray<number>>
}>()("studio/WaitlistEntries") {}
