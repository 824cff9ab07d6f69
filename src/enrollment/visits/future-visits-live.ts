import { Effect, Layer } from "effect"
import { FutureVisits } from "../../identity/people/future-visits.ts"
import { VisitsRepo } from "./repo.ts"

/** The FutureVisits port of people, answered from visits. */
export const FutureVisitsLive = Layer.effect(FutureVisits)(
  Effect.gen(function* () {
    const repo = yield* VisitsRepo
    return { count: (businessId, personId, now) => repo.futureVisitCount({ businessId, personId, now }) }
  })
)
