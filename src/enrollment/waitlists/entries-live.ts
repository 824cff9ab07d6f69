import { Effect, Layer } from "effect"
import { WaitlistEntries } from "../visits/waitlist-entries.ts"
import { WaitlistsRepo } from "./repo.ts"

/** The WaitlistEntries port of visits, answered by the waitlist's repo. */
export const WaitlistEntriesLive = Layer.effect(WaitlistEntries)(
  Effect.gen(function* () {
    const repo = yield* WaitlistsRepo
    return { enrollVisitors: repo.enrollVisitors, withWaiting: repo.withWaiting }
  })
)
