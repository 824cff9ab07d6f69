import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "effect/http-api"
import { DeskAccess } from "../../access/access.ts"
import { docs } from "../../shared/docs.ts"
import { BadRequest, Forbidden, NotFound, Unprocessable } from "../../shared/errors.ts"
import { IdFromString } from "../../shared/schemas.ts"
import { NoteCreateInput, NoteListQuery, NotePage, NoteUpdateInput, Notes } from "./model.ts"
import { noteEndpointRefusals as REFUSALS } from "./refusals.ts"

const listDescription = "Public and private, newest first (created_at, then id), paginated (20 per page)."
const createDescription =
  "`note` is required (422 when missing or blank; at most 10000 characters); `public` and `pinned` default to false. " +
  "`send_notifications` (default false) mails a public note to the person, or to everyone holding a place on the " +
  "occurrence; a private note is never sent. `created_by_id` is the staff member's person id."
const updateDescription = "`note` is required (422 when missing or blank); `public` and `pinned` stay unchanged when absent."
const deleteDescription = "204. Only the note's author, a manager or an owner (403 otherwise)."

// The same five endpoints on both paths a note lives under.
const personList = HttpApiEndpoint.get("personList", "/api/v2/desk/people/:person_id/notes", {
  params: { person_id: IdFromString },
  query: NoteListQuery,
  success: NotePage,
  error: [BadRequest, NotFound]
}).annotateMerge(docs("List the notes of a person", listDescription, REFUSALS.list))
const personGet = HttpApiEndpoint.get("personGet", "/api/v2/desk/people/:person_id/notes/:id", {
  params: { person_id: IdFromString, id: IdFromString },
  success: Notes,
  error: NotFound
}).annotateMerge(docs("Get a note of a person", "A note on another path is not found.", REFUSALS.get))
const personCreate = HttpApiEndpoint.post("personCreate", "/api/v2/desk/people/:person_id/notes", {
  params: { person_id: IdFromString },
  payload: Schema.Struct({ note: NoteCreateInput }),
  success: Notes.pipe(HttpApiSchema.status(201)),
  error: [BadRequest, NotFound, Unprocessable]
}).annotateMerge(docs("Add a note to a person", createDescription, REFUSALS.create))
const personUpdate = HttpApiEndpoint.put("personUpdate", "/api/v2/desk/people/:person_id/notes/:id", {
  params: { person_id: IdFromString, id: IdFromString },
  payload: Schema.Struct({ note: NoteUpdateInput }),
  success: Notes,
  error: [BadRequest, NotFound, Unprocessable]
}).annotateMerge(docs("Update a note of a person", updateDescription, REFUSALS.update))
const personDelete = HttpApiEndpoint.delete("personDelete", "/api/v2/desk/people/:person_id/notes/:id", {
  params: { person_id: IdFromString, id: IdFromString },
  error: [NotFound, Forbidden]
}).annotateMerge(docs("Delete a note of a person", deleteDescription, REFUSALS.delete))

const occurrenceList = HttpApiEndpoint.get("occurrenceList", "/api/v2/desk/event_occurrences/:event_occurrence_id/notes", {
  params: { event_occurrence_id: IdFromString },
  query: NoteListQuery,
  success: NotePage,
  error: [BadRequest, NotFound]
}).annotateMerge(docs("List the notes of an event occurrence", listDescription, REFUSALS.list))
const occurrenceGet = HttpApiEndpoint.get("occurrenceGet", "/api/v2/desk/event_occurrences/:event_occurrence_id/notes/:id", {
  params: { event_occurrence_id: IdFromString, id: IdFromString },
  success: Notes,
  error: NotFound
}).annotateMerge(docs("Get a note of an event occurrence", "A note on another path is not found.", REFUSALS.get))
const occurrenceCreate = HttpApiEndpoint.post("occurrenceCreate", "/api/v2/desk/event_occurrences/:event_occurrence_id/notes", {
  params: { event_occurrence_id: IdFromString },
  payload: Schema.Struct({ note: NoteCreateInput }),
  success: Notes.pipe(HttpApiSchema.status(201)),
  error: [BadRequest, NotFound, Unprocessable]
}).annotateMerge(docs("Add a note to an event occurrence", createDescription, REFUSALS.create))
const occurrenceUpdate = HttpApiEndpoint.put("occurrenceUpdate", "/api/v2/desk/event_occurrences/:event_occurrence_id/notes/:id", {
  params: { event_occurrence_id: IdFromString, id: IdFromString },
  payload: Schema.Struct({ note: NoteUpdateInput }),
  success: Notes,
  error: [BadRequest, NotFound, Unprocessable]
}).annotateMerge(docs("Update a note of an event occurrence", updateDescription, REFUSALS.update))
const occurrenceDelete = HttpApiEndpoint.delete("occurrenceDelete", "/api/v2/desk/event_occurrences/:event_occurrence_id/notes/:id", {
  params: { event_occurrence_id: IdFromString, id: IdFromString },
  error: [NotFound, Forbidden]
}).annotateMerge(docs("Delete a note of an event occurrence", deleteDescription, REFUSALS.delete))

export const NotesDeskApi = HttpApiGroup.make("notesDesk")
  .add(personList)
  .add(personGet)
  .add(personCreate)
  .add(personUpdate)
  .add(personDelete)
  .add(occurrenceList)
  .add(occurrenceGet)
  .add(occurrenceCreate)
  .add(occurrenceUpdate)
  .add(occurrenceDelete)
  .middleware(DeskAccess)
  .annotateMerge(docs("Notes (staff mode)"))
