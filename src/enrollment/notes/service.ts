import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { CurrentStaff } from "../../access/access.ts"
import { requireAuthorOrManager } from "../../access/policies.ts"
import { CurrentBusiness } from "../../access/tenant.ts"
import { findOccurrence } from "../../schedule/event-occurrences/service.ts"
import { sendMail } from "../../platform/mail/service.ts"
import { clientReach, requireInReach, requireLivePerson } from "../../identity/people/client-reach.ts"
import { staffView } from "../../access/caller.ts"
import { frontCaller } from "../../catalog/services/callers.ts"
import { privateResponse } from "../../shared/cache-headers.ts"
import { type Message, Unprocessable, fail } from "../../shared/errors.ts"
import { parseLocale } from "../../shared/locale.ts"
import { pageLinks, pageOf } from "../../shared/pagination.ts"
import { MAX_NOTE_LENGTH, type NoteCreateInput, type NoteListQuery, type NoteRow, type NoteTarget, type NoteUpdateInput, toNoteWire } from "./model.ts"
import { NotesRepo } from "./repo.ts"
import { currentTime } from "../../shared/clock.ts"
import { NoteRefusals } from "./refusals.ts"

/**
 * Notes on people and event occurrences (spec: Notes). Clients read public notes only, of
 * themselves, their dependents and occurrences they can see; staff read and write all.
 * Deleting needs the note's author, a manager or an owner (spec, Authentication rule 4).
 */

/**
 * The path's record must be within the caller's reach; anything else is not found. Client mode:
 * an occurrence clients can see, or the token's person or a dependent (private responses).
 */
const requireFrontTarget = Effect.fn("Notes.requireFrontTarget")(function* (target: NoteTarget) {
  yield* privateResponse
  if (target._tag === "EventOccurrence") yield* findOccurrence(target.id, yield* frontCaller)
  else yield* requireInReach(yield* clientReach, target.id)
})

/** Staff mode: any occurrence, any live person of the business. */
const requireDeskTarget = Effect.fn("Notes.requireDeskTarget")(function* (target: NoteTarget) {
  if (target._tag === "EventOccurrence") yield* findOccurrence(target.id, staffView)
  else yield* requireLivePerson(target.id)
})

const findNote = Effect.fn("Notes.find")(function* (target: NoteTarget, id: number, publicOnly: boolean) {
  const business = yield* CurrentBusiness
  const row = yield* (yield* NotesRepo).find({ businessId: business.id, target, id })
  if (!row || (publicOnly && !row.public)) return yield* NoteRefusals.noteNotFound.fail({ id })
  return row
})

/** Newest first; client mode sees public notes only. */
const list = Effect.fn("Notes.list")(function* (target: NoteTarget, query: NoteListQuery, publicOnly: boolean) {
  const business = yield* CurrentBusiness
  const page = pageOf(query)
  const { rows, total } = yield* (yield* NotesRepo).list({ businessId: business.id, target, publicOnly, page })
  return { notes: rows.map(toNoteWire), ...(yield* pageLinks(page, total)) }
})

export const listFrontNotes = Effect.fn("Notes.frontList")(function* (target: NoteTarget, query: NoteListQuery) {
  yield* requireFrontTarget(target)
  return yield* list(target, query, true)
})

export const listDeskNotes = Effect.fn("Notes.deskList")(function* (target: NoteTarget, query: NoteListQuery) {
  yield* requireDeskTarget(target)
  return yield* list(target, query, false)
})

export const getFrontNote = Effect.fn("Notes.frontGet")(function* (target: NoteTarget, id: number) {
  yield* requireFrontTarget(target)
  return { notes: [toNoteWire(yield* findNote(target, id, true))] }
})

export const getDeskNote = Effect.fn("Notes.deskGet")(function* (target: NoteTarget, id: number) {
  yield* requireDeskTarget(target)
  return { notes: [toNoteWire(yield* findNote(target, id, false))] }
})

/** `note` is required and not blank (a 422 rule); its length is bounded. */
const checkText = (note: string | null | undefined, problems: Array<Message>) => {
  const text = note ?? ""
  if (text.trim() === "") problems.push(NoteRefusals.noteBlank.message())
  else if (text.length > MAX_NOTE_LENGTH) problems.push(NoteRefusals.noteTooLong.message({ max: MAX_NOTE_LENGTH }))
  return text
}

/**
 * send_notifications mails a public note to the people it concerns: the person (a note on a
 * person), or everyone holding a place on the occurrence. A private note is never sent.
 */
const notify = Effect.fn("Notes.notify")(function* (target: NoteTarget, note: string) {
  const business = yield* CurrentBusiness
  const repo = yield* NotesRepo
  const about = yield* repo.about({ businessId: business.id, target })
  const locale = parseLocale(business.default_locale) ?? "en"
  for (const recipient of yield* repo.recipients({ businessId: business.id, target })) {
    yield* sendMail({
      template: "note_added",
      to: recipient.email,
      locale,
      params: { name: recipient.first_name, business: business.name, about, note },
      businessId: business.id
    })
  }
})

export const createNote = Effect.fn("Notes.create")(function* (target: NoteTarget, input: NoteCreateInput) {
  const business = yield* CurrentBusiness
  const staff = yield* CurrentStaff
  const repo = yield* NotesRepo
  const sql = yield* SqlClient.SqlClient
  const now = (yield* currentTime)
  yield* requireDeskTarget(target)
  const problems: Array<Message> = []
  const note = checkText(input.note, problems)
  if (problems.length > 0) return yield* fail(Unprocessable, ...problems)
  const fields = { note, public: input.public ?? false, pinned: input.pinned ?? false, createdById: staff.personId }
  const id = yield* sql.withTransaction(
    Effect.gen(function* () {
      const id = yield* repo.insert({ businessId: business.id, target, ...fields, now })
      if (input.send_notifications === true && fields.public) yield* notify(target, note)
      return id
    })
  ).pipe(Effect.catchTag("SqlError", Effect.die))
  return { notes: [toNoteWire((yield* repo.find({ businessId: business.id, target, id }))!)] }
})

export const updateNote = Effect.fn("Notes.update")(function* (target: NoteTarget, id: number, input: NoteUpdateInput) {
  const business = yield* CurrentBusiness
  const repo = yield* NotesRepo
  const now = (yield* currentTime)
  yield* requireDeskTarget(target)
  const row: NoteRow = yield* findNote(target, id, false)
  const problems: Array<Message> = []
  const note = checkText(input.note, problems)
  if (problems.length > 0) return yield* fail(Unprocessable, ...problems)
  yield* repo.update({ businessId: business.id, id, note, public: input.public ?? row.public, pinned: input.pinned ?? row.pinned, now })
  return { notes: [toNoteWire((yield* repo.find({ businessId: business.id, target, id }))!)] }
})

export const deleteNote = Effect.fn("Notes.delete")(function* (target: NoteTarget, id: number) {
  const business = yield* CurrentBusiness
  yield* requireDeskTarget(target)
  const row = yield* findNote(target, id, false)
  yield* requireAuthorOrManager(row.created_by_id)
  // The delete itself decides: of two at once, the second finds nothing and answers 404, as it would after.
  if ((yield* (yield* NotesRepo).delete({ businessId: business.id, id })) === undefined) return yield* NoteRefusals.noteNotFound.fail({ id })
})
