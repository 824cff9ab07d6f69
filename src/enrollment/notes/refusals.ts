import { NotFound, Unprocessable } from "../../shared/errors.ts"
import { refusal } from "../../shared/refusals.ts"

/** Every refusal of the notes endpoints. */
export const NoteRefusals = {
  noteNotFound: refusal(NotFound, "note_not_found"),
  noteBlank: refusal(Unprocessable, "note_blank"),
  noteTooLong: refusal(Unprocessable, "note_too_long")
}
