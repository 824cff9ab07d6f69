import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { FrontAccess } from "../../access/access.ts"
import { docs } from "../../shared/docs.ts"
import { BadRequest, NotFound, Unauthorized } from "../../shared/errors.ts"
import { IdFromString } from "../../shared/schemas.ts"
import { NoteListQuery, NotePage, Notes } from "./model.ts"
import { noteEndpointRefusals as REFUSALS } from "./refusals.ts"

export const NotesFrontApi = HttpApiGroup.make("notesFront")
  .add(
    HttpApiEndpoint.get("personList", "/api/v2/front/people/:person_id/notes", {
      params: { person_id: IdFromString },
      query: NoteListQuery,
      success: NotePage,
      error: [BadRequest, NotFound, Unauthorized]
    }).annotateMerge(
      docs(
        "List a person's public notes",
        "The token's person or a dependent (anyone else is not found); public notes only, newest first, paginated (20 per page).",
        REFUSALS.list
      )
    )
  )
  .add(
    HttpApiEndpoint.get("personGet", "/api/v2/front/people/:person_id/notes/:id", {
      params: { person_id: IdFromString, id: IdFromString },
      success: Notes,
      error: [NotFound, Unauthorized]
    }).annotateMerge(docs("Get a person's public note", "A private note, or one on another path, is not found.", REFUSALS.get))
  )
  .add(
    HttpApiEndpoint.get("occurrenceList", "/api/v2/front/event_occurrences/:event_occurrence_id/notes", {
      params: { event_occurrence_id: IdFromString },
      query: NoteListQuery,
      success: NotePage,
      error: [BadRequest, NotFound, Unauthorized]
    }).annotateMerge(
      docs(
        "List an event occurrence's public notes",
        "For an occurrence the caller can see (as GET event_occurrences/:id; no token needed with `client_id`); public notes only, newest first, paginated (20 per page).",
        REFUSALS.list
      )
    )
  )
  .add(
    HttpApiEndpoint.get("occurrenceGet", "/api/v2/front/event_occurrences/:event_occurrence_id/notes/:id", {
      params: { event_occurrence_id: IdFromString, id: IdFromString },
      success: Notes,
      error: [NotFound, Unauthorized]
    }).annotateMerge(docs("Get an event occurrence's public note", "A private note, or one on another path, is not found.", REFUSALS.get))
  )
  .middleware(FrontAccess)
  .annotateMerge(docs("Notes (client mode)"))
