import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "effect/http-api"
import { DeskAccess } from "../../access/access.ts"
import { docs } from "../../shared/docs.ts"
import { BadRequest, NotFound, Unprocessable } from "../../shared/errors.ts"
import { PageFields } from "../../shared/pagination.ts"
import { IdFromString, IntInput } from "../../shared/schemas.ts"
import { EntryListQuery, WaitlistEntryDesk, WaitlistEntryDeskCreate, WaitlistEntryUpdate } from "./model.ts"
import { waitlistEndpointRefusals as REFUSALS } from "./refusals.ts"

const entries = Schema.Struct({ waitlist_entries: Schema.Array(WaitlistEntryDesk) })
const list = Schema.Struct({ waitlist_entries: Schema.Array(WaitlistEntryDesk), ...PageFields })
const listDescription =
  "Every state, removed entries included. Ordered by the occurrence's start, then id; paginated (20 per page). " +
  "`from` and `to` (each required when the other is given) bound the occurrence's start."

export const WaitlistsDeskApi = HttpApiGroup.make("waitlistsDesk")
  .add(
    HttpApiEndpoint.get("get", "/api/v2/desk/waitlist_entries/:id", {
      params: { id: IdFromString },
      success: entries,
      error: NotFound
    }).annotateMerge(docs("Get a waitlist entry", "In any state, `removed` included.", REFUSALS.get))
  )
  .add(
    HttpApiEndpoint.get("personList", "/api/v2/desk/people/:person_id/waitlist_entries", {
      params: { person_id: IdFromString },
      query: EntryListQuery,
      success: list,
      error: [BadRequest, NotFound]
    }).annotateMerge(docs("List a person's waitlist entries", listDescription, REFUSALS.personList))
  )
  .add(
    HttpApiEndpoint.get("occurrenceList", "/api/v2/desk/event_occurrences/:event_occurrence_id/waitlist_entries", {
      params: { event_occurrence_id: IdFromString },
      query: EntryListQuery,
      success: list,
      error: [BadRequest, NotFound]
    }).annotateMerge(docs("List an occurrence's waitlist entries", listDescription, REFUSALS.occurrenceList))
  )
  .add(
    HttpApiEndpoint.post("create", "/api/v2/desk/waitlist_entries", {
      payload: Schema.Struct({ waitlist_entry: WaitlistEntryDeskCreate }),
      success: entries.pipe(HttpApiSchema.status(201)),
      error: [BadRequest, NotFound, Unprocessable]
    }).annotateMerge(
      docs(
        "Add a person to a waitlist",
        "Starts `waiting`. Refused (422, one message per restriction) on the same rules as client-mode waitlist eligibility: " +
          "a cancelled, deleted or started occurrence, a person already waiting or enrolled, a full or disabled waitlist, or " +
          "nothing to wait for (places left). An unknown person or occurrence is a 404.",
        REFUSALS.create
      )
    )
  )
  .add(
    HttpApiEndpoint.put("update", "/api/v2/desk/waitlist_entries/:id", {
      params: { id: IdFromString },
      payload: Schema.Struct({
        waitlist_entry: Schema.Struct({ id: Schema.optional(IntInput), ...WaitlistEntryUpdate.fields })
      }),
      success: entries,
      error: [BadRequest, NotFound, Unprocessable]
    }).annotateMerge(
      docs(
        "Change a waitlist entry's state",
        "`state_event`: `wait` (from any state; 422 while the person has another pending or waiting entry on the occurrence) " +
          "or `enroll` (from any state but `removed`, 422; it marks the entry only, it creates no visit). " +
          "Repeating the current state changes nothing. Another value is a 400.",
        REFUSALS.update
      )
    )
  )
  .add(
    HttpApiEndpoint.delete("delete", "/api/v2/desk/waitlist_entries/:id", {
      params: { id: IdFromString },
      error: NotFound
    }).annotateMerge(docs("Remove a waitlist entry", "Marks the entry `removed` (204); staff still find it, clients do not.", REFUSALS.delete))
  )
  .middleware(DeskAccess)
  .annotateMerge(docs("Waitlists (staff mode)"))
