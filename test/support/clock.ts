import { Clock, Duration, Effect } from "effect"

/**
 * A wall clock tests set by hand, for the HTTP server: `currentTimeMillis` answers the set
 * instant (so "today", "in the past" and booking windows are fixed), while sleeping and the
 * monotonic clock stay real (timeouts and connection pools keep working).
 */
export interface SettableClock {
  readonly clock: Clock.Clock
  readonly set: (instant: Date | string) => void
  readonly now: () => Date
}

export const makeSettableClock = (initial: Date | string): SettableClock => {
  let millis = new Date(initial).getTime()
  const real = Clock.Clock.defaultValue()
  const clock: Clock.Clock = {
    currentTimeMillisUnsafe: () => millis,
    currentTimeMillis: Effect.sync(() => millis),
    currentTimeNanosUnsafe: () => BigInt(millis) * 1_000_000n,
    currentTimeNanos: Effect.sync(() => BigInt(millis) * 1_000_000n),
    monotonicTimeNanosUnsafe: () => real.monotonicTimeNanosUnsafe(),
    monotonicTimeNanos: real.monotonicTimeNanos,
    sleep: (duration: Duration.Duration) => real.sleep(duration)
  }
  return {
    clock,
    set: (instant) => {
      millis = new Date(instant).getTime()
    },
    now: () => new Date(millis)
  }
}
