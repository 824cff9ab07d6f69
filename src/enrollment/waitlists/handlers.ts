import { HttpApiBuilder } from "effect/http-api"
import { apiOf } from "../../shared/http-api.ts"
import { WaitlistsFrontApi } from "./front.api.ts"
import { WaitlistsDeskApi } from "./desk.api.ts"
import {
  createDeskEntry,
  createFrontEntry,
  deleteDeskEntry,
  deleteFrontEntry,
  frontWaitlistEligibilities,
  getDeskEntry,
  getFrontEntry,
  listDeskOccurrenceEntries,
  listDeskPersonEntries,
  listFrontPersonEntries,
  updateDeskEntry
} from "./service.ts"

export const WaitlistsFrontLive = HttpApiBuilder.group(apiOf(WaitlistsFrontApi), "waitlistsFront", (handlers) =>
  handlers
    .handle("eligibilities", ({ params }) => frontWaitlistEligibilities(params.event_occurrence_id))
    .handle("get", ({ params }) => getFrontEntry(params.id))
    .handle("list", ({ params, query }) => listFrontPersonEntries(params.person_id, query))
    .handle("create", ({ payload }) => createFrontEntry(payload.waitlist_entry))
    .handle("delete", ({ params }) => deleteFrontEntry(params.id)))

export const WaitlistsDeskLive = HttpApiBuilder.group(apiOf(WaitlistsDeskApi), "waitlistsDesk", (handlers) =>
  handlers
    .handle("get", ({ params }) => getDeskEntry(params.id))
    .handle("personList", ({ params, query }) => listDeskPersonEntries(params.person_id, query))
    .handle("occurrenceList", ({ params, query }) => listDeskOccurrenceEntries(params.event_occurrence_id, query))
    .handle("create", ({ payload }) => createDeskEntry(payload.waitlist_entry))
    .handle("update", ({ params, payload }) => updateDeskEntry(params.id, payload.waitlist_entry.state_event))
    .handle("delete", ({ params }) => deleteDeskEntry(params.id)))
