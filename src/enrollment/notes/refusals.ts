import { NotFound, Unprocessable } from "../../shared/errors.ts"
import { type Refusal, refusal } from "../../shared/refusals.ts"
import { EventOccurrenceRefusals } from "../../schedule/event-occurrences/refusals.ts"

/** Every refusal of the notes endpoints. */
export const NoteRefusals = {
  noteNotFound: refusal(NotFound, "note_not_found"),
  noteBlank: refusal(Unprocessable, "note_blank"),
  noteTooLong: refusal(Unprocessable, "note_too_long"),
  personNotFound: refusal(NotFound, "person_not_found")
}

const R = NoteRefusals
/** Whose notes: a person (client mode: the token's person or a dependent) or an event occurrence. */
const target = [R.personNotFound, EventOccurrenceRefusals.eventOccurrenceNotFound]

/** Each notes endpoint's refusals (person and occurrence paths alike). */
export const noteEndpointRefusals = {
  list: target,
  get: [...target, R.noteNotFound],
  create: [...target, R.noteBlank, R.noteTooLong],
  update: [...target, R.noteNotFound, R.noteBlank, R.noteTooLong],
  delete: [...target, R.noteNotFound]
} satisfies Record<string, ReadonlyArray<Refusal>>
