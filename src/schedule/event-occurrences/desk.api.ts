import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { DeskAccess } from "../../access/access.ts"
import { docs } from "../../shared/docs.ts"
import { BadRequest, Forbidden, NotFound, Unprocessable } from "../../shared/errors.ts"
import { IdFromString } from "../../shared/schemas.ts"
import {
  EventOccurrenceDesk,
  EventOccurrenceDeskOne,
  OccurrenceListQuery,
  OccurrenceSummary,
  OccurrenceSummaryQueryDesk
} from "./model.ts"
import { eventOccurrenceEndpointRefusals as REFUSALS } from "./refusals.ts"

export const EventOccurrencesDeskApi = HttpApiGroup.make("eventOccurrencesDesk")
  .add(
    HttpApiEndpoint.get("list", "/api/v2/desk/event_occurrences", {
      query: OccurrenceListQuery,
      success: Schema.Struct({ event_occurrences: Schema.Array(EventOccurrenceDesk) }),
      error: BadRequest
    }).annotateMerge(
      docs(
        "List event occurrences",
        "Every service type, appointments included. Occurrences starting from `from` to `to` (default: today in the business's " +
          "time zone), by start. An id in staff_member_ids, service_ids, event_ids or location_ids that does not exist is a 400.",
        REFUSALS.list
      )
    )
  )
  .add(
    HttpApiEndpoint.get("summary", "/api/v2/desk/event_occurrences/summary", {
      query: OccurrenceSummaryQueryDesk,
      success: Schema.Struct({ event_occurrence_summaries: Schema.Array(OccurrenceSummary) }),
      error: BadRequest
    }).annotateMerge(
      docs(
        "Count event occurrences per day or hour",
        "Buckets of the business's time zone that have occurrences, in order. `service_types`: Appointment, Course, GroupClass (default all).",
        REFUSALS.list
      )
    )
  )
  .add(
    HttpApiEndpoint.get("get", "/api/v2/desk/event_occurrences/:id", {
      params: { id: IdFromString },
      success: Schema.Struct({ event_occurrences: Schema.Array(EventOccurrenceDeskOne) }),
      error: NotFound
    }).annotateMerge(docs("Get an event occurrence", "In any state, with its roster and visits.", REFUSALS.get))
  )
  .add(
    HttpApiEndpoint.put("update", "/api/v2/desk/event_occurrences/:id", {
      params: { id: IdFromString },
      payload: Schema.Struct({
        attendance_complete: Schema.Literal(true).annotate({ description: "true completes the occurrence's attendance (it cannot be reopened)" })
      }),
      success: Schema.Struct({ event_occurrences: Schema.Array(EventOccurrenceDeskOne) }),
      error: [BadRequest, Forbidden, NotFound, Unprocessable]
    }).annotateMerge(
      docs(
        "Complete an event occurrence's attendance",
        "Not in the spec: `{\"attendance_complete\": true}` marks the roster final (standard staff, managers and owners; an active " +
          "occurrence only; repeating it changes nothing). Each staff member with a pay rate then gets a pending service pay.",
        REFUSALS.update
      )
    )
  )
  .middleware(DeskAccess)
  .annotateMerge(docs("Event occurrences (staff mode)"))
