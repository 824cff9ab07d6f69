import { HttpApiBuilder } from "effect/http-api"
import { apiOf } from "../../shared/http-api.ts"
import { NotesFrontApi } from "./front.api.ts"
import { NotesDeskApi } from "./desk.api.ts"
import type { NoteTarget } from "./model.ts"
import { createNote, deleteNote, getDeskNote, getFrontNote, listDeskNotes, listFrontNotes, updateNote } from "./service.ts"

const person = (id: number): NoteTarget => ({ _tag: "Person", id })
const occurrence = (id: number): NoteTarget => ({ _tag: "EventOccurrence", id })

export const NotesFrontLive = HttpApiBuilder.group(apiOf(NotesFrontApi), "notesFront", (handlers) =>
  handlers
    .handle("personList", ({ params, query }) => listFrontNotes(person(params.person_id), query))
    .handle("personGet", ({ params }) => getFrontNote(person(params.person_id), params.id))
    .handle("occurrenceList", ({ params, query }) => listFrontNotes(occurrence(params.event_occurrence_id), query))
    .handle("occurrenceGet", ({ params }) => getFrontNote(occurrence(params.event_occurrence_id), params.id)))

export const NotesDeskLive = HttpApiBuilder.group(apiOf(NotesDeskApi), "notesDesk", (handlers) =>
  handlers
    .handle("personList", ({ params, query }) => listDeskNotes(person(params.person_id), query))
    .handle("personGet", ({ params }) => getDeskNote(person(params.person_id), params.id))
    .handle("personCreate", ({ params, payload }) => createNote(person(params.person_id), payload.note))
    .handle("personUpdate", ({ params, payload }) => updateNote(person(params.person_id), params.id, payload.note))
    .handle("personDelete", ({ params }) => deleteNote(person(params.person_id), params.id))
    .handle("occurrenceList", ({ params, query }) => listDeskNotes(occurrence(params.event_occurrence_id), query))
    .handle("occurrenceGet", ({ params }) => getDeskNote(occurrence(params.event_occurrence_id), params.id))
    .handle("occurrenceCreate", ({ params, payload }) => createNote(occurrence(params.event_occurrence_id), payload.note))
    .handle("occurrenceUpdate", ({ params, payload }) => updateNote(occurrence(params.event_occurrence_id), params.id, payload.note))
    .handle("occurrenceDelete", ({ params }) => deleteNote(occurrence(params.event_occurrence_id), params.id)))
