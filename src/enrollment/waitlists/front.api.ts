import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "effect/http-api"
import { FrontAccess } from "../../access/access.ts"
import { docs } from "../../shared/docs.ts"
import { BadRequest, NotFound, Unauthorized, Unprocessable } from "../../shared/errors.ts"
import { PageFields } from "../../shared/pagination.ts"
import { IdFromString } from "../../shared/schemas.ts"
import { EntryListQuery, WaitlistEligibility, WaitlistEntryFront, WaitlistEntryFrontCreate } from "./model.ts"
import { waitlistEndpointRefusals as REFUSALS } from "./refusals.ts"

const entries = Schema.Struct({ waitlist_entries: Schema.Array(WaitlistEntryFront) })

export const WaitlistsFrontApi = HttpApiGroup.make("waitlistsFront")
  .add(
    HttpApiEndpoint.get("eligibilities", "/api/v2/front/event_occurrences/:event_occurrence_id/waitlist_eligibilities", {
      params: { event_occurrence_id: IdFromString },
      success: Schema.Struct({ waitlist_eligibilities: Schema.Array(WaitlistEligibility) }),
      error: [NotFound, Unauthorized]
    }).annotateMerge(
      docs(
        "Check waitlist eligibility",
        "One record for the token's person, then one per dependent. Each lists every applicable restriction with a localized " +
          "description: event_cancelled, event_deleted, event_in_past (the occurrence has started), person_already_waitlisted " +
          "(a pending or waiting entry), person_already_enrolled (a visit on the occurrence), waitlist_full (the service's " +
          "waitlist_capacity reached), waitlist_disabled, waitlist_unavailable (nothing to wait for: places left, no capacity " +
          "limit, or an appointment). Needs an access token (a `client_id` alone is a 401).",
        REFUSALS.eligibilities
      )
    )
  )
  .add(
    HttpApiEndpoint.get("get", "/api/v2/front/waitlist_entries/:id", {
      params: { id: IdFromString },
      success: entries,
      error: [NotFound, Unauthorized]
    }).annotateMerge(docs("Get a waitlist entry", "An entry of the token's person or a dependent; removed (deleted) entries are not found.", REFUSALS.get))
  )
  .add(
    HttpApiEndpoint.get("list", "/api/v2/front/people/:person_id/waitlist_entries", {
      params: { person_id: IdFromString },
      query: EntryListQuery,
      success: Schema.Struct({ waitlist_entries: Schema.Array(WaitlistEntryFront), ...PageFields }),
      error: [BadRequest, NotFound, Unauthorized]
    }).annotateMerge(
      docs(
        "List a person's waitlist entries",
        "The token's person or a dependent (anyone else is not found). Ordered by the occurrence's start, then id; paginated " +
          "(20 per page). `from` and `to` (each required when the other is given) bound the occurrence's start; removed entries are left out.",
        REFUSALS.personList
      )
    )
  )
  .add(
    HttpApiEndpoint.post("create", "/api/v2/front/waitlist_entries", {
      payload: Schema.Struct({ waitlist_entry: WaitlistEntryFrontCreate }),
      success: entries.pipe(HttpApiSchema.status(201)),
      error: [BadRequest, NotFound, Unauthorized, Unprocessable]
    }).annotateMerge(
      docs(
        "Join a waitlist",
        "`person_id` defaults to the token's person and may name a dependent. The entry starts `waiting`. 422 with the " +
          "description of each waitlist eligibility restriction (see waitlist_eligibilities); 404 for an occurrence the client " +
          "cannot see or a person out of reach.",
        REFUSALS.create
      )
    )
  )
  .add(
    HttpApiEndpoint.delete("delete", "/api/v2/front/waitlist_entries/:id", {
      params: { id: IdFromString },
      error: [NotFound, Unauthorized]
    }).annotateMerge(
      docs("Leave a waitlist", "Marks the entry `removed` (204); it is no longer found in client mode. Any state may be removed.", REFUSALS.delete)
    )
  )
  .middleware(FrontAccess)
  .annotateMerge(docs("Waitlists (client mode)"))
