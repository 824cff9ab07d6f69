import { Effect, Schema } from "effect"
import { defineJob } from "../../src/platform/jobs.ts"
import { expireStartedEntries } from "../../src/enrollment/waitlists/offer.ts"

/** Only the crontab (workers/crontab.ts) enqueues it; its cron payload (`_cron`) is ignored. */
export const ExpireWaitlistEntriesJob = defineJob("expire_waitlist_entries", Schema.Struct({}))

/** The cron sweep: waiting entries of occurrences that have started expire (src/enrollment/waitlists/offer.ts). */
export const expireWaitlistEntriesTask = (_payload: unknown) =>
  Effect.gen(function* () {
    const expired = yield* expireStartedEntries()
    if (expired > 0) yield* Effect.logInfo("waitlist entries expired").pipe(Effect.annotateLogs({ expired }))
  })
