import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { FrontAccess } from "../../access/access.ts"
import { docs } from "../../shared/docs.ts"
import { BadRequest, NotFound } from "../../shared/errors.ts"
import { IdFromString } from "../../shared/schemas.ts"
import { EventOccurrenceFront, OccurrenceListQuery, OccurrenceSummary, OccurrenceSummaryQueryFront } from "./model.ts"
import { eventOccurrenceEndpointRefusals as REFUSALS } from "./refusals.ts"

export const EventOccurrencesFrontApi = HttpApiGroup.make("eventOccurrencesFront")
  .add(
    HttpApiEndpoint.get("list", "/api/v2/front/event_occurrences", {
      query: OccurrenceListQuery,
      success: Schema.Struct({ event_occurrences: Schema.Array(EventOccurrenceFront) }),
      error: BadRequest
    }).annotateMerge(
      docs(
        "List event occurrences",
        "Publicly viewable group classes and courses (members-only ones for a member's token); no token needed (`client_id`). " +
          "Occurrences starting from `from` to `to` (default: today in the business's time zone), by start. " +
          "An id in staff_member_ids, service_ids, event_ids or location_ids that does not exist (or clients cannot see) is a 400.",
        REFUSALS.list
      )
    )
  )
  .add(
    HttpApiEndpoint.get("summary", "/api/v2/front/event_occurrences/summary", {
      query: OccurrenceSummaryQueryFront,
      success: Schema.Struct({ event_occurrence_summaries: Schema.Array(OccurrenceSummary) }),
      error: BadRequest
    }).annotateMerge(
      docs(
        "Count event occurrences per day or hour",
        "Buckets of the business's time zone that have occurrences, in order. `service_types`: Course, GroupClass (default both).",
        REFUSALS.list
      )
    )
  )
  .add(
    HttpApiEndpoint.get("get", "/api/v2/front/event_occurrences/:id", {
      params: { id: IdFromString },
      success: Schema.Struct({ event_occurrences: Schema.Array(EventOccurrenceFront) }),
      error: NotFound
    }).annotateMerge(
      docs("Get an event occurrence", "In any state. An appointment is found only by the person it is booked for. No people or visit data.", REFUSALS.get)
    )
  )
  .middleware(FrontAccess)
  .annotateMerge(docs("Event occurrences (client mode)"))
