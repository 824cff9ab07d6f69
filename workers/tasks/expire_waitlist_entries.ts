import { Effect } from "effect"
import { expireStartedEntries } from "../../src/waitlists/offer.ts"

/** The cron sweep: waiting entries of occurrences that have started expire (src/waitlists/offer.ts). */
export const expireWaitlistEntriesTask = (_payload: unknown) =>
  Effect.gen(function* () {
    const expired = yield* expireStartedEntries()
    if (expired > 0) yield* Effect.logInfo("waitlist entries expired").pipe(Effect.annotateLogs({ expired }))
  })
