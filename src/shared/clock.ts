import { Clock, Effect } from "effect"

/**
 * The one clock of the service: every "now" is Effect's Clock, so a test moves time with a
 * settable clock and the whole service follows. The business's today (a calendar date in its
 * time zone) is `businessToday` in src/access/tenant.ts, beside the current business.
 */
export const currentTime: Effect.Effect<Date> = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))
