import { Effect } from "effect"
import { OfferWaitlistPlacesJob } from "../../src/enrollment/visits/jobs.ts"
import { offerWaitlistPlaces } from "../../src/enrollment/waitlists/offer.ts"

/**
 * Places came free in an occurrence (enqueued by `placesFreed`, keyed per occurrence, in the
 * transaction that freed them): the oldest waiting people get them (src/enrollment/waitlists/offer.ts).
 */
export const offerWaitlistPlacesTask = (payload: unknown) =>
  Effect.gen(function* () {
    const job = yield* OfferWaitlistPlacesJob.decode(payload)
    const result = yield* offerWaitlistPlaces(job.business_id, job.event_occurrence_id)
    yield* Effect.logInfo("waitlist places offered").pipe(
      Effect.annotateLogs({ business_id: job.business_id, event_occurrence_id: job.event_occurrence_id, ...result })
    )
  })
