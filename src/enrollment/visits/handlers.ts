import { HttpApiBuilder } from "effect/http-api"
import { apiOf } from "../../shared/http-api.ts"
import { VisitsFrontApi } from "./front.api.ts"
import { VisitsDeskApi } from "./desk.api.ts"
import { createDeskVisit, createFrontVisit, deleteDeskVisit, deleteFrontVisit, updateDeskVisit } from "./commands.ts"
import {
  deskVisitSummary,
  getDeskVisit,
  getFrontVisit,
  listDeskOccurrenceVisits,
  listDeskPersonVisits,
  listFrontPersonVisits
} from "./service.ts"

export const VisitsFrontLive = HttpApiBuilder.group(apiOf(VisitsFrontApi), "visitsFront", (handlers) =>
  handlers
    .handle("get", ({ params }) => getFrontVisit(params.id))
    .handle("list", ({ params, query }) => listFrontPersonVisits(params.person_id, query))
    .handle("create", ({ payload }) => createFrontVisit(payload.visit))
    .handle("delete", ({ params }) => deleteFrontVisit(params.id)))

export const VisitsDeskLive = HttpApiBuilder.group(apiOf(VisitsDeskApi), "visitsDesk", (handlers) =>
  handlers
    .handle("get", ({ params }) => getDeskVisit(params.id))
    .handle("summary", ({ params }) => deskVisitSummary(params.person_id))
    .handle("personList", ({ params, query }) => listDeskPersonVisits(params.person_id, query))
    .handle("occurrenceList", ({ params, query }) => listDeskOccurrenceVisits(params.event_occurrence_id, query))
    .handle("create", ({ payload }) => createDeskVisit(payload.visit))
    .handle("update", ({ params, payload }) => updateDeskVisit(params.id, payload.visit))
    .handle("delete", ({ params }) => deleteDeskVisit(params.id)))
