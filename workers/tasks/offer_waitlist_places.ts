import { Effect, Schema } from "effect"
import { offerWaitlistPlaces } from "../../src/waitlists/offer.ts"

/**
 * Places came free in an occurrence (enqueued by `placesFreed`, keyed per occurrence, in the
 * transaction that freed them): the oldest waiting people get them (src/waitlists/offer.ts).
 */
const Payload = Schema.Struct({ business_id: Schema.Int, event_occurrence_id: Schema.Int })
const decode = Schema.decodeUnknownEffect(Payload)

export const offerWaitlistPlacesTask = (payload: unknown) =>
  Effect.gen(function* () {
    const job = yield* decode(payload).pipe(Effect.orDie)
    const result = yield* offerWaitlistPlaces(job.business_id, job.event_occurrence_id)
    yield* Effect.logInfo("waitlist places offered").pipe(
      Effect.annotateLogs({ business_id: job.business_id, event_occurrence_id: job.event_occurrence_id, ...result })
    )
  })
