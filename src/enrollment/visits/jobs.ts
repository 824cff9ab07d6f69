import { Schema } from "effect"
import { defineJob } from "../../platform/jobs.ts"

/** Places came free in an occurrence: offers them to its waitlist (workers/tasks/offer_waitlist_places.ts). */
export const OfferWaitlistPlacesJob = defineJob(
  "offer_waitlist_places",
  Schema.Struct({ business_id: Schema.Int, event_occurrence_id: Schema.Int })
)
