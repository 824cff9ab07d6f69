import { Schema } from "effect"
import { PageFields, PageQuery } from "../../shared/pagination.ts"
import { BooleanInput, Timestamp, formatTimestamp } from "../../shared/schemas.ts"

/** Notes on a person or an event occurrence (spec: Note; fields: compatibility notes). */
export const NOTE_SUBJECTS = ["Person", "EventOccurrence"] as const

export const MAX_NOTE_LENGTH = 10000

export const NoteWire = Schema.Struct({
  id: Schema.Int,
  note: Schema.String,
  public: Schema.Boolean.annotate({ description: "Visible to the client" }),
  pinned: Schema.Boolean.annotate({ description: "Starred: shown in class rosters and at the top of client profiles" }),
  person_id: Schema.NullOr(Schema.Int),
  event_occurrence_id: Schema.NullOr(Schema.Int),
  subject: Schema.Literals(NOTE_SUBJECTS).annotate({ description: "What the note is about: Person or EventOccurrence" }),
  created_by_id: Schema.NullOr(Schema.Int).annotate({ description: "The person id of the staff member who wrote it" }),
  created_at: Timestamp,
  updated_at: Timestamp
}).annotate({ identifier: "Note" })
export type NoteWire = typeof NoteWire.Type

export const NoteRow = Schema.Struct({
  id: Schema.Number,
  note: Schema.String,
  public: Schema.Boolean,
  pinned: Schema.Boolean,
  person_id: Schema.NullOr(Schema.Number),
  event_occurrence_id: Schema.NullOr(Schema.Number),
  created_by_id: Schema.NullOr(Schema.Number),
  created_at: Schema.Date,
  updated_at: Schema.Date
})
export type NoteRow = typeof NoteRow.Type

export const toNoteWire = (row: NoteRow): NoteWire => ({
  id: row.id,
  note: row.note,
  public: row.public,
  pinned: row.pinned,
  person_id: row.person_id,
  event_occurrence_id: row.event_occurrence_id,
  subject: row.person_id !== null ? "Person" : "EventOccurrence",
  created_by_id: row.created_by_id,
  created_at: formatTimestamp(row.created_at),
  updated_at: formatTimestamp(row.updated_at)
})

/** `note` is checked by the service (missing or blank is a 422 rule, not a 400). */
const NoteText = Schema.optional(Schema.NullOr(Schema.String).annotate({ description: `Required; at most ${MAX_NOTE_LENGTH} characters` }))

export const NoteCreateInput = Schema.Struct({
  note: NoteText,
  public: Schema.optional(BooleanInput.annotate({ description: "Visible to the client; default false" })),
  pinned: Schema.optional(BooleanInput.annotate({ description: "Starred; default false" })),
  send_notifications: Schema.optional(
    BooleanInput.annotate({ description: "Mail a public note to the people it concerns; default false; create only" })
  )
})
export type NoteCreateInput = typeof NoteCreateInput.Type

export const NoteUpdateInput = Schema.Struct({
  note: NoteText,
  public: Schema.optional(BooleanInput.annotate({ description: "Absent: unchanged" })),
  pinned: Schema.optional(BooleanInput.annotate({ description: "Absent: unchanged" }))
})
export type NoteUpdateInput = typeof NoteUpdateInput.Type

/** Where a note lives: the path it is addressed by. */
export type NoteTarget = { readonly _tag: "Person"; readonly id: number } | { readonly _tag: "EventOccurrence"; readonly id: number }

/** The answers of the note endpoints (both modes). */
export const Notes = Schema.Struct({ notes: Schema.Array(NoteWire) })
export const NotePage = Schema.Struct({ notes: Schema.Array(NoteWire), ...PageFields })

/** Pages of a person's or an occurrence's notes. */
export const NoteListQuery = Schema.Struct(PageQuery)
export type NoteListQuery = typeof NoteListQuery.Type
