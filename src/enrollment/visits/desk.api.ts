import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "effect/http-api"
import { DeskAccess } from "../../access/access.ts"
import { docs } from "../../shared/docs.ts"
import { BadRequest, NotFound, Unprocessable } from "../../shared/errors.ts"
import { PageFields, PageQuery } from "../../shared/pagination.ts"
import { IdFromString } from "../../shared/schemas.ts"
import { PersonTargetParam } from "../../shared/schemas.ts"
import { VisitCreateDeskInput, VisitDetail, VisitListQuery, VisitOne, VisitSummary, VisitUpdateInput } from "./model.ts"
import { visitEndpointRefusals as REFUSALS } from "./refusals.ts"

const visits = Schema.Struct({ visits: Schema.Array(VisitOne) })
const visitOne = Schema.Struct({ visits: Schema.Array(VisitOne) })
const visitPage = Schema.Struct({ visits: Schema.Array(VisitDetail), ...PageFields })

export const VisitsDeskApi = HttpApiGroup.make("visitsDesk")
  .add(
    HttpApiEndpoint.get("get", "/api/v2/desk/visits/:id", { params: { id: IdFromString }, success: visitOne, error: NotFound }).annotateMerge(
      docs("Get a visit", undefined, REFUSALS.get)
    )
  )
  .add(
    HttpApiEndpoint.get("summary", "/api/v2/desk/people/:person_id/visits/summary", {
      params: { person_id: PersonTargetParam },
      success: Schema.Struct({ summaries: Schema.Array(VisitSummary) }),
      error: [BadRequest, NotFound]
    }).annotateMerge(
      docs(
        "Summarize a person's completed visits",
        "One record under `summaries` (the public API's root key): the start of the first and of the last completed " +
          "visit's occurrence and how many, overall and per service in `services_visited_at` (by first completed visit). " +
          "Nulls and an empty `services_visited_at` without completed visits.",
        REFUSALS.summary
      )
    )
  )
  .add(
    HttpApiEndpoint.get("personList", "/api/v2/desk/people/:person_id/visits", {
      params: { person_id: PersonTargetParam },
      query: VisitListQuery,
      success: visitPage,
      error: [BadRequest, NotFound]
    }).annotateMerge(
      docs(
        "List a person's visits",
        "Ordered by the event occurrence's start, then id; 20 per page by default. `from` and `to` bound the occurrence's " +
          "start (both inclusive) and come together: one without the other is a 400, as is `to` before `from`.",
        REFUSALS.personList
      )
    )
  )
  .add(
    HttpApiEndpoint.get("occurrenceList", "/api/v2/desk/event_occurrences/:event_occurrence_id/visits", {
      params: { event_occurrence_id: IdFromString },
      query: PageQuery,
      success: visitPage,
      error: [BadRequest, NotFound]
    }).annotateMerge(
      docs(
        "List an event occurrence's visits",
        "Every visit of the occurrence, in the order they were made; 20 per page by default. The time range of the " +
          "person list does not apply here.",
        REFUSALS.occurrenceList
      )
    )
  )
  .add(
    HttpApiEndpoint.post("create", "/api/v2/desk/visits", {
      payload: Schema.Struct({ visit: VisitCreateDeskInput }),
      success: visits.pipe(HttpApiSchema.status(201)),
      error: [BadRequest, NotFound, Unprocessable]
    }).annotateMerge(
      docs(
        "Create a visit",
        "`state` defaults to registered; every state but `reserved` needs `person_id` (422). Unknown person or occurrence: 404. " +
          "Staff may overbook and enroll late: only the `restrictions` listed (`full`, `in_the_past`, `inside_blackout_window`) " +
          "are enforced, each failing one a 422 with its description; an unknown value is a 400. A cancelled or deleted " +
          "occurrence and a person already on it are always refused. `notify_client` (default true) mails the client a " +
          "confirmation for a reserved or registered visit and governs the notice on delete.",
        REFUSALS.deskCreate
      )
    )
  )
  .add(
    HttpApiEndpoint.put("update", "/api/v2/desk/visits/:id", {
      params: { id: IdFromString },
      payload: Schema.Struct({ visit: VisitUpdateInput }),
      success: visits,
      error: [BadRequest, NotFound, Unprocessable]
    }).annotateMerge(
      docs(
        "Update a visit",
        "`person_id` can be set on a visit without a person, never changed (422). `state_event`: register (reserved → " +
          "registered, needs a person), complete, noshow, late_cancel (registered → completed, noshowed, late_canceled), " +
          "reset (completed, noshowed or late_canceled → registered, clearing completed_at, noshow_at and cancelled_at). " +
          "Any other event for the current state is a 422. No-show and late cancel free the place; reset takes it again " +
          "without a capacity check (staff may overbook).",
        REFUSALS.update
      )
    )
  )
  .add(
    HttpApiEndpoint.delete("delete", "/api/v2/desk/visits/:id", {
      params: { id: IdFromString },
      error: [NotFound, Unprocessable]
    }).annotateMerge(
      docs(
        "Delete a visit",
        "204; the place frees. The client is mailed when the visit was created with notify_client and its occurrence " +
          "has not started. A place held by a booking is released through the booking instead (422).",
        REFUSALS.deskDelete
      )
    )
  )
  .middleware(DeskAccess)
  .annotateMerge(docs("Visits (staff mode)"))
